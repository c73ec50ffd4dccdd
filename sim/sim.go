// Package sim runs DMA words the way the hardware path does: the word is
// lowered by the DGE (package dge), expanded into 16-byte SDMA descriptors
// on M2S/S2M rings (package sdma), and the engines execute the descriptors
// on emulated memory (package mem) — M2S descriptors drain memory into a
// byte stream, the DRE turns transpose tiles and the CCE casts or computes,
// S2M descriptors write the stream out, and the completion descriptor lands
// in the EVT_SEM INC window (field-tables §6, §8, §11.7).
//
// The result must equal package ref byte for byte; ref never imports this
// path, so a divergence is a bug in one of them.
package sim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"ndma/dge"
	"ndma/internal/control"
	"ndma/internal/timing"
	"ndma/isa"
	"ndma/mem"
	"ndma/sdma"
)

// Machine is one core's memory, registers and DMA engines.
type Machine struct {
	Mem      *mem.Memory
	Regs     [64]uint32
	RingSize int         // descriptors per ring; 0: sdma.DefaultRingSize
	Engines  int         // a runtime-placed block's DMA engines, its rows spread over them (dge.Options.Engines); 0: the DGE's fan-out
	MaxBytes int64       // refuse a word whose streams carry more (0: DefaultMaxBytes)
	MaxSteps int         // slots one COMPACT_CONTROL_INST may execute (0: cci.DefaultMaxSteps)
	Backend  dge.Backend // DGE backend (Auto by default)
	// Shares builds each lowered word's packets for the packet-level DMA
	// model: Effect.Transfer, the word's rows per DMA engine (wordTransfer).
	Shares         bool
	Stats          Stats
	control.Tracer                            // per word: the descriptors executed (when Tracing)
	Peer           func(core int) *mem.Memory // another core's memory (cross-core DMA_MEMCPY2); nil: none
	eff            control.Effect             // the word being executed: its changes and footprint
	arena          []byte                     // scratch streams kept from word to word (arenaFor, scratch)
	rows           [2][]uint64                // direct's batch of row addresses, kept from word to word
	slab           []sdma.Desc                // the descriptor memory Expand reuses word after word (the lists live for one word)
	prog           dge.Program                // the program each word is lowered into (its storage reused: it lives for one word)
	cmoves         []cmove                    // the moves of a word's queues held as runs (prepareCompact)
	regs           map[uint8]uint32           // the registers as the lowering takes them (refilled each word)
	regsIn         [64]uint32                 // what regs holds (a word sets only the registers that changed)
	queues         []*queue                   // newQueue's queues, reused word after word (runQueues' results live until the next word)
	nqueue         int                        // how many of them this word has taken
	workBuf        []Work                     // works' slice, reused word after word
	idx            [2][]uint32                // the word's index tensors as indexFunc read them (kept from word to word)
	idxCol         []byte                     // readIndices' column buffer
	tiled, turned  int                        // tests: queues writeTiles wrote, queues turnPlanned turned
	pieced         int                        // tests: queues turnInto wrote through a scratch (a destination in pieces)
	viewed         int                        // tests: queues whose tile rows were read from memory (viewRows)
	peeked         int                        // tests: queues whose M2S stream was taken in place (peekM2S)
	compacted      int                        // tests: queues moved as descriptor runs (prepareCompact)
	gathered       int                        // tests: of them, rows gathered from a View in pieces
	dropSpans      bool                       // in Exec: the word's effect is applied and dropped, its write spans (for the scheduler's race checks) never read
	exact          bool                       // tests: every word through the per-descriptor path (prepare), none through prepareFast or writeTiles
	regWord        isa.Inst                   // the word with its register addresses resolved (regAddrs), kept from word to word
}

// DefaultMaxBytes bounds one word's traffic, so a corrupt word cannot
// exhaust memory (the reference's bound too).
const DefaultMaxBytes = 1 << 30

// Stats counts what the engines did.
type Stats struct {
	Words, Descriptors int
	M2SBytes, S2MBytes uint64
	QueueBytes         map[int]uint64 // per DMA engine: bytes its S2M wrote
	TimeNS             int64          // simulated DMA time (cost.go)
}

// New returns a machine over fresh memory of generation g.
func New(g isa.Gen) *Machine { return &Machine{Mem: mem.New(g)} }

