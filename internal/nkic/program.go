// Package nkic is ndma's NKI DMA compiler (docs/nki.md): a kernel's calls in
// a JSON program form — its tensors and the ordered nki.language /
// nki.isa calls the Python front end traced — compiled to the words the
// target would issue (DMAMEMCPY, DMA_INDIRECT, DMA_TRANSPOSE,
// DMA_GATHER_TRANSPOSE, the hwdge PSEUDO_DMA_DIRECT2D; the compute words of
// internal/compute where they can be formed) and run on one NeuronCore of
// package device's memory. The public surface is package ndma/nki.
package nkic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"ndma/dge"
	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// MaxProgram is the most bytes Parse reads (a traced kernel of 15,000
// calls is a few MB of JSON).
const MaxProgram = 64 << 20

// MaxCalls and MaxTensors bound a program before anything is compiled.
const (
	MaxCalls   = 1 << 20
	MaxTensors = 1 << 16
	MaxDims    = 8
)

// Program is a kernel's calls as the front end traced them.
type Program struct {
	// Target is trn1, trn2 or trn3 (or a generation name: sunda, cayman,
	// mariana); "" is trn2.
	Target  string    `json:"target,omitempty"`
	Dialect string    `json:"dialect,omitempty"` // "legacy" (neuronxcc.nki) or "nki" (NKI 0.6); informative
	Kernel  string    `json:"kernel,omitempty"`  // the kernel's name, for messages
	Tensors []*Tensor `json:"tensors"`
	Calls   []*Call   `json:"calls"`

	gen       isa.Gen
	byName    map[string]*Tensor
	relocVars *dge.Vars
	sizer     *compute.Engine   // sizes compute words for their time (ctime.go)
	nextHBM   uint64            // placement: the next free HBM offset
	next      map[string]uint64 // placement: the next free offset per partition, sbuf and psum
	shapes    map[string]*shape // static copies compiled, by shape (shapes.go)
	keyBuf    []byte            // shapeKey's buffer
	noShapes  bool              // compile every call in full (shapes_test.go)
}

// Tensor is one nl.ndarray (or a kernel argument / result).
type Tensor struct {
	Name   string `json:"name"`
	Buffer string `json:"buffer"` // hbm, shared_hbm, private_hbm, sbuf, psum
	DType  string `json:"dtype"`  // NKI dtype names: float32, bfloat16, float16, int32, uint32, …
	Shape  []int  `json:"shape"`
	// Kind is "input" (a kernel argument: bytes given), "output" (read back
	// after the run) or "" (the kernel's own, zero at start).
	Kind string `json:"kind,omitempty"`
	// Placement, when given: the byte offset in HBM, or the first partition
	// and the byte offset within it on chip; absent: the compiler places it.
	Offset    *int64 `json:"offset,omitempty"`
	Partition *int   `json:"partition,omitempty"`

	dt    dtype.DType
	esize int
	addr  uint64 // Neuron address of element 0
	elems int64
	free  int64 // on chip: elements per partition (product of shape[1:])
	chip  bool
	id    int // index in Program.Tensors
}

// AP is an access pattern on a tensor (NKI's tensor.ap(...) or a slice):
// element steps and counts outermost first, over the tensor's elements in C
// order (on chip the partition axis is the first: a step of a whole
// partition's elements moves one partition).
type AP struct {
	Tensor  string     `json:"tensor"`
	Pattern [][2]int64 `json:"pattern,omitempty"` // [[step, num], …]; absent: the whole tensor
	// Slices is the static-slice form: per axis [start, stop, step]
	// (Pattern and Slices are exclusive).
	Slices [][3]int64 `json:"slices,omitempty"`
	Offset int64      `json:"offset,omitempty"` // elements
	// ScalarOffset is a dynamic start offset in elements, as the DGE adds it
	// at run time (the traced value).
	ScalarOffset *int64 `json:"scalar_offset,omitempty"`
	// VectorOffset is the index tensor of an indirect access: the indices
	// replace the loop counter of pattern dimension IndirectDim.
	VectorOffset *AP    `json:"vector_offset,omitempty"`
	IndirectDim  int    `json:"indirect_dim,omitempty"`
	DType        string `json:"dtype,omitempty"` // a reinterpreting view's dtype (NKI .ap(dtype=)); "": the tensor's
}

