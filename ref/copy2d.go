package ref

import (
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// DMA_COPY2D (MAVERICK) — field-tables §3.8, §5.3, §5.4; source document 000
// §3b. Its address modes and semaphore updates are INFERRED (RATIONALE.md).

func (w *word) pair(r uint64) uint64 {
	return uint64(w.x.Regs[r&63]) | uint64(w.x.Regs[(r+1)&63])<<32
}

// dmaAddr resolves a DMA_ADDR_UNION by its DMA_ADDR_MODE: IMM64; REG_PAIR
// (r[b] | r[b+1] << 32); base pair + a 32-bit immediate, a 32- or 64-bit
// register offset, or a register scaled by an immediate or a register — the
// "_I" modes reading their offset signed.
func (w *word) dmaAddr(path string, mode uint64) (uint64, error) {
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
		return base + ext(uint64(w.x.Regs[off&63])), nil
	case 0x6, 0x7:
		return base + w.pair(off), nil
	case 0x8, 0x9:
		return base + ext(uint64(w.x.Regs[off&63]))*imm, nil
	case 0xa, 0xb:
		return base + ext(uint64(w.x.Regs[off&63]))*uint64(w.x.Regs[inc&63]), nil
	}
	return 0, w.fault(-1, "addr_mode", fmt.Errorf("DMA_ADDR_MODE %#x: %w", mode, ErrUnsupported))
}

// semaUpdate stages one DMA_SEMA_UPDATE_MODE nibble: the local increments
// (the counter variant counts the same in one stream); collective-sync and
// remote updates need other cores (the control-plane issue).
func (w *word) semaUpdate(mode uint64, idx int) ([]semDelta, error) {
	switch mode {
	case 0:
		return nil, nil
	case 0x1, 0x3, 0x5: // local; the counter and collective-sync variants count the same (INFERRED)
		return []semDelta{{idx: idx, add: 1}}, nil
	case 0x9, 0xb, 0xd: // on the remote core (the copy's target)
		return []semDelta{{idx: idx, add: 1, remote: true}}, nil
	}
	return nil, w.fault(-1, "sema_update_mode", fmt.Errorf("%s: %w", isa.DMASemaUpdateMode.Format(mode), ErrUnsupported))
}

func (w *word) copy2D() error {
	if err := WaitSema(w.x, w.in); err != nil {
		return err
	}
	dstMem, err := Copy2DTarget(w.x, w.in)
	if err != nil {
		return err
	}
	sa, da, err := Copy2DAddrs(w.x, w.in)
	if err != nil {
		return err
	}
	m := &move{}
	for k, leg := range []string{"src", "dst"} {
		a := [2]uint64{sa, da}[k]
		size := elemSize(w.u(leg + "_elem_size"))
		num := [2]int{int(w.u(leg + "_num_elem[0]")), int(w.u(leg + "_num_elem[1]"))}
		if int64(num[0])*int64(num[1])*int64(size) > w.x.maxBytes() {
			return w.fault(-1, "max-bytes", fmt.Errorf("%s leg: more than the %d bytes allowed", leg, w.x.maxBytes()))
		}
		e := walk2D(a, num, [2]int64{w.i(leg + "_step_elem[0]"), w.i(leg + "_step_elem[1]")}, size)
		if k == 0 {
			m.src = e
		} else {
			m.dst = e
		}
	}
	local, remote, err := Copy2DSemas(w.x, w.in)
	if err != nil {
		return err
	}
	var deltas []semDelta
	for _, i := range local {
		deltas = append(deltas, semDelta{idx: i, add: 1})
	}
	if dstMem == w.x.Mem {
		if len(remote) > 0 {
			return w.fault(-1, "sema_update_mode", fmt.Errorf("a remote semaphore update on a local copy (remote_core_id 0): %w", ErrUnsupported))
		}
		return w.run(m, deltas)
	}
	return w.remoteCopy(m, dstMem, deltas, remote)
}

