// Package compute executes the NeuronCore's compute words — PE's LDWEIGHTS
// and MATMUL, ACT's ACTIVATE, the DVE/ACT/POOL tensor words (TENSOR_TENSOR,
// TENSOR_SCALAR, TENSOR_REDUCE, COPY, CAST, MEMSET) — on a core's SBUF and
// PSUM (docs/compute.md). It runs a word's operation only: its EVENTS wait
// and update are the executor's (internal/control), so one implementation
// serves the reference and the engines alike.
//
// Numerics (docs/compute.md §14): copies and integer ops are exact; every
// other operation converts its operands to float32, computes in float32 and
// rounds to the output dtype by the DMA cast rules (round to nearest even,
// integers saturate); MATMUL accumulates in float32 PSUM.
package compute

import (
	"errors"
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// The compute opcodes (docs/compute.md §1).
const (
	OpLdWeights           isa.Opcode = 0x01
	OpMatmul              isa.Opcode = 0x02
	OpActivate            isa.Opcode = 0x21
	OpActivationTableLoad isa.Opcode = 0x23
	OpTensorTensor        isa.Opcode = 0x41
	OpTensorReduce        isa.Opcode = 0x42
	OpTensorScalar        isa.Opcode = 0x43
	OpTensorScalarPtr     isa.Opcode = 0x44
	OpCopy                isa.Opcode = 0x46
	OpCast                isa.Opcode = 0x47
	OpMemset              isa.Opcode = 0x49
	OpTensorTensorBitvec  isa.Opcode = 0x51
	OpTensorScalarBitvec  isa.Opcode = 0x53
	OpTensorScalarPtrBV   isa.Opcode = 0x54
	OpEventSemaphore      isa.Opcode = 0xa0
	OpNop                 isa.Opcode = 0xa4
	OpSetOrderingMode     isa.Opcode = 0xb1
	OpPseudoBranchLabel   isa.Opcode = 0xcc
)

// Errors, one sentinel per kind; faults wrap them (and isa.ErrBounds for
// an operand outside SBUF/PSUM, isa.ErrUnsupported for what is not modeled).
var (
	ErrDType    = errors.New("dtype not valid here")
	ErrEmpty    = errors.New("empty pattern")
	ErrMismatch = errors.New("element counts differ")
	ErrNoWeight = errors.New("no weights loaded")
	ErrOp       = errors.New("ALU op not valid here")
	ErrDivZero  = errors.New("integer division by zero")
)

// Fault is a compute word that could not run: the word, the field whose
// operand or value is at fault, and the address where there is one. The
// executor adds the engine, the stream and the word's offset.
type Fault struct {
	Mnemonic string
	Field    string
	Addr     uint64 // 0 with no address
	Err      error
}

func (f *Fault) Error() string {
	if f.Addr != 0 {
		return fmt.Sprintf("%s %s (address %#x): %v", f.Mnemonic, f.Field, f.Addr, f.Err)
	}
	return fmt.Sprintf("%s %s: %v", f.Mnemonic, f.Field, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// Executes reports whether Exec computes words of opcode op: the compute
// words above and the NOP-like control words, whose only effect is their
// EVENTS.
func Executes(op isa.Opcode) bool { _, ok := runners[op]; return ok }

// NoOp reports whether a word of opcode op has no effect beyond its EVENTS
// (NOP, SET_ORDERING_MODE, PSEUDO_BRANCH_LABEL, ACTIVATION_TABLE_LOAD,
// EVENT_SEMAPHORE): docs/compute.md §11.
func NoOp(op isa.Opcode) bool {
	switch op {
	case OpNop, OpSetOrderingMode, OpPseudoBranchLabel, OpActivationTableLoad, OpEventSemaphore:
		return true
	}
	return false
}

var runners map[isa.Opcode]func(e *Engine, m *mem.Memory, in *isa.Inst) error

func init() {
	runners = map[isa.Opcode]func(e *Engine, m *mem.Memory, in *isa.Inst) error{
		OpLdWeights: (*Engine).ldweights, OpMatmul: (*Engine).matmul,
		OpActivate: (*Engine).activate, OpActivationTableLoad: (*Engine).tableLoad,
		OpTensorTensor: (*Engine).tensorTensor, OpTensorTensorBitvec: (*Engine).tensorTensor,
		OpTensorScalar: (*Engine).tensorScalar, OpTensorScalarBitvec: (*Engine).tensorScalar,
		OpTensorScalarPtr: (*Engine).tensorScalar, OpTensorScalarPtrBV: (*Engine).tensorScalar,
		OpTensorReduce: (*Engine).tensorReduce, OpCopy: (*Engine).copyCast, OpCast: (*Engine).copyCast,
		OpMemset:         (*Engine).memset,
		OpEventSemaphore: nop, OpNop: nop, OpSetOrderingMode: nop, OpPseudoBranchLabel: nop,
	}
}

func nop(*Engine, *mem.Memory, *isa.Inst) error { return nil }

// Engine is one engine stream's compute state: the PE array's loaded
// weights, the ACT function set, scratch. One Engine per stream; not safe
// for concurrent use.
type Engine struct {
	Gen  isa.Gen
	Map  isa.AddressMap
	Regs *[64]uint32 // the stream's registers (REG_PTR operands); nil reads 0

	pe    peArray
	table uint8 // ACT's resident function set (ACTIVATION_TABLE_LOAD)

	dry     bool // Check: operands resolved and checked, nothing read or run
	sizing  bool // SizeOf: dry, and each resolved operand recorded in size
	size    Size
	name    string  // the word running, for faults
	dst     Pattern // the last word's destination (wrote)
	wrote   bool
	scratch []byte // read's copy of a span memory does not hold in one piece
	moveBuf []byte // move's elements in flight
	offs    [4][]int32
	f32     [4][]float32
	i64     [3][]int64
}

// New is the compute state of one stream of generation g.
func New(g isa.Gen) *Engine { return &Engine{Gen: g, Map: isa.Map(g)} }

// Exec runs word in's operation on m (not its EVENTS). A word that is not
// a compute word, or decodes by no compute layout on this generation (RAW),
// is refused with isa.ErrUnsupported; any other refusal is a *Fault, and a
// refused word has changed nothing but what it had written to its own
// destination when the fault is found mid-way (operands are checked
// before any byte is written).
func (e *Engine) Exec(m *mem.Memory, in *isa.Inst) error {
	run, ok := runners[in.Opcode()]
	e.name, e.wrote = in.Def().Mnemonic(), false
	if !ok {
		return e.fault("opcode", 0, fmt.Errorf("not a compute word: %w", isa.ErrUnsupported))
	}
	return run(e, m, in)
}

func (e *Engine) fault(field string, addr uint64, err error) error {
	return &Fault{Mnemonic: e.name, Field: field, Addr: addr, Err: err}
}

// raw is the refusal of a word that decoded by no compute layout here.
func (e *Engine) raw() error {
	return e.fault("layout", 0, fmt.Errorf("no %s layout is known on %s (decoded as RAW): %w", e.name, e.Gen, isa.ErrUnsupported))
}

// grow returns buf resized to n, reallocating only when it is too small.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// reg is register i of the stream (0 without registers).
func (e *Engine) reg(i uint64) uint32 {
	if e.Regs == nil {
		return 0
	}
	return e.Regs[i&63]
}

// Runs reports whether Exec computes word in: a compute or NOP-like opcode
// decoded by its layout on the word's generation (a word a later generation
// decodes as RAW is not computed: only its EVENTS run).
func Runs(in *isa.Inst) bool {
	if !Executes(in.Opcode()) {
		return false
	}
	_, raw := in.Raw()
	return !raw
}

// Written is the destination the last Exec wrote (false: none, or it was
// refused).
func (e *Engine) Written() (Pattern, bool) { return e.dst, e.wrote }

// Check reports what Exec would refuse in word in before touching memory:
// operands outside SBUF/PSUM, element counts that differ, dtypes and ALU
// ops a word does not take, functions not modeled — the static half of
// Exec's refusals (a MATMUL needs weights loaded, and data-dependent
// faults, are Exec's alone). nil for a word Exec does not run.
func Check(g isa.Gen, in *isa.Inst) error {
	if !Runs(in) {
		return nil
	}
	e := New(g)
	e.dry = true
	return e.Exec(nil, in)
}

// Size is what a compute word works on, for its time (internal/timing's
// compute model): the most partitions and elements per partition any of
// its operands enumerates, its first operand's element bytes, how many
// tensor operands it reads (src…_mem_pattern: a pointer scalar is not
// one) and its widest element; PSUM: an operand is in PSUM; Gapped: an
// operand's innermost elements are not contiguous (step ≠ 1); Strided:
// that step is over 16 bytes (the NKI architecture guide: SBUF/PSUM then
// supply half their bandwidth).
type Size struct {
	Parts    int
	Elems    int64
	InBytes  int
	Inputs   int
	MaxBytes int
	PSUM     bool
	Gapped   bool
	Strided  bool
	// Half: one of the NKI ISA reference's half-cost cases — a
	// TENSOR_REDUCE add or max whose input and output are BF16
	// (tensor_reduce: "N/2 ... both input and output data types are
	// bfloat16 and the reduction operator is add or maximum"), a MEMSET
	// of zero into a 16-bit dtype (memset: "max(MIN_II, N/2)").
	Half bool
}

// NewSizer is an engine that only sizes words (SizeOf), reused word after
// word: an engine a word was most of a large run's timing cost.
func NewSizer(g isa.Gen) *Engine {
	e := New(g)
	e.dry, e.sizing = true, true
	return e
}

// SizeOf resolves word in's operands as Check does (nothing read or run)
// and returns their sizes; false for a word Exec does not run or would
// refuse, and on an engine that is not a sizer (NewSizer).
func (e *Engine) SizeOf(in *isa.Inst) (Size, bool) {
	if !e.sizing || !Runs(in) {
		return Size{}, false
	}
	e.size = Size{}
	if err := e.Exec(nil, in); err != nil {
		return Size{}, false
	}
	return e.size, true
}
