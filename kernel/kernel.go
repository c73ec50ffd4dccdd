// Package kernel runs a compiled Neuron kernel in a few lines: Open a NEFF
// (its generation is the file's), Run it with typed inputs (In: float32,
// dtype.Float16, dtype.BFloat16, the FP8 and integer types), read typed
// outputs (Out), cancel it with a context. The packages it stands on do
// each part: isa the words, neff the container, device the runtime (one
// resolved Program, one run loop), dtype the scalar types and their codecs.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"ndma/device"
	"ndma/dtype"
	"ndma/isa"
	"ndma/neff"
)

// MaxFile is the most bytes Open reads of a NEFF file (the largest real
// NEFF we know is a few MB; a mistaken device file stops here).
const MaxFile = 1 << 30

// Kernel is a compiled NEFF opened to run: read, parsed and resolved once
// (device.FromNEFF) for the generation its kelf names.
type Kernel struct {
	program *device.Program
	tensors map[string]neff.Tensor
}

// Open reads the NEFF at path (at most MaxFile bytes) and resolves it.
func Open(path string) (*Kernel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxFile {
		return nil, fmt.Errorf("%s: more than %d bytes: not a NEFF ndma reads", path, MaxFile)
	}
	k, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Parse is Open of a NEFF's bytes.
func Parse(b []byte) (*Kernel, error) {
	f, err := neff.Parse(b, neff.Options{})
	if err != nil {
		return nil, err
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return nil, err
	}
	if _, gen := f.Target(); gen == isa.GenAny {
		return nil, errors.New("the kelf names no generation ndma knows")
	}
	p, err := device.FromNEFF(f, sgs, isa.GenAny)
	if err != nil {
		return nil, err
	}
	return &Kernel{program: p, tensors: f.Tensors()}, nil
}

// Gen is the generation the kernel was compiled for.
func (k *Kernel) Gen() isa.Gen { return k.program.Gen }

// Program is the resolved program: what every tool reads and the run runs.
func (k *Kernel) Program() *device.Program { return k.program }

// Tensor is a kernel variable a user gives or reads: its name, kind
// ("input", "output"), type and shape (neff.json; a variable it does not
// type is raw bytes: UINT8 of its size).
type Tensor struct {
	Name  string
	Kind  string
	DType dtype.DType
	Shape []int
	Bytes int64
}

// Tensors are the kernel's inputs and outputs, each once, in subgraph and
// variable order.
func (k *Kernel) Tensors() []Tensor {
	var out []Tensor
	for si := range k.program.NEFF.Subgraphs {
		for _, v := range k.program.NEFF.Subgraphs[si].Variables() {
			if v.Type != "input" && v.Type != "output" || slices.ContainsFunc(out, func(t Tensor) bool { return t.Name == v.Name }) {
				continue
			}
			t := Tensor{Name: v.Name, Kind: v.Type, DType: dtype.U8, Shape: []int{int(v.Size)}, Bytes: v.Size}
			if nt, ok := k.tensors[v.Name]; ok {
				if d, err := nt.DType(); err == nil && d.Size() > 0 && elements(nt.Shape)*int64(d.Size()) == v.Size {
					t.DType, t.Shape = d, slices.Clone(nt.Shape)
				}
			}
			out = append(out, t)
		}
	}
	return out
}

func elements(shape []int) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	return n
}

