// Package nki runs NKI kernels' DMA calls as the words a NeuronCore
// issues (docs/nki.md): a kernel's calls in a JSON program form — what
// the Python front end python/ndma/nki traces — are compiled (DMAMEMCPY,
// DMA_INDIRECT through the software DGE, DMA_TRANSPOSE, DMA_GATHER_TRANSPOSE,
// the hwdge PSEUDO_DMA_DIRECT2D; compute calls as internal/compute's words
// where ndma forms them) and run on one core of package device's memory,
// with a trace per call: source line, words, DGE mode and queue, bytes,
// rows skipped and predicted time. The compiler is internal/nkic; this
// package is its public surface.
package nki

import (
	"io"

	"ndma/internal/nkic"
)

// Program is a kernel's calls (docs/nki.md "Program form").
type Program = nkic.Program

// Tensor, AP and Call are the program form's parts.
type (
	Tensor = nkic.Tensor
	AP     = nkic.AP
	Call   = nkic.Call
)

// Array is a tensor's C-order bytes with its dtype and shape.
type Array = nkic.Array

// Options steer a run (Ref: the reference executor; Detail: DGE programs
// and descriptors in the trace).
type Options = nkic.Options

// Trace, CallTrace and WordTrace are what a run did, call by call.
type (
	Trace     = nkic.Trace
	CallTrace = nkic.CallTrace
	WordTrace = nkic.WordTrace
)

// Lowered is one call compiled: its words as issued and as executed.
type Lowered = nkic.Lowered

// CallError locates a refused or failed call; OOBError is an index out of
// bounds under oob_mode=error, in NKI's legacy wording.
type (
	CallError = nkic.CallError
	OOBError  = nkic.OOBError
)

// Sentinels (errors.Is).
var (
	ErrProgram = nkic.ErrProgram
	ErrIllegal = nkic.ErrIllegal
	ErrOOB     = nkic.ErrOOB
	ErrInput   = nkic.ErrInput
)

// Parse reads and checks a program (at most nkic.MaxProgram bytes).
func Parse(r io.Reader) (*Program, error) { return nkic.Parse(r) }

// Compile compiles every call of p without running it.
func Compile(p *Program) ([]*Lowered, error) { return p.Compile() }

// Run compiles p and runs it with inputs (by tensor name); it returns the
// output tensors and the trace.
func Run(p *Program, inputs map[string]*Array, opt Options) (map[string]*Array, *Trace, error) {
	return nkic.Run(p, inputs, opt)
}
