// Package pybridge is the one entry point Python's ndma package calls
// (python/, through the c-shared library cmd/libndma): a call is a name, its
// arguments as JSON and raw buffers by pointer (NumPy arrays, read or filled
// in place); the answer is JSON and, for a variable-length result, one byte
// blob. Every call runs under recover: a Go panic comes back as an error,
// never across into Python. Further layers (an ndma.nki) add their calls
// with Register; the C side never changes.
package pybridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
)

// Call is one call's input. Bufs are the caller's memory, valid only during
// the call: a function copies what it keeps.
type Call struct {
	Args []byte
	Bufs [][]byte
}

// Decode reads the call's JSON arguments into v, refusing unknown keys
// (a misspelt option is an error, not a default).
func (c *Call) Decode(v any) error {
	if len(c.Args) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(c.Args))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return &ArgError{Msg: "arguments: " + err.Error()}
	}
	return nil
}

// Buf is buffer i, or an ArgError naming what it was for.
func (c *Call) Buf(i int, what string) ([]byte, error) {
	if i >= len(c.Bufs) {
		return nil, &ArgError{Msg: fmt.Sprintf("%s: no buffer %d given", what, i)}
	}
	return c.Bufs[i], nil
}

// Reply is a call's answer: Value as JSON, Blob as bytes.
type Reply struct {
	Value any
	Blob  []byte
}

// Func is one entry point.
type Func func(c *Call) (Reply, error)

var (
	mu    sync.RWMutex
	funcs = map[string]Func{}
)

// Register adds an entry point; a name registered twice is a programming
// error and panics (at init, never in a call).
func Register(name string, f Func) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := funcs[name]; dup {
		panic("pybridge: " + name + " registered twice")
	}
	funcs[name] = f
}

// Names are the registered entry points, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(funcs))
	for k := range funcs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Dispatch runs the entry point name: the JSON answer is {"value": …} or
// {"error": {"kind": …, "message": …, …}} (Classify), blob the Reply's.
func Dispatch(name string, args []byte, bufs [][]byte) (answer, blob []byte) {
	mu.RLock()
	f, ok := funcs[name]
	mu.RUnlock()
	if !ok {
		return errorJSON(&ArgError{Msg: fmt.Sprintf("no entry point %q in the library (a stale libndma: rebuild with python/build.py)", name)}), nil
	}
	r, err := protect(f, &Call{Args: args, Bufs: bufs})
	if err != nil {
		return errorJSON(err), nil
	}
	b, err := json.Marshal(struct {
		Value any `json:"value"`
	}{r.Value})
	if err != nil {
		return errorJSON(err), nil
	}
	return b, r.Blob
}

// protect runs f, turning a panic into an error that names it and where.
func protect(f Func, c *Call) (r Reply, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = Reply{}, &PanicError{Value: fmt.Sprint(p), Stack: string(debug.Stack())}
		}
	}()
	return f(c)
}

// PanicError is a Go panic caught at the bridge: a bug in ndma, reported
// as an ndma.Error with its stack.
type PanicError struct{ Value, Stack string }

func (e *PanicError) Error() string {
	return "internal error (a bug in ndma; please report it): " + e.Value
}

// ArgError is a call's argument the bridge refuses: a Python TypeError or
// ValueError (ndma.InputError) naming it.
type ArgError struct {
	Name string // the input or argument named, when one is
	Msg  string
}

func (e *ArgError) Error() string { return e.Msg }

func errorJSON(err error) []byte {
	e := Classify(err)
	b, mErr := json.Marshal(struct {
		Error map[string]any `json:"error"`
	}{e})
	if mErr != nil {
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"kind": "error", "message": err.Error()}})
	}
	return b
}

// errAs is errors.As for a target type.
func errAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
