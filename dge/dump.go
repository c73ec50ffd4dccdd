package dge

import (
	"fmt"
	"strconv"
)

// The program's text dump: the firmware's own log lines, byte for byte
// (field-tables §8.3, source document 003 §3). Lines ndma adds start with "#".
// The push lines are 003 §3's strings, without the "S: " field-tables §8.3
// puts before them (RATIONALE.md, Document conflicts).

// AppendDump appends the dump of the program (AppendTrace without rings:
// no "rx.base" lines).
func (p *Program) AppendDump(dst []byte) []byte { return p.AppendTrace(dst, nil) }

// AppendTrace appends the program's trace in the order of field-tables §8.1
// ("decode → analyze_tensor_reshape per tensor → pair assessment (final
// Reshape Kind + #DMA) → backend select → per channel DMA[d]: [REGWRITE]* +
// one GENERATE + one DIMPUSH per dim"), after the DGE context setup of each
// channel (003 §8 "setup: "DGE contexts … init sw=0 engine=E queue_idx=Q …""),
// with rings[c] the queue and ring bases of channel c (package sdma).
func (p *Program) AppendTrace(dst []byte, rings []Ring) []byte {
	switch p.Backend {
	case NoDGE:
		return append(dst, "# SUNDA has no DGE emitter: the POOL dma_memcopy kernel writes the descriptors directly\n"...)
	case Pool, Software: // 003 §7.2/§8 set the context up on the Pool path; field-tables §8.2: software is "context sw=1"
		for c := range p.Channels {
			ch := &p.Channels[c]
			q := 0
			if c < len(rings) {
				q = rings[c].Queue
			}
			// the tx/rx contexts are the channel's two ring slots in DGE_MEMORY, 2d and 2d+1 (INFERRED)
			dst = appendHex(append(dst, "S: DGE contexts "...), uint64(2*ch.DMA))
			dst = appendHex(append(dst, '/'), uint64(2*ch.DMA+1))
			dst = appendInt(append(dst, " init sw="...), b2i(p.Backend == Software))
			dst = appendInt(append(dst, " engine="...), ch.DMA)
			dst = appendInt(append(dst, " queue_idx="...), q)
			dst = appendInt(append(dst, " queue_num="...), len(p.Channels))
			dst = append(dst, '\n')
			if c < len(rings) {
				dst = appendHex(append(dst, "S: rx.base="...), rings[c].Rx)
				dst = appendHex(append(dst, ", tx.base="...), rings[c].Tx)
				dst = append(dst, '\n')
			}
		}
	}
	if p.Backend == Software {
		// 003 §6.4: the firmware's descriptor classes are DGE DIRECT2D, INDIRECT and GATHER;
		// it names no transpose class, so that line is ndma's own and starts with '#'
		switch p.Kind {
		case KindTranspose:
			dst = append(dst, "# DGE TRANSPOSE: ndma's line, not the firmware's (source document 003 §6.4, docs/sources.md, names DGE DIRECT2D/INDIRECT/GATHER)\n"...)
		case KindGatherTranspose:
			dst = fmt.Appendf(dst, "P%d: DGE GATHER\n", 0)
		default:
			dst = fmt.Appendf(dst, "P%d: DGE %s\n", 0, p.Kind)
		}
	}
	for _, l := range p.ReshapeLines() {
		dst = append(append(dst, l...), '\n')
	}
	switch p.Backend {
	case Pool:
		dst = append(dst, "S: DGE: Select backend Pool\n"...)
	case RTL:
		dst = append(dst, "S: DGE: Select backend RTL\n"...)
	}
	dim := min(int(p.IndirectionDim()), 4)
	for c := range p.Channels {
		ch := &p.Channels[c]
		ops := p.ChannelOps(c) // the rows built when not stored (Options.NoRowOps)
		for k := range ops {
			op := &ops[k]
			switch op.Kind {
			case RegWrite:
				dst = append(appendInt(append(dst, "push REGWRITE to DMA["...), ch.DMA), "]\n"...)
			case Generate:
				if p.Backend == Software {
					// 003 §5.2: "The Q7 SW-DGE descriptor-generation loop walks the index explicitly";
					// the row sits at the word's indirection dimension (INFERRED)
					var at [5]int
					at[dim] = int(op.Row)
					dst = fmt.Appendf(dst, "Descriptor generation loop index: [%d, %d, %d, %d, %d]\n", at[0], at[1], at[2], at[3], at[4])
				}
				dst = appendInt(append(dst, "push GENERATE to DMA["...), ch.DMA)
				dst = append(append(append(dst, "]: "...), op.Dir.String()...), " : addr="...)
				dst = appendHex(dst, op.Addr)
				dst = strconv.AppendInt(append(dst, ", elem_size="...), int64(op.ElemSize), 10)
				dst = strconv.AppendInt(append(dst, ", sem_num="...), int64(op.Sem), 10)
				dst = append(dst, '\n')
			case DimPush: // "[%d,%d][%d,%d]": the counts, then the steps
				dst = appendInt(append(dst, "push DIMPUSH to DMA["...), ch.DMA)
				dst = strconv.AppendUint(append(dst, "]: ["...), uint64(op.SrcNum), 10)
				dst = strconv.AppendUint(append(dst, ','), uint64(op.DstNum), 10)
				dst = strconv.AppendInt(append(dst, "]["...), op.SrcStep, 10)
				dst = strconv.AppendInt(append(dst, ','), op.DstStep, 10)
				dst = append(dst, "]\n"...)
			}
		}
		if len(p.Skipped) > 0 {
			dst = fmt.Appendf(dst, "# %d rows without a GENERATE (index out of range, past its bound register or outside the memory map): %s\n", len(p.Skipped), intList(p.Skipped, 16))
		}
		dst = p.appendShapeDump(dst, ch)
	}
	return dst
}