// Errors.
var (
	ErrUnsupported = isa.KindError(isa.ErrUnsupported, "not supported by the descriptor engines")
	ErrPhase       = errors.New("descriptor ring phase mismatch")
	ErrStream      = errors.New("M2S and S2M streams do not balance")
	ErrLowering    = errors.New("the DGE cannot lower the word") // ref may still run it
)

// Fault is a word the engines refused; it had no effect at all. DMA and
// Queue name the engine's queue (DMA −1: the word, before any queue), Leg
// and Desc the descriptor when one is at fault (Desc −1: none). It is the
// reference's fault type too (control.Fault): errors.As finds either.
type Fault = control.Fault

// Exec runs one word and applies its semaphore and event changes at once
// (a single stream). On error nothing changed.
func (x *Machine) Exec(in *isa.Inst) error {
	x.dropSpans = true // the effect is applied and dropped here: no one reads its write spans
	defer func() { x.dropSpans = false }()
	return control.Exec(x.Issue, in)
}

// Issue lowers one resolved word, runs its descriptors and returns its
// effects: the bytes are written, the semaphore and event changes (the
// completion descriptors' writes into the EVT_SEM window, the EVENTS
// update) are reported with the DMA's simulated cost, for the scheduler to
// land at completion. On error nothing changed.
func (x *Machine) Issue(in *isa.Inst) (control.Effect, error) {
	x.eff = control.Effect{}
	t0, d0, b0 := x.Stats.TimeNS, x.Stats.Descriptors, x.Stats.S2MBytes
	if err := x.issue(in); err != nil {
		return control.Effect{}, err
	}
	x.Stats.Words++
	e := x.eff
	e.CostNS, e.Descriptors = x.Stats.TimeNS-t0, x.Stats.Descriptors-d0
	e.Bytes += x.Stats.S2MBytes - b0 // a scalar mover's own count (mem2D) plus the S2M legs'
	return e, nil
}

// LastTransfer is the packets' view of the last word Exec or Issue ran
// (wordTransfer, with Shares set; nil: not built, or not a lowered word).
func (x *Machine) LastTransfer() *timing.Transfer { return x.eff.Transfer }

// state is the machine as the shared control rules see it.
func (x *Machine) state() control.State {
	return control.State{Mem: x.Mem, Regs: &x.Regs, Peer: x.Peer}
}

