package dge

import (
	"fmt"
	"strconv"
)

// The program's text dump: the firmware's own log lines, byte for byte
// (field-tables §8.3, source document 003 §3). Lines ndma adds start with "#".

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
			dst = fmt.Appendf(dst, "S: DGE contexts 0x%x/0x%x init sw=%d engine=%d queue_idx=%d queue_num=%d\n",
				2*ch.DMA, 2*ch.DMA+1, b2i(p.Backend == Software), ch.DMA, q, len(p.Channels))
			if c < len(rings) {
				dst = fmt.Appendf(dst, "S: rx.base=0x%x, tx.base=0x%x\n", rings[c].Rx, rings[c].Tx)
			}
		}
	}
	if p.Backend == Software {
		// 003 §6.4: the firmware's descriptor classes are DGE DIRECT2D, INDIRECT and GATHER;
		// it names no transpose class, so that line is ndma's own and starts with '#'
		switch p.Kind {
		case KindTranspose:
			dst = append(dst, "# DGE TRANSPOSE: ndma's line, not the firmware's (003 §6.4 names DGE DIRECT2D/INDIRECT/GATHER)\n"...)
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
	for _, ch := range p.Channels {
		for _, op := range ch.Ops {
			switch op.Kind {
			case RegWrite:
				dst = fmt.Appendf(dst, "S: push REGWRITE to DMA[%d]\n", ch.DMA)
			case Generate:
				if p.Backend == Software {
					// 003 §5.2: "The Q7 SW-DGE descriptor-generation loop walks the index explicitly";
					// the row sits at the word's indirection dimension (INFERRED)
					var at [5]int
					at[dim] = int(op.Row)
					dst = fmt.Appendf(dst, "Descriptor generation loop index: [%d, %d, %d, %d, %d]\n", at[0], at[1], at[2], at[3], at[4])
				}
				dst = fmt.Appendf(dst, "S: push GENERATE to DMA[%d]: %s : addr=0x%x, elem_size=%d, sem_num=%d\n", ch.DMA, op.Dir, op.Addr, op.ElemSize, op.Sem)
			case DimPush:
				dst = fmt.Appendf(dst, "S: push DIMPUSH to DMA[%d]: [%d,%d][%d,%d]\n", ch.DMA, op.SrcNum, op.DstNum, op.SrcStep, op.DstStep)
			}
		}
		if len(p.Skipped) > 0 {
			dst = fmt.Appendf(dst, "# %d rows without a GENERATE (index out of range, past its bound register or outside the memory map): %s\n", len(p.Skipped), intList(p.Skipped, 16))
		}
		dst = p.appendShapeDump(dst, &ch)
	}
	return dst
}

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
		dst = fmt.Appendf(dst, "[0x%x]@0x%x[", l.Bound.Byte(), l.SoC)
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
		dst = fmt.Appendf(dst, "S: DGE $S[%d]+=%d@dmacomplete src=", p.Semaphore, ch.SemInc)
		dst = leg(dst, &ch.Src)
		dst = append(dst, " dst="...)
		dst = leg(dst, &ch.Dst)
		_, shi := ch.Src.extent()
		_, dhi := ch.Dst.extent()
		dst = fmt.Appendf(dst, " cast:0x%x->0x%x bounds:(%d 0x%x<=0x%x, %d 0x%x<=0x%x) compute_op: 0x%x\n",
			p.InDtype, p.OutDtype, ch.Src.Bound.Byte()>>7, ch.Src.SoC+shi-1-ch.Src.Addr, p.BoundLimit[0],
			ch.Dst.Bound.Byte()>>7, ch.Dst.SoC+dhi-1-ch.Dst.Addr, p.BoundLimit[1], p.ComputeOp)
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
