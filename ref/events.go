package ref

import (
	"ndma/internal/control"
)

// EVENTS (field-tables §2.2, §5.5, §5.6) are the word's control, shared with
// the engines (package control): the wait must hold when the word issues,
// the update is one of the word's reported changes.

// semDelta is a staged semaphore change, reported only if the word succeeds.
type semDelta = control.Change

// events checks the EVENTS wait and stages its update.
func (w *word) events() ([]semDelta, error) {
	return control.Events(w.x.state(), w.in)
}

// apply reports staged changes as the word's effect (Issue returns them).
func (w *word) apply(ds []semDelta) {
	for _, d := range ds {
		if d.Mem == nil {
			d.Mem = w.x.Mem
		}
		w.x.eff.Changes = append(w.x.eff.Changes, d)
	}
}