func (x *Machine) issue(in *isa.Inst) error {
	name := in.Def().Mnemonic()
	fault := func(err error) error { return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: err} }
	if rule, err := control.OpcodeRule(in, x.Mem.Gen); err != nil { // refused alike by both executors
		return &Fault{Mnemonic: name, Lane: -1, Rule: rule, DMA: -1, Desc: -1, Err: err}
	}
	switch in.Opcode() {
	case isa.OpDMAMemcpy, isa.OpDMAIndirect, isa.OpDMATranspose, isa.OpDMAGatherTranspose:
	case isa.OpTensorLoad, isa.OpTensorStore: // the sequencer scalar movers, no DMA (mem2d.go)
		return x.mem2D(in)
	case isa.OpPseudoDMADirect2D, isa.OpPseudoExtension, isa.OpPseudoTensorLoad, isa.OpPseudoTensorStore:
		return fault(fmt.Errorf("%w: %w", control.ErrUnresolved, ErrUnsupported))
	case isa.OpCompactControlInst: // control: the same bytecode as ref runs
		ds, err := control.CCI(x.state(), in, x.MaxSteps)
		if err != nil {
			return fault(err)
		}
		x.eff.Changes = append(x.eff.Changes, ds...)
		return nil
	case isa.OpTestEventSem: // control: the same as ref runs
		ds, err := control.TestEventSem(x.state(), in)
		if err != nil {
			return err
		}
		x.eff.Changes = append(x.eff.Changes, ds...)
		return nil
	case isa.OpDMAImmediate:
		return x.immediate(in)
	case isa.OpDMAMemcpy2:
		return x.copy2D(in)
	default:
		return fault(fmt.Errorf("%s is not a data-movement word: %w", name, ErrUnsupported))
	}
	// EVENTS are the word's control: shared with ref (wait now, update with the completion).
	events, err := control.Events(x.state(), in)
	if err != nil {
		return err
	}
	rule, rerr := "", error(nil) // the types, tiles, shapes and modes ref refuses, refused alike before the lowering
	if v, ok := in.Xpose(); ok {
		rule, rerr = control.XposeRules(v, x.Mem.Gen)
	} else if v, ok := in.GatherXpose(); ok {
		rule, rerr = control.GatherXposeRules(v, x.Mem.Gen)
	} else if v, ok := in.Indirect1D(); ok {
		rule, rerr = control.IndirectRules(v)
	}
	if rerr == nil { // the counts and steps ref refuses, refused alike before the lowering (which refused them its own way)
		rule, rerr = control.ShapeRules(in, x.Mem.Gen)
	}
	if rerr != nil {
		return &Fault{Mnemonic: name, Lane: -1, Rule: rule, DMA: -1, Desc: -1, Err: rerr}
	}
	if x.regs == nil { // one map for every word: the lowering reads it, none keeps it
		x.regs = make(map[uint8]uint32, len(x.Regs))
		for i, v := range x.Regs {
			x.regs[uint8(i)] = v
		}
		x.regsIn = x.Regs
	}
	regs := x.regs
	for i, v := range x.Regs { // every key holds this word's value: nothing of the word before stays
		if v != x.regsIn[i] { // the map holds regsIn (no one writes it): set what changed
			regs[uint8(i)] = v
			x.regsIn[i] = v
		}
	}
	lowered, err := x.regAddrs(in)
	if err != nil {
		return err
	}
	idx, err := x.indexFunc(in)
	if err != nil {
		return fault(err)
	}
	p, lw, err := sdma.LowerInto(&x.prog, lowered, x.Mem.Gen, dge.Options{Backend: x.Backend, Regs: regs, NoRowOps: true, Engines: x.Engines},
		sdma.Options{RingSize: x.RingSize, Regs: regs, Index: idx, Slab: &x.slab, Compact: !x.Tracing && !x.exact})
	var lane *sdma.LaneError
	switch {
	case p == nil:
		return fault(fmt.Errorf("%w: %w", ErrLowering, err))
	case errors.As(err, &lane): // a lane's rule: named as ref names it
		return &Fault{Mnemonic: name, Lane: lane.Lane, Rule: lane.Rule, DMA: -1, Desc: -1, Err: lane.Err}
	case err != nil:
		return fault(err)
	}
	if err := x.run(name, p, lw); err != nil {
		return err
	}
	if x.Shares {
		x.eff.Transfer = wordTransfer(p)
	}
	x.eff.Changes = append(x.eff.Changes, events...)
	return nil
}

// regAddrs is the word the DGE lowers: in itself, or — where a start
// address is a register pair, reg(lo, hi) = r[lo] | r[hi] << 32 (field-tables
// §11.2) — a copy with that address as the immediate the registers hold
// when the word issues, as ref reads it. The lowering resolves only
// immediates (a register is known at run time); the engines run at run
// time. A register past r63 faults as ref's does; a shape from a $S
// register stays for the lowering to refuse.
func (x *Machine) regAddrs(in *isa.Inst) (*isa.Inst, error) {
	out := in
	for _, path := range [2]string{"src_start_addr", "dst_start_addr"} {
		a, err := in.Addr8(path)
		if err != nil || a.Pseudo || a.ShapeFromReg() || a.Form() != "reg" {
			continue
		}
		lo, hi := uint8(a.Raw), uint8(a.Raw>>8)
		if lo >= 64 || hi >= 64 {
			return nil, &Fault{Mnemonic: in.Def().Mnemonic(), Lane: -1, Rule: path, DMA: -1, Desc: -1, Err: fmt.Errorf("register r%d/r%d: there are 64", lo, hi)}
		}
		v := uint64(x.Regs[lo]) | uint64(x.Regs[hi])<<32
		if v >= 1<<58 { // no Neuron address (the map ends at HBMEnd): ref's access faults there too
			return nil, &Fault{Mnemonic: in.Def().Mnemonic(), Lane: -1, Rule: path, DMA: -1, Desc: -1, Err: fmt.Errorf("r%d:r%d = %#x is no Neuron address", hi, lo, v)}
		}
		if out == in {
			x.regWord = *in
			out = &x.regWord
		}
		if err := out.SetUint(path, isa.ImmAddr8(v)); err != nil {
			return nil, &Fault{Mnemonic: in.Def().Mnemonic(), Lane: -1, Rule: path, DMA: -1, Desc: -1, Err: err}
		}
	}
	return out, nil
}