// Call is one traced API call.
type Call struct {
	Op   string `json:"op"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Dst  *AP    `json:"dst,omitempty"`
	Src  *AP    `json:"src,omitempty"`
	Srcs []*AP  `json:"srcs,omitempty"`

	DGEMode       string    `json:"dge_mode,omitempty"` // unknown, none, swdge, hwdge
	OOBMode       string    `json:"oob_mode,omitempty"` // error, skip
	DstRMWOp      string    `json:"dst_rmw_op,omitempty"`
	ReduceOp      string    `json:"reduce_op,omitempty"`
	Scales        []float64 `json:"scales,omitempty"`
	UniqueIndices *bool     `json:"unique_indices,omitempty"`
	Axes          []int     `json:"axes,omitempty"`
	Negate        bool      `json:"negate,omitempty"` // tensor_reduce: negate the result

	// Compute calls.
	ALUOp    string   `json:"alu_op,omitempty"`  // tensor_tensor's op; tensor_scalar's op0
	ALUOp1   string   `json:"alu_op1,omitempty"` // tensor_scalar's op1
	Operand0 *float64 `json:"operand0,omitempty"`
	Operand1 *float64 `json:"operand1,omitempty"`
	// Per-partition operands: (P, 1) tiles in place of operand0/operand1
	// (tensor_scalar) and bias (activation); reverse0/reverse1 swap
	// tensor_scalar's operand order of op0/op1.
	Operand0Tile *AP                        `json:"operand0_tile,omitempty"`
	Operand1Tile *AP                        `json:"operand1_tile,omitempty"`
	BiasTile     *AP                        `json:"bias_tile,omitempty"`
	ScaleTile    *AP                        `json:"scale_tile,omitempty"`   // activation: a per-partition (P, 1) FP32 scale
	Initial      *float64                   `json:"initial,omitempty"`      // tensor_tensor_scan: the running value before the first element
	InitialTile  *AP                        `json:"initial_tile,omitempty"` // tensor_tensor_scan: a (P, 1) tile of initial values
	Reverse0     bool                       `json:"reverse0,omitempty"`
	Reverse1     bool                       `json:"reverse1,omitempty"`
	Func         string                     `json:"func,omitempty"` // activation's function name
	Scale        *float64                   `json:"scale,omitempty"`
	Bias         *float64                   `json:"bias,omitempty"`
	Value        *float64                   `json:"value,omitempty"` // memset's value
	Transpose    bool                       `json:"transpose_x,omitempty"`
	Stationary   *AP                        `json:"stationary,omitempty"`  // matmul: the stationary (lhsT) operand
	Moving       *AP                        `json:"moving,omitempty"`      // matmul: the moving (rhs) operand
	Accumulate   bool                       `json:"accumulate,omitempty"`  // matmul: add into the PSUM dst
	Identity     *AP                        `json:"identity,omitempty"`    // nc_transpose on the PE: the identity tile it streams (an identity call wrote it)
	Coefs        []int64                    `json:"coefs,omitempty"`       // iota: dst[i0, i1, …] = value + Σ coefs[d]·i_d
	RangeStart   *float64                   `json:"range_start,omitempty"` // range_select: added to the free index before the comparisons
	ReduceRes    *AP                        `json:"reduce_res,omitempty"`  // range_select, select_reduce: a (P, 1) tile of each row's max
	DstIdx       *AP                        `json:"dst_idx,omitempty"`     // nc_match_replace8: the (P, 8) tile of matched indices
	Extra        map[string]json.RawMessage `json:"extra,omitempty"`       // front-end details kept for the trace
	// Index is the call's number in the kernel as the front end counts
	// (it runs some calls itself); absent: its position in Calls.
	Index *int `json:"index,omitempty"`

	index int
}

// source is the call's one source operand: src, or srcs when it holds one.
func (c *Call) source() *AP {
	if c.Src == nil && len(c.Srcs) == 1 {
		return c.Srcs[0]
	}
	return c.Src
}

// sourceAPs are the call's source operands: src, then srcs.
func (c *Call) sourceAPs() []*AP {
	if c.Src == nil {
		return c.Srcs
	}
	return append([]*AP{c.Src}, c.Srcs...)
}

// Where names the call as errors and traces do: `call 3 (dma_copy, k.py:12)`.
func (c *Call) Where() string {
	var b strings.Builder
	fmt.Fprintf(&b, "call %d (%s", c.index, c.Op)
	switch {
	case c.File != "" && c.Line > 0:
		fmt.Fprintf(&b, ", %s:%d", c.File, c.Line)
	case c.Line > 0:
		fmt.Fprintf(&b, ", line %d", c.Line)
	}
	b.WriteString(")")
	return b.String()
}

// Errors, one sentinel per kind (errors.Is).
var (
	ErrProgram = errors.New("bad NKI program")         // the JSON form is malformed
	ErrIllegal = errors.New("not legal on the target") // NKI's rules refuse the call
	ErrOOB     = errors.New("out of bounds")           // an index or dynamic offset past its tensor
	ErrInput   = errors.New("bad input array")
)

// CallError is a call refused or failed, located by the call's index, op
// and source line.
type CallError struct {
	Call *Call
	Err  error
}

func (e *CallError) Error() string { return e.Call.Where() + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// OOBError is an index (or a dynamic start) out of bounds under
// oob_mode=error; its text is the legacy NKI wording.
type OOBError struct {
	Lane  int   // the index's position in the index tile (−1: a scalar offset)
	Index int64 // the offending value
	Bound int64 // the axis size
	Axis  int
}

func (e *OOBError) Error() string {
	return fmt.Sprintf("index %d is out of bounds for axis %d with size %d", e.Index, e.Axis, e.Bound)
}

// Unwrap makes errors.Is(err, ErrOOB) hold.
func (e *OOBError) Unwrap() error { return ErrOOB }

func progErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrProgram, fmt.Sprintf(format, a...))
}

// Parse reads a program (at most MaxProgram bytes; unknown fields are
// refused) and checks it: tensors, their placement, every call's operands.
func Parse(r io.Reader) (*Program, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxProgram+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxProgram {
		return nil, progErr("more than %d bytes", MaxProgram)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var p Program
	if nonFinite(b) { // numbers as "inf", "-inf", "nan": the calls read as NumCall (jsonnum.go)
		type plainProgram Program
		v := struct {
			*plainProgram
			Calls []json.RawMessage `json:"calls"`
		}{plainProgram: (*plainProgram)(&p)}
		if err = d.Decode(&v); err == nil {
			if err := p.numCalls(b, v.Calls); err != nil {
				return nil, err
			}
		}
	} else {
		err = d.Decode(&p)
	}
	if err != nil {
		return nil, progErr("%v", jsonWhere(b, err, d.InputOffset()))
	}
	if d.More() {
		return nil, progErr("data after the program object")
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// numCalls reads calls as NumCall, each from its own text: a type error
// inside one is located in the whole program b (a nested decoder counts
// from the call's first byte). A call's text is verbatim in b, the next
// after the one before it.
func (p *Program) numCalls(b []byte, raws []json.RawMessage) error {
	p.Calls = make([]*Call, len(raws))
	at := max(0, bytes.Index(b, []byte(`"calls"`))) // from the key on: no earlier text is taken for a call
	for k, raw := range raws {
		i := bytes.Index(b[at:], raw)
		if i < 0 { // the key spelled otherwise ("Calls") and "calls" found later: from the start
			at, i = 0, bytes.Index(b, raw)
		}
		off := at + i
		at = off + len(raw)
		if string(raw) == "null" {
			continue // check says "call k is null"
		}
		var c NumCall
		if err := c.UnmarshalJSON(raw); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Offset += int64(off)
				te.Struct, te.Field = "Call", strings.TrimPrefix(te.Field, "plainCall.")
			}
			return progErr("call %d: %v", k, jsonWhere(b, err, int64(off)))
		}
		p.Calls[k] = (*Call)(&c)
	}
	return nil
}

// jsonWhere adds the line and column of a JSON syntax or type error.
func jsonWhere(b []byte, err error, at int64) error {
	off := at // where the decoder stopped: an unknown field's end
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF): // the text stops inside a value: said where it stops
		off, err = int64(len(b)), fmt.Errorf("%w: the text ends inside a value (a truncated file?)", err)
	}
	if off < 0 || off > int64(len(b)) {
		return err
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Errorf("line %d col %d: %w", line, col, err)
}

// Targets: NKI's platform names and the generations they are.
var targets = map[string]isa.Gen{"trn1": isa.Sunda, "inf2": isa.Sunda, "trn2": isa.Cayman, "trn3": isa.Mariana}

// TargetGen is the generation of an NKI target name (trn1, trn2, trn3) or
// of a generation name.
func TargetGen(s string) (isa.Gen, error) {
	if s == "" {
		return isa.Cayman, nil
	}
	if g, ok := targets[strings.ToLower(s)]; ok {
		return g, nil
	}
	g, err := isa.ParseGen(s)
	if err != nil || g == isa.MarianaPlus || g == isa.Maverick {
		return isa.GenAny, fmt.Errorf("target %q: want trn1, trn2 or trn3", s)
	}
	return g, nil
}

// Gen is the program's generation.
func (p *Program) Gen() isa.Gen { return p.gen }

// Tensor is the tensor of that name, nil if none.
func (p *Program) Tensor(name string) *Tensor { return p.byName[name] }

// Onchip says whether the tensor lives in SBUF or PSUM.
func (t *Tensor) Onchip() bool { return t.chip }

// ElemType is the tensor's element type.
func (t *Tensor) ElemType() dtype.DType { return t.dt }

// Elems is the tensor's element count.
func (t *Tensor) Elems() int64 { return t.elems }

// Addr is the Neuron address of the tensor's element 0 (after Compile).
func (t *Tensor) Addr() uint64 { return t.addr }

func (p *Program) check() error {
	g, err := TargetGen(p.Target)
	if err != nil {
		return progErr("%v", err)
	}
	p.gen = g
	if len(p.Tensors) > MaxTensors {
		return progErr("%d tensors: at most %d", len(p.Tensors), MaxTensors)
	}
	if len(p.Calls) > MaxCalls {
		return progErr("%d calls: at most %d", len(p.Calls), MaxCalls)
	}
	p.byName = make(map[string]*Tensor, len(p.Tensors))
	m := isa.Map(g)
	for i, t := range p.Tensors {
		if t == nil {
			return progErr("tensor %d is null", i)
		}
		if err := t.check(m); err != nil {
			return progErr("tensor %d %q: %v", i, t.Name, err)
		}
		if p.byName[t.Name] != nil {
			return progErr("tensor %d: the name %q is taken", i, t.Name)
		}
		t.id = i
		p.byName[t.Name] = t
	}
	if err := p.place(m); err != nil {
		return err
	}
	for i, c := range p.Calls {
		if c == nil {
			return progErr("call %d is null", i)
		}
		c.index = i
		if c.Index != nil && *c.Index >= 0 {
			c.index = *c.Index
		}
		if err := p.checkCall(c); err != nil {
			var ce *CallError
			if errors.As(err, &ce) {
				return err
			}
			return &CallError{c, err}
		}
	}
	return nil
}

func (t *Tensor) check(m isa.AddressMap) error {
	if t.Name == "" {
		return errors.New("no name")
	}
	switch t.Buffer {
	case "hbm", "shared_hbm", "private_hbm":
	case "sbuf", "psum":
		t.chip = true
	default:
		return fmt.Errorf("buffer %q: want hbm, shared_hbm, private_hbm, sbuf or psum", t.Buffer)
	}
	dt, err := dtype.FromNEFF(t.DType)
	if err != nil || t.DType == "" {
		return fmt.Errorf("dtype %q: want an NKI dtype (float32, bfloat16, float16, int32, uint32, int8, …)", t.DType)
	}
	t.dt, t.esize = dt, dt.Size()
	if len(t.Shape) == 0 || len(t.Shape) > MaxDims {
		return fmt.Errorf("shape %v: want 1 to %d axes", t.Shape, MaxDims)
	}
	t.elems = 1
	for _, n := range t.Shape {
		if n <= 0 || n > 1<<31 {
			return fmt.Errorf("shape %v: every axis from 1 to 2^31", t.Shape)
		}
		t.elems *= int64(n)
		if t.elems > 1<<40 {
			return fmt.Errorf("shape %v: more than 2^40 elements", t.Shape)
		}
	}
	switch t.Kind {
	case "", "input", "output":
	default:
		return fmt.Errorf("kind %q: want input, output or none", t.Kind)
	}
	if t.chip {
		if t.Shape[0] > m.Partitions {
			return fmt.Errorf("shape %v: the partition axis (the first) is at most %d", t.Shape, m.Partitions)
		}
		t.free = t.elems / int64(t.Shape[0])
	} else if t.Partition != nil {
		return errors.New("partition is for sbuf/psum tensors")
	}
	return nil
}
