// Package ref executes an instruction word's meaning directly on emulated
// memory — the oracle the descriptor engine is held to. It follows
// field-tables §11.3–§11.6 exactly and never imports the lowering.
package ref

import (
	"fmt"

	"ndma/internal/control"
	"ndma/isa"
	"ndma/mem"
)

// Machine is one engine stream's view: the core's memory, its registers.
type Machine struct {
	Mem            *mem.Memory
	Regs           [64]uint32
	MaxBytes       int64                      // refuse a word that would move more (0: DefaultMaxBytes)
	MaxSteps       int                        // slots one COMPACT_CONTROL_INST may execute (0: cci.DefaultMaxSteps)
	Peer           func(core int) *mem.Memory // another core's memory (cross-core DMA_MEMCPY2); nil: none
	control.Tracer                            // per word: what was read, written, skipped (when Tracing)
	Stats          Stats
	eff            control.Effect // the word being executed: its changes, until Issue returns them
}

// Stats counts lanes and words.
type Stats struct {
	Words, Lanes, Skipped int
	BytesMoved            uint64
}

// DefaultMaxBytes bounds one word's traffic, so a corrupt word cannot
// exhaust memory.
const DefaultMaxBytes = 1 << 30

// Fault is a word that could not run; it had no effect at all (§11.3). The
// control rules (package control) fault the same way.
type Fault = control.Fault

// Errors a word can stop with.
var (
	ErrUnsupported = isa.KindError(isa.ErrUnsupported, "not supported by the reference")
	ErrBounds      = isa.ErrBounds
	// ErrRawDescriptors is a DMA_IMMEDIATE: its meaning is its raw
	// descriptors, which only the descriptor engines (package sim) run.
	ErrRawDescriptors = isa.KindError(isa.ErrUnsupported, "DMA_IMMEDIATE is its raw descriptors: it runs on the descriptor engines (package sim)")
	ErrBlocked        = control.ErrBlocked // a wait that does not hold yet: the scheduler retries
)

// New returns a machine over fresh memory of generation g.
func New(g isa.Gen) *Machine { return &Machine{Mem: mem.New(g)} }

func (x *Machine) maxBytes() int64 {
	if x.MaxBytes > 0 {
		return x.MaxBytes
	}
	return DefaultMaxBytes
}

// Exec runs one instruction and applies its semaphore and event changes at
// once (a single stream). On error nothing changed: no byte, no semaphore.
func (x *Machine) Exec(in *isa.Inst) error { return control.Exec(x.Issue, in) }

// Issue runs one instruction's data movement and returns its effects: the
// semaphore and event changes are reported, not applied (the scheduler
// lands them); the reference has no clock, so they are due at issue. On
// error nothing changed.
func (x *Machine) Issue(in *isa.Inst) (control.Effect, error) {
	x.eff = control.Effect{}
	b0 := x.Stats.BytesMoved
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	if rule, err := control.OpcodeRule(in, x.Mem.Gen); err != nil { // refused alike by both executors
		return control.Effect{}, w.fault(-1, rule, err)
	}
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
	case isa.OpTensorLoad, isa.OpTensorStore: // the sequencer scalar movers (mem2d.go)
		err = w.mem2D()
	case isa.OpPseudoDMADirect2D, isa.OpPseudoExtension, isa.OpPseudoTensorLoad, isa.OpPseudoTensorStore:
		err = w.fault(-1, "is_not_pseudo", fmt.Errorf("%w: %w", control.ErrUnresolved, ErrUnsupported))
	case isa.OpCompactControlInst: // control, shared with the engines: the bytecode on this stream's registers
		ds, e := control.CCI(x.state(), in, x.MaxSteps)
		if e != nil {
			err = w.fault(-1, "compact_control_inst", e)
		}
		w.apply(ds)
	case isa.OpTestEventSem: // control, shared with the engines
		var ds []control.Change
		if ds, err = control.TestEventSem(x.state(), in); err == nil {
			w.apply(ds)
		}
	case isa.OpDMAImmediate:
		err = w.fault(-1, "raw descriptors", fmt.Errorf("%w: %w", ErrRawDescriptors, ErrUnsupported))
	default:
		err = w.fault(-1, "opcode", fmt.Errorf("%s is not a data-movement word: %w", w.name, ErrUnsupported))
	}
	if err != nil {
		return control.Effect{}, err
	}
	x.Stats.Words++
	x.eff.Bytes = x.Stats.BytesMoved - b0 // the bytes written, as the engines' S2M legs count them (a run's byte budget)
	return x.eff, nil
}

// state is the machine as the shared control rules see it.
func (x *Machine) state() control.State {
	return control.State{Mem: x.Mem, Regs: &x.Regs, Peer: x.Peer}
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

// addr8 resolves an ADDR8 (the field at path, which the faults name): an
// immediate, or a register pair (§11.2).
func (w *word) addr8(path string, a isa.Addr8) (uint64, error) {
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

// addrs resolves a word's src_start_addr and dst_start_addr.
func (w *word) addrs(src, dst isa.Addr8) (sa, da uint64, err error) {
	if sa, err = w.addr8("src_start_addr", src); err != nil {
		return 0, 0, err
	}
	da, err = w.addr8("dst_start_addr", dst)
	return sa, da, err
}

// addr4 resolves an ADDR4: the PartitionOffset immediate or r[reg] (§4.2).
func (w *word) addr4(path string) (uint64, error) {
	a, err := control.Addr4(&w.x.Regs, w.in, path)
	if err != nil {
		return 0, w.fault(-1, path, err)
	}
	return a, nil
}

// bound is a BOUND_CHECK_REG: enabled, errors off, limit r[bc_reg] (an
// index's bound), and r[bc_reg+1], the wide-offset high word of an address
// bound in HBM (isa.BoundLimit).
type bound struct {
	on, quiet bool
	limit     uint64
	high      uint32
	reg       int
}

func (w *word) bound(r isa.BoundCheckRegView) bound {
	b := bound{on: r.BCEnabled() == 1, quiet: r.BCDisableOOBErrorNotif() == 1, reg: int(r.BCReg())}
	if b.on {
		b.limit, b.high = uint64(w.x.Regs[b.reg]), isa.BoundHigh(&w.x.Regs, b.reg)
	}
	return b
}

// at is the address limit for a byte at a (isa.BoundLimit).
func (b bound) at(a uint64) uint64 { return isa.BoundLimit(uint32(b.limit), b.high, a) }
