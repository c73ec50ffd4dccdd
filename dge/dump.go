package dge

import (
	"fmt"
	"strconv"
)

// The program's text dump: the firmware's own log lines, byte for byte
// (field-tables §8.3, source document 003 §3). Lines ndma adds start with "#".

// AppendDump appends the dump of the program.
func (p *Program) AppendDump(dst []byte) []byte {
	switch p.Backend {
	case NoDGE:
		return append(dst, "# SUNDA has no DGE emitter: the POOL dma_memcopy kernel writes the descriptors directly\n"...)
	case Pool:
		dst = append(dst, "S: DGE: Select backend Pool\n"...)
	case RTL:
		dst = append(dst, "S: DGE: Select backend RTL\n"...)
	case Software:
		dst = fmt.Appendf(dst, "S: DGE contexts 0x%x/0x%x init sw=%d engine=%d queue_idx=%d queue_num=%d\n", 0, 0, 1, 0, 0, len(p.Channels))
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
	for _, l := range p.Reshape {
		dst = append(append(dst, l...), '\n')
	}
	for _, ch := range p.Channels {
		for _, op := range ch.Ops {
			switch op.Kind {
			case RegWrite:
				dst = fmt.Appendf(dst, "S: push REGWRITE to DMA[%d]\n", ch.DMA)
			case Generate:
				dst = fmt.Appendf(dst, "S: push GENERATE to DMA[%d]: %s : addr=0x%x, elem_size=%d, sem_num=%d\n", ch.DMA, op.Dir, op.Addr, op.ElemSize, op.Sem)
			case DimPush:
				dst = fmt.Appendf(dst, "S: push DIMPUSH to DMA[%d]: [%d,%d][%d,%d]\n", ch.DMA, op.SrcNum, op.DstNum, op.SrcStep, op.DstStep)
			}
		}
		dst = p.appendShapeDump(dst, &ch)
	}
	return dst
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
		dim := uint8(0) // the word's INDIRECT_DIM: gather_dim for a gathered source, scatter_dim for a scattered destination
		switch {
		case p.Kind == KindGatherTranspose, p.Kind == KindIndirect1D && p.Index.Mode.SrcIndexed():
			dim = p.Index.GatherDim
		case p.Kind == KindIndirect1D:
			dim = p.Index.ScatterDim
		}
		dst = fmt.Appendf(dst, " cast:0x%x->0x%x, indirection_dim=0x%x, reshape_kind=0x%x\n", p.InDtype, p.OutDtype, dim, 0)
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