// remoteCopy moves a DMA_MEMCPY2's bytes into another core's memory: every
// element of both legs checked first, the source read, then the target
// written; local updates here, remote ones on the target (atomic).
func (w *word) remoteCopy(m *move, dst *mem.Memory, local []semDelta, remote []int) error {
	if m.src.bytes() != m.dst.bytes() {
		return w.fault(-1, "byte count", fmt.Errorf("src moves %d bytes, dst %d: both legs carry the same bytes (§11.3)", m.src.bytes(), m.dst.bytes()))
	}
	if k, err := w.x.Mem.CheckRows(m.src.addr, m.src.size); err != nil {
		return w.fault(k, "src", err)
	}
	if k, err := dst.CheckRows(m.dst.addr, m.dst.size); err != nil {
		return w.fault(k, "dst (remote core)", err)
	}
	buf := make([]byte, m.src.bytes())
	for k, a := range m.src.addr {
		if err := w.x.Mem.Read(a, buf[k*m.src.size:(k+1)*m.src.size]); err != nil {
			return w.fault(k, "src", err) // cannot happen: checked
		}
	}
	for k, a := range m.dst.addr {
		if err := dst.Write(a, buf[k*m.dst.size:(k+1)*m.dst.size]); err != nil {
			return w.fault(k, "dst (remote core)", err)
		}
	}
	w.x.Stats.Lanes += len(m.dst.addr)
	w.x.Stats.BytesMoved += uint64(len(buf))
	w.apply(local)
	for _, i := range remote {
		dst.Sems[i]++
	}
	return nil
}

// Copy2DTarget is the memory a DMA_MEMCPY2 writes: this core's, or — with
// remote_core_id naming a register (r0 means none, INFERRED) — the memory of
// core r[remote_core_id], which the machine's Peer must know.
func Copy2DTarget(x *Machine, in *isa.Inst) (*mem.Memory, error) {
	r, _ := in.Uint("remote_core_id")
	if r == 0 {
		return x.Mem, nil
	}
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	if r >= 64 {
		return nil, w.fault(-1, "remote_core_id", fmt.Errorf("register r%d: there are 64", r))
	}
	core := int(x.Regs[r])
	var m *mem.Memory
	if x.Peer != nil {
		m = x.Peer(core)
	}
	if m == nil {
		return nil, w.fault(-1, "remote_core_id", fmt.Errorf("core %d (r%d) is not in this run (.core): %w", core, r, ErrUnsupported))
	}
	return m, nil
}

// Copy2DAddrs resolves a DMA_MEMCPY2's src and dst start addresses by their
// DMA_ADDR_MODE on machine x's registers — shared with the engines: the
// address modes are the word's control, the bytes they then move are not.
func Copy2DAddrs(x *Machine, in *isa.Inst) (src, dst uint64, err error) {
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	if src, err = w.dmaAddr("src_start_addr", w.u("addr_mode.src")); err != nil {
		return 0, 0, err
	}
	dst, err = w.dmaAddr("dst_start_addr", w.u("addr_mode.dst"))
	return src, dst, err
}

// Copy2DSemas are the semaphores a DMA_MEMCPY2 adds 1 to when it completes
// (its rd_done and wr_done updates): on this core, and on the copy's target
// core (REMOTE_SEM_INC and its counter variant); shared with the engines.
func Copy2DSemas(x *Machine, in *isa.Inst) (local, remote []int, err error) {
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	for _, leg := range []string{"rd", "wr"} {
		ds, err := w.semaUpdate(w.u("sema_update_mode."+leg+"_done"), int(w.u(leg+"_done_sema_update_idx")))
		if err != nil {
			return nil, nil, err
		}
		for _, d := range ds {
			if d.idx > 255 {
				return nil, nil, w.fault(-1, "sema_update_idx", fmt.Errorf("semaphore %d: there are 256", d.idx))
			}
			if d.remote {
				remote = append(remote, d.idx)
			} else {
				local = append(local, d.idx)
			}
		}
	}
	return local, remote, nil
}
