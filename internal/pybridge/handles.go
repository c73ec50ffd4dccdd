package pybridge

import (
	"fmt"
	"sync"

	"ndma/internal/version"
)

// Objects a Python object holds across calls (a device, an opened NEFF, a
// run's result) live here under a number until Python frees them.
var handles = struct {
	sync.Mutex
	next uint64
	m    map[uint64]any
}{m: map[uint64]any{}}

func newHandle(v any) uint64 {
	handles.Lock()
	defer handles.Unlock()
	handles.next++
	handles.m[handles.next] = v
	return handles.next
}

// handle is the object h, of type T.
func handle[T any](h uint64) (T, error) {
	handles.Lock()
	v, ok := handles.m[h]
	handles.Unlock()
	t, isT := v.(T)
	if !ok || !isT {
		var zero T
		return zero, &ArgError{Msg: fmt.Sprintf("handle %d: no such %T (freed, or from another process)", h, zero)}
	}
	return t, nil
}

func init() {
	Register("free", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		handles.Lock()
		delete(handles.m, a.Handle)
		handles.Unlock()
		return Reply{}, nil
	})
	Register("ping", func(c *Call) (Reply, error) { return Reply{Value: len(c.Bufs)}, nil })
	Register("version", func(c *Call) (Reply, error) { return Reply{Value: version.Release}, nil })
	Register("names", func(c *Call) (Reply, error) { return Reply{Value: Names()}, nil })
	Register("panic", func(c *Call) (Reply, error) { // the test of protect: a panic comes back as an error
		var m map[string]int
		m["x"] = 1
		return Reply{}, nil
	})
}
