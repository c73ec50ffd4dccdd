package ref

import (
	"fmt"

	"ndma/internal/control"
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
	src, dst, _ := w.in.Legs2D()
	if err := w.limit(src, dst); err != nil {
		return err
	}
	m.src = walk2D(sa, [2]int{int(src.Num[0]), int(src.Num[1])}, src.Step, int(src.Elem))
	m.dst = walk2D(da, [2]int{int(dst.Num[0]), int(dst.Num[1])}, dst.Step, int(dst.Elem))
	local, remote, err := control.Copy2DSemas(st, w.in)
	if err != nil {
		return err
	}
	if dstMem == w.x.Mem && len(remote) > 0 {
		return w.fault(-1, "sema_update_mode", fmt.Errorf("a remote semaphore update on a local copy (remote_core_id 0): %w", ErrUnsupported))
	}
	deltas := control.Copy2DChanges(st, dstMem, local, remote)
	if dstMem != w.x.Mem {
		m.to = dstMem // another core's memory: every element of both legs checked first, then moved (atomic)
	}
	return w.run(m, deltas)
}
