// Package ref executes an instruction word's meaning directly on emulated
// memory — the oracle the descriptor engine is held to. It follows
// field-tables §11.3–§11.6 exactly and never imports the lowering.
package ref

import (
	"errors"
	"fmt"

	"ndma/cci"
	"ndma/isa"
	"ndma/mem"
)

// Machine is one engine stream's view: the core's memory, its registers.
type Machine struct {
	Mem      *mem.Memory
	Regs     [64]uint32
	MaxBytes int64                      // refuse a word that would move more (0: DefaultMaxBytes)
	MaxSteps int                        // slots one COMPACT_CONTROL_INST may execute (0: cci.DefaultMaxSteps)
	Peer     func(core int) *mem.Memory // another core's memory (cross-core DMA_MEMCPY2); nil: none
	Trace    []string                   // per word: what was read, written, skipped (when Tracing)
	Tracing  bool
	Stats    Stats
}

// Stats counts lanes and words.
type Stats struct {
	Words, Lanes, Skipped int
	BytesMoved            uint64
}

// DefaultMaxBytes bounds one word's traffic, so a corrupt word cannot
// exhaust memory.
const DefaultMaxBytes = 1 << 30

// Fault is a word that could not run; it had no effect at all (§11.3).
type Fault struct {
	Mnemonic string
	Lane     int // -1: not a lane's fault
	Rule     string
	Err      error
}

func (f *Fault) Error() string {
	if f.Lane >= 0 {
		return fmt.Sprintf("%s lane %d: %s: %v", f.Mnemonic, f.Lane, f.Rule, f.Err)
	}
	return fmt.Sprintf("%s: %s: %v", f.Mnemonic, f.Rule, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// Errors a word can stop with.
var (
	ErrUnsupported = errors.New("not supported by the reference")
	ErrBounds      = errors.New("out of bounds")
	ErrBlocked     = errors.New("the wait does not hold (blocked)")
)

// New returns a machine over fresh memory of generation g.
func New(g isa.Gen) *Machine { return &Machine{Mem: mem.New(g)} }

func (x *Machine) maxBytes() int64 {
	if x.MaxBytes > 0 {
		return x.MaxBytes
	}
	return DefaultMaxBytes
}

func (x *Machine) tracef(format string, a ...any) {
	if x.Tracing {
		x.Trace = append(x.Trace, fmt.Sprintf(format, a...))
	}
}

// Exec runs one instruction. On error nothing changed: no byte, no semaphore.
func (x *Machine) Exec(in *isa.Inst) error {
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	var err error
	switch in.Opcode() {
	case isa.OpDMAMemcpy:
		err = w.direct2D()
	case isa.OpDMAIndirect:
		err = w.indirect1D()
	case isa.OpDMATranspose:
		err = w.xpose()
	case isa.OpDMAGatherTranspose:
		err = w.gatherXpose()
	case isa.OpDMAMemcpy2:
		err = w.copy2D()
	case isa.OpPseudoDMADirect2D, isa.OpPseudoExtension:
		err = w.fault(-1, "is_not_pseudo", fmt.Errorf("a pseudo word never runs unresolved: relocate it (--var, --table): %w", ErrUnsupported))
	case isa.OpCompactControlInst: // control, shared with the engines: the bytecode on this stream's registers
		if _, e := cci.Run(in, &x.Regs, x.Mem, x.MaxSteps); e != nil {
			err = w.fault(-1, "compact_control_inst", e)
		}
	case isa.OpTestEventSem:
		err = TestEventSem(x, in)
	case isa.OpDMAImmediate:
		err = w.fault(-1, "raw descriptors", fmt.Errorf("DMA_IMMEDIATE is its raw descriptors: it runs on the descriptor engines (--exec sim): %w", ErrUnsupported))
	default:
		err = w.fault(-1, "opcode", fmt.Errorf("%s is not a data-movement word: %w", w.name, ErrUnsupported))
	}
	if err == nil {
		x.Stats.Words++
	}
	return err
}

// word is the execution of one instruction.
type word struct {
	x    *Machine
	in   *isa.Inst
	name string
}

func (w *word) fault(lane int, rule string, err error) error {
	return &Fault{Mnemonic: w.name, Lane: lane, Rule: rule, Err: err}
}

func (w *word) u(path string) uint64 {
	v, err := w.in.Uint(path)
	if err != nil {
		panic(err)
	}
	return v
}

func (w *word) i(path string) int64 {
	v, err := w.in.Int(path)
	if err != nil {
		panic(err)
	}
	return v
}

// addr8 resolves an ADDR8: an immediate, or a register pair (§11.2).
func (w *word) addr8(path string) (uint64, error) {
	a, err := w.in.Addr8(path)
	if err != nil {
		return 0, err
	}
	if a.ShapeFromReg() {
		return 0, w.fault(-1, path, fmt.Errorf("shape from a $S register: %w", ErrUnsupported))
	}
	switch a.Form() {
	case "imm":
		v, _ := a.Imm()
		return v, nil
	case "reg":
		lo, hi := uint8(a.Raw), uint8(a.Raw>>8)
		if lo >= 64 || hi >= 64 {
			return 0, w.fault(-1, path, fmt.Errorf("register r%d/r%d: there are 64", lo, hi))
		}
		return uint64(w.x.Regs[lo]) | uint64(w.x.Regs[hi])<<32, nil
	}
	return 0, w.fault(-1, path, fmt.Errorf("address form %q: %w", a.Form(), ErrUnsupported))
}

// addr4 resolves an ADDR4: the PartitionOffset immediate or r[reg] (§4.2).
func (w *word) addr4(path string) (uint64, error) {
	i, _ := w.in.Layout().LeafIndex(path)
	form, _, fields := w.in.UnionArm(i)
	if form == "reg" {
		r := fields[0].Value
		if r >= 64 {
			return 0, w.fault(-1, path, fmt.Errorf("register r%d: there are 64", r))
		}
		return uint64(w.x.Regs[r]), nil
	}
	return fields[0].Value, nil
}

// bound is a BOUND_CHECK_REG: enabled, errors off, limit.
type bound struct {
	on, quiet bool
	limit     uint64
	reg       int
}

func (w *word) bound(path string) bound {
	b := bound{on: w.u(path+".bc_enabled") == 1, quiet: w.u(path+".bc_disable_oob_error_notif") == 1, reg: int(w.u(path + ".bc_reg"))}
	if b.on {
		b.limit = uint64(w.x.Regs[b.reg])
	}
	return b
}
