package ref

import (
	"fmt"

	"ndma/control"
	"ndma/isa"
	"ndma/mem"
)

// DMA_COPY2D (MAVERICK) — field-tables §3.8, §5.3, §5.4; source document 000
// §3b. Its address modes and semaphore updates are INFERRED (RATIONALE.md).

func (w *word) copy2D() error {
	st := w.x.state()
	if err := control.WaitSema(st, w.in); err != nil {
		return err
	}
	dstMem, err := control.Copy2DTarget(st, w.in)
	if err != nil {
		return err
	}
	sa, da, err := control.Copy2DAddrs(st, w.in)
	if err != nil {
		return err
	}
	m := &move{}
	var legs [2]isa.Leg2D
	legs[0], legs[1], _ = w.in.Legs2D()
	for k, leg := range []string{"src", "dst"} {
		a, l := [2]uint64{sa, da}[k], legs[k]
		size, num := int(l.Elem), [2]int{int(l.Num[0]), int(l.Num[1])}
		if int64(num[0])*int64(num[1])*int64(size) > w.x.maxBytes() {
			return w.fault(-1, "max-bytes", fmt.Errorf("%s leg: more than the %d bytes allowed", leg, w.x.maxBytes()))
		}
		e := walk2D(a, num, l.Step, size)
		if k == 0 {
			m.src = e
		} else {
			m.dst = e
		}
	}
	local, remote, err := control.Copy2DSemas(st, w.in)
	if err != nil {
		return err
	}
	if dstMem == w.x.Mem && len(remote) > 0 {
		return w.fault(-1, "sema_update_mode", fmt.Errorf("a remote semaphore update on a local copy (remote_core_id 0): %w", ErrUnsupported))
	}
	deltas := control.Copy2DChanges(st, dstMem, local, remote)
	if dstMem == w.x.Mem {
		return w.run(m, deltas)
	}
	return w.remoteCopy(m, dstMem, deltas)
}

// remoteCopy moves a DMA_MEMCPY2's bytes into another core's memory: every
// element of both legs checked first, the source read, then the target
// written; its local and remote updates reported (atomic).
func (w *word) remoteCopy(m *move, dst *mem.Memory, deltas []semDelta) error {
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
	w.apply(deltas)
	return nil
}