// tensor is the named input or output.
func (k *Kernel) tensor(name string) (Tensor, bool) {
	for _, t := range k.Tensors() {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}

// Input is a named input's data (In).
type Input struct {
	name  string
	dt    dtype.DType
	n     int
	bytes []byte
}

// In is data for the input variable name, in C order: its elements of the
// tensor's own type, or float32 for any float tensor (rounded to it as a
// DMA cast rounds: to nearest even).
func In[T dtype.Elem](name string, data []T) Input {
	return Input{name: name, dt: dtype.Of[T](), n: len(data), bytes: dtype.Bytes(data)}
}

// InBytes is In for data already in bytes: n elements of type dt, C order
// (Python's ndma hands a NumPy array's buffer this way).
func InBytes(name string, dt dtype.DType, data []byte) Input {
	n := 0
	if dt.Size() > 0 {
		n = len(data) / dt.Size()
	}
	return Input{name: name, dt: dt, n: n, bytes: data}
}

// Result is a kernel's run: its outputs, read with Out, and the run's
// account (the schedule, what ndma did not compute).
type Result struct {
	*device.Result
	kernel *Kernel
	image  *device.Image
}

// Run runs the kernel on a fresh device (the descriptor engines, with DMA
// time) with the inputs given; an input not given holds deterministic
// random values, as `ndma neff run` gives it. Cancelling ctx stops the run.
func (k *Kernel) Run(ctx context.Context, inputs ...Input) (*Result, error) {
	return k.RunWith(ctx, device.Options{Exec: device.Sim}, inputs...)
}

// RunWith is Run with the run's options (the executor, engine times, a
// timeline, …); the inputs are those given, not opt.Inputs.
func (k *Kernel) RunWith(ctx context.Context, opt device.Options, inputs ...Input) (*Result, error) {
	in := map[string]device.Input{}
	for _, x := range inputs {
		t, ok := k.tensor(x.name)
		if !ok || t.Kind != "input" {
			return nil, fmt.Errorf("%w: %q is not an input of the kernel", ErrInput, x.name)
		}
		if _, twice := in[x.name]; twice {
			return nil, fmt.Errorf("%w: %q is given twice", ErrInput, x.name)
		}
		data, err := cast(x.bytes, x.n, x.dt, t)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrInput, x.name, err)
		}
		in[x.name] = device.Input{Data: data}
	}
	im, err := device.LoadProgram(k.program, in)
	if err != nil {
		return nil, err
	}
	res, err := im.RunContext(ctx, opt)
	if res == nil {
		return nil, err
	}
	return &Result{Result: res, kernel: k, image: im}, err
}

// ErrInput is an input that is not the kernel's, or does not fit it.
var ErrInput = errors.New("input")

// cast is n elements of type from as the tensor's bytes: as they are for
// its own type, cast from float32 to a float tensor.
func cast(b []byte, n int, from dtype.DType, t Tensor) ([]byte, error) {
	if want := t.Bytes / int64(t.DType.Size()); int64(n) != want || int64(len(b)) != int64(n)*int64(from.Size()) {
		return nil, fmt.Errorf("%d elements, the tensor %v holds %d", n, t.Shape, want)
	}
	switch {
	case from == t.DType:
		return b, nil
	case from == dtype.FP32 && t.DType.IsFloat():
		out := make([]byte, t.Bytes)
		return out, dtype.Convert(out, t.DType, b, from)
	}
	return nil, fmt.Errorf("%v data for a %v tensor (give its own type, or float32 for a float tensor)", from, t.DType)
}

// Out is the output (or any variable with bytes) name after the run, as
// []T: T the tensor's own type, or float32 for any float tensor (widened
// exactly).
func Out[T dtype.Elem](r *Result, name string) ([]T, error) {
	t, ok := r.kernel.tensor(name)
	if !ok {
		return nil, fmt.Errorf("%q is not an input or output of the kernel", name)
	}
	b, err := r.image.Var(name)
	if err != nil {
		return nil, err
	}
	want := dtype.Of[T]()
	switch {
	case want == t.DType:
	case want == dtype.FP32 && t.DType.IsFloat():
		wide := make([]byte, len(b)/t.DType.Size()*4)
		if err := dtype.Convert(wide, dtype.FP32, b, t.DType); err != nil {
			return nil, err
		}
		b = wide
	default:
		return nil, fmt.Errorf("%q is %v, not %v (read it as its own type, or float32 for a float tensor)", name, t.DType, want)
	}
	return dtype.FromBytes[T](b)
}

// Image is the device the kernel ran on, its variables placed: read any of
// them (Var, ViewVar) after the run.
func (r *Result) Image() *device.Image { return r.image }
