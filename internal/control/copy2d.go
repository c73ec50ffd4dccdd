package control

import (
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// DMA_MEMCPY2 (MAVERICK) control — field-tables §3.8, §5.3, §5.4; source
// document 000 §3b: the address modes, the target core and the semaphore
// updates. INFERRED where RATIONALE.md says so; the bytes the legs then move
// are each executor's own.

func (w *word) pair(r uint64) uint64 {
	return uint64(w.st.Regs[r&63]) | uint64(w.st.Regs[(r+1)&63])<<32
}

// dmaAddr resolves a DMA_ADDR_UNION by its DMA_ADDR_MODE: IMM64; REG_PAIR
// (r[b] | r[b+1] << 32); base pair + a 32-bit immediate, a 32- or 64-bit
// register offset, or a register scaled by an immediate or a register — the
// "_I" modes reading their offset signed.
func (w *word) dmaAddr(path string, mode isa.DMAAddrModeCode) (uint64, error) {
	i, _ := w.in.Layout().LeafIndex(path)
	_, _, fields := w.in.UnionArm(i)
	if mode == 0 {
		return fields[0].Value, nil
	}
	get := func(n string) uint64 {
		for _, f := range fields {
			if f.Name == n {
				return f.Value
			}
		}
		return 0
	}
	regs := w.st.Regs
	base := w.pair(get("base_reg"))
	off, inc, imm := get("offset_reg"), get("inc_reg"), get("offset_imm")
	signed := mode%2 == 1 && mode >= 3
	ext := func(v uint64) uint64 { // a 32-bit offset, signed for the _I modes
		if signed {
			return uint64(int64(int32(uint32(v))))
		}
		return uint64(uint32(v))
	}
	switch mode {
	case 0x1:
		return base, nil
	case 0x2, 0x3:
		return base + ext(imm), nil
	case 0x4, 0x5:
		return base + ext(uint64(regs[off&63])), nil
	case 0x6, 0x7:
		return base + w.pair(off), nil
	case 0x8, 0x9:
		return base + ext(uint64(regs[off&63]))*imm, nil
	case 0xa, 0xb:
		return base + ext(uint64(regs[off&63]))*uint64(regs[inc&63]), nil
	}
	return 0, w.fault(-1, "addr_mode", fmt.Errorf("DMA_ADDR_MODE %#x: %w", uint8(mode), ErrUnsupported))
}

// Copy2DTarget is the memory a DMA_MEMCPY2 writes: this core's, or — with
// remote_core_id naming a register (r0 means none, INFERRED) — the memory of
// core r[remote_core_id], which the state's Peer must know.
func Copy2DTarget(st State, in *isa.Inst) (*mem.Memory, error) {
	w := newWord(st, in)
	v, ok := in.Copy2D()
	if !ok {
		return nil, w.fault(-1, "opcode", fmt.Errorf("%s is not a DMA_MEMCPY2: %w", w.name, ErrUnsupported))
	}
	r := v.RemoteCoreID()
	if r == 0 {
		return st.Mem, nil
	}
	if r >= 64 {
		return nil, w.fault(-1, "remote_core_id", fmt.Errorf("register r%d: there are 64", r))
	}
	core := int(st.Regs[r])
	var m *mem.Memory
	if st.Peer != nil {
		m = st.Peer(core)
	}
	if m == nil {
		return nil, w.fault(-1, "remote_core_id", fmt.Errorf("core %d (r%d) is not in this run (.core): %w", core, r, ErrUnsupported))
	}
	return m, nil
}

// Copy2DAddrs resolves a DMA_MEMCPY2's src and dst start addresses by their
// DMA_ADDR_MODE on the state's registers.
func Copy2DAddrs(st State, in *isa.Inst) (src, dst uint64, err error) {
	w := newWord(st, in)
	v, ok := in.Copy2D()
	if !ok {
		return 0, 0, w.fault(-1, "opcode", fmt.Errorf("%s is not a DMA_MEMCPY2: %w", w.name, ErrUnsupported))
	}
	if src, err = w.dmaAddr("src_start_addr", v.AddrMode().Src()); err != nil {
		return 0, 0, err
	}
	dst, err = w.dmaAddr("dst_start_addr", v.AddrMode().Dst())
	return src, dst, err
}

// Copy2DSemas are the semaphores a DMA_MEMCPY2 adds 1 to when it completes
// (its rd_done and wr_done DMA_SEMA_UPDATE_MODE nibbles): on this core —
// the counter and collective-sync variants count the same in one stream
// (INFERRED) — and on the copy's target core (REMOTE_SEM_INC and its
// counter variant).
func Copy2DSemas(st State, in *isa.Inst) (local, remote []int, err error) {
	w := newWord(st, in)
	v, ok := in.Copy2D()
	if !ok {
		return nil, nil, w.fault(-1, "opcode", fmt.Errorf("%s is not a DMA_MEMCPY2: %w", w.name, ErrUnsupported))
	}
	for _, leg := range []struct {
		mode isa.DMASemaUpdateModeCode
		idx  int
	}{{v.SemaUpdateMode().RdDone(), int(v.RdDoneSemaUpdateIdx())}, {v.SemaUpdateMode().WrDone(), int(v.WrDoneSemaUpdateIdx())}} {
		mode, idx := leg.mode, leg.idx
		var into *[]int
		switch mode {
		case isa.DMASemaUpdateModeNone:
			continue
		case isa.DMASemaUpdateModeLocalSemInc, isa.DMASemaUpdateModeLocalSemIncCounter, isa.DMASemaUpdateModeLocalCollsyncInc:
			into = &local
		case isa.DMASemaUpdateModeRemoteSemInc, isa.DMASemaUpdateModeRemoteSemIncCounter, isa.DMASemaUpdateModeRemoteCollsyncInc:
			into = &remote
		default:
			return nil, nil, w.fault(-1, "sema_update_mode", fmt.Errorf("%s: %w", mode, ErrUnsupported))
		}
		if idx > 255 {
			return nil, nil, w.fault(-1, "sema_update_idx", fmt.Errorf("semaphore %d: there are 256", idx))
		}
		*into = append(*into, idx)
	}
	return local, remote, nil
}

// Copy2DChanges are the completion changes of a DMA_MEMCPY2 whose target
// memory is dst: +1 on each local semaphore, +1 on each remote one there.
func Copy2DChanges(st State, dst *mem.Memory, local, remote []int) []Change {
	var out []Change
	for _, i := range local {
		out = append(out, Change{Mem: st.Mem, Idx: i, Add: 1})
	}
	for _, i := range remote {
		out = append(out, Change{Mem: dst, Idx: i, Add: 1})
	}
	return out
}