// appendHex is fmt's 0x%x of v; appendInt its %d: the trace is a few lines
// a channel of every word a NEFF listing prints, built without fmt.
func appendHex(dst []byte, v uint64) []byte { return strconv.AppendUint(append(dst, "0x"...), v, 16) }

func appendInt(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// intList prints up to limit numbers of xs, comma-separated, "…" for the rest.
func intList(xs []int, limit int) string {
	var b []byte
	for i, x := range xs {
		if i == limit {
			return string(b) + ", …"
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// appendShapeDump is the backend's `$S[…]` descriptor dump of one channel:
// src=[bound]@addr[steps…][nums…], in elements.
func (p *Program) appendShapeDump(dst []byte, ch *Channel) []byte {
	n := p.Backend.Dims()
	leg := func(dst []byte, l *Leg) []byte {
		dst = appendHex(append(dst, '['), uint64(l.Bound.Byte()))
		dst = append(appendHex(append(dst, "]@"...), l.SoC), '[')
		for d := 0; d < n; d++ {
			if d > 0 {
				dst = append(dst, rtlSep(p.Backend, d)...)
			}
			step := l.Step[d] / int64(l.ElemSize)
			if l.Step[d]%int64(l.ElemSize) != 0 {
				step = 0 // a one-element dimension's unusable step (elemStep)
			}
			dst = append(dst, "0x"...)
			dst = strconv.AppendUint(dst, uint64(uint32(step)), 16)
		}
		dst = append(dst, "]["...)
		for d := 0; d < n; d++ {
			if d > 0 {
				dst = append(dst, rtlSep(p.Backend, d)...)
			}
			dst = strconv.AppendUint(dst, uint64(l.Num[d]), 10)
		}
		return append(dst, ']')
	}
	switch p.Backend {
	case Pool:
		dst = appendInt(append(dst, "S: DGE $S["...), p.Semaphore)
		dst = appendInt(append(dst, "]+="...), ch.SemInc)
		dst = leg(append(dst, "@dmacomplete src="...), &ch.Src)
		dst = append(dst, " dst="...)
		dst = leg(dst, &ch.Dst)
		_, shi := ch.Src.extent()
		_, dhi := ch.Dst.extent()
		// " cast:0x%x->0x%x bounds:(%d 0x%x<=0x%x, %d 0x%x<=0x%x) compute_op: 0x%x"
		// Each bound is the leg's last byte against r[bc_reg], both Neuron
		// addresses, as the check compares them (sdma boundsCheck): the SoC
		// address of the last byte against a register's Neuron address would
		// print a passing check as 0x20000001ff<=0xfff (RATIONALE.md,
		// Document conflicts).
		dst = appendHex(append(dst, " cast:"...), uint64(p.InDtype))
		dst = appendHex(append(dst, "->"...), uint64(p.OutDtype))
		dst = appendInt(append(dst, " bounds:("...), int(ch.Src.Bound.Byte()>>7))
		dst = appendHex(append(dst, ' '), shi-1)
		dst = appendHex(append(dst, "<="...), p.BoundLimit[0])
		dst = appendInt(append(dst, ", "...), int(ch.Dst.Bound.Byte()>>7))
		dst = appendHex(append(dst, ' '), dhi-1)
		dst = appendHex(append(dst, "<="...), p.BoundLimit[1])
		dst = appendHex(append(dst, ") compute_op: "...), uint64(p.ComputeOp))
		dst = append(dst, '\n')
	case Software:
		dst = fmt.Appendf(dst, "S: DGE software backend: $S[%d]+=%d@dmacomplete src=", p.Semaphore, ch.SemInc)
		dst = leg(dst, &ch.Src)
		dst = append(dst, " dst="...)
		dst = leg(dst, &ch.Dst)
		// the word's INDIRECT_DIM, and the reshape the pair assessment resolved (RATIONALE.md)
		dst = fmt.Appendf(dst, " cast:0x%x->0x%x, indirection_dim=0x%x, reshape_kind=0x%x\n", p.InDtype, p.OutDtype, p.IndirectionDim(), p.ReshapeKind())
	case RTL:
		dst = fmt.Appendf(dst, "S: DGE RTL backend: $S[%d]+=%d@dmacomplete src=", p.Semaphore, ch.SemInc)
		dst = leg(dst, &ch.Src)
		dst = append(dst, " dst="...)
		dst = leg(dst, &ch.Dst)
		dst = append(dst, '\n')
	}
	return dst
}

// rtlSep separates the 5 + 2 dims of an RTL dump with "|" before the sixth.
func rtlSep(b Backend, d int) string {
	if b == RTL && d == 5 {
		return "|"
	}
	return ","
}