// indexFunc reads a word's index tensors from SBUF (field-tables §11.5):
// index j of C channels is the u32 at partition base+j mod C, offset
// base+4·(j div C).
//
// The lowering asks for the indices one by one, in order; the first ask of
// a tensor reads all n of it the word names (n: the lanes of INDIRECT1D, the
// rows of GATHER_XPOSE) as ref does, one access per partition's column
// rather than a Mem.Read per index (issue 17: 25 ns each, 4,096 a gather).
// Where a column fails its check, that tensor is read index by index, so
// the error names the index the per-index read names.
func (x *Machine) indexFunc(in *isa.Inst) (sdma.IndexFunc, error) {
	var paths [2]string
	var c uint64
	var n int // the indices of each tensor the word reads
	if v, ok := in.Indirect1D(); ok {
		paths, c = [2]string{"src_idx_start_addr", "dst_idx_start_addr"}, v.IdxNumActiveChannels()
		n = int(v.DstNumElem())
		if v.Flags().IndirectMode() == isa.IndirectModeDst { // a scatter's lanes are its src elements (§11.5)
			n = int(v.SrcNumElem())
		}
	} else if v, ok := in.GatherXpose(); ok {
		paths, c = [2]string{"src_idx_start_addr", ""}, v.IdxNumActiveChannels()
		n = int(v.SrcNumElem(1))
	} else {
		return nil, nil
	}
	var base [2]uint64
	for k, path := range paths {
		if path == "" {
			continue
		}
		var err error
		if base[k], err = control.Addr4(&x.Regs, in, path); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	stride := x.Mem.Map.SBUFStride
	var whole [2][]uint32 // per tensor, once read whole (x.idx)
	var tried [2]bool     // whether it was tried: then whole or index by index
	b := make([]byte, 4)  // one buffer for every index: a 4-byte Read keeps none (an array per call would be a heap object each)
	return func(which, j int) (uint32, error) {
		if uint(which) < 2 && uint(j) < uint(len(whole[which])) { // the common ask
			return whole[which][j], nil
		}
		if c == 0 {
			return 0, fmt.Errorf("idx_num_active_channels 0: no index tensor")
		}
		if uint(which) < 2 && !tried[which] {
			tried[which] = true
			if x.readIndices(which, base[which], int(c), n) {
				whole[which] = x.idx[which]
				if uint(j) < uint(n) {
					return whole[which][j], nil
				}
			}
		}
		a := control.IndexAddr(stride, base[which], int(c), j)
		if err := x.Mem.Read(a, b); err != nil {
			return 0, fmt.Errorf("index %d: %w", j, err)
		}
		if !x.dropSpans {
			x.addRead(a, a+4)
		}
		return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, nil
	}, nil
}

// readIndices reads the n indices of tensor which at base (c channels) into
// x.idx[which], one Mem.Read per partition's column (§11.5: index j at
// partition j mod c, 4 bytes on per j div c); false, having read nothing,
// when a column fails its check (the caller reads index by index).
func (x *Machine) readIndices(which int, base uint64, c, n int) bool {
	if n <= 0 || c <= 0 {
		return false
	}
	stride := x.Mem.Map.SBUFStride
	per := (n + c - 1) / c
	for p := 0; p < c && p < n; p++ {
		cnt := (n - p + c - 1) / c // indices p, p+c, … below n
		if !x.Mem.Fits(control.IndexAddr(stride, base, c, p), 4*cnt) {
			return false
		}
	}
	if cap(x.idx[which]) < n {
		x.idx[which] = make([]uint32, n)
	}
	if cap(x.idxCol) < 4*per {
		x.idxCol = make([]byte, 4*per)
	}
	out, col := x.idx[which][:n], x.idxCol
	for p := 0; p < c && p < n; p++ {
		cnt := (n - p + c - 1) / c
		a := control.IndexAddr(stride, base, c, p)
		if x.Mem.Read(a, col[:4*cnt]) != nil {
			return false // cannot happen: checked
		}
		if !x.dropSpans {
			x.addRead(a, a+4*uint64(cnt))
		}
		for i := range cnt {
			out[p+i*c] = binary.LittleEndian.Uint32(col[4*i:])
		}
	}
	x.idx[which] = out
	return true
}
