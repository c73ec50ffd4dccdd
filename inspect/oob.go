package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"ndma/device"
	"ndma/internal/control"
	"ndma/isa"
	"ndma/neff"
)

// GatherTile is the rows of one DMA_GATHER_TRANSPOSE tile: the xbar cuts
// the indices into tiles of 16 rows (field-tables §9.4: "src_num_elem[1] %
// 16 == 0"); a tile is the group whose indices must be all valid or all
// invalid (INFERRED, RATIONALE.md "OOB pre-flight"). An INDIRECT1D word is
// one group.
const GatherTile = 16

// MaxLanes is how many out-of-bounds lanes a word lists (all are counted).
const MaxLanes = 16

// BadLane is one lane whose index goes out of bounds.
type BadLane struct {
	Lane   int    `json:"lane"`
	Leg    string `json:"leg"` // "src" or "dst": the indexed side
	Index  uint32 `json:"index"`
	Reason string `json:"reason"`
	// Bound says which bound catches it: "num_elem" (the leg's element
	// count), "bound_reg" (the index bound register), "variable" (only the
	// variable the leg lies in: no bound of the word catches it).
	Bound string `json:"bound"`
}

// Group is a run of lanes that go together: a gather-transpose tile, or a
// whole INDIRECT1D word.
type Group struct {
	First   int `json:"first_lane"`
	Last    int `json:"last_lane"`
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
}

// IndirectWord is one indirect word's pre-flight: its lanes against its
// bounds, with the indices the run had put in place when it issued.
type IndirectWord struct {
	Subgraph string `json:"subgraph"`
	Engine   string `json:"engine"`
	Offset   int    `json:"offset"`
	Mnemonic string `json:"mnemonic"`
	Lanes    int    `json:"lanes"`
	Invalid  int    `json:"invalid"`
	// Mode is what the word's own flag asks for out-of-bounds lanes:
	// "error" (INDIRECT1D idx_bound_is_err = 1; a gather-transpose's bound
	// register with bc_disable_oob_error_notif = 0) or "skip".
	Mode     string    `json:"mode"`
	OnError  string    `json:"on_error"`
	OnSkip   string    `json:"on_skip"`
	BadLanes []BadLane `json:"bad_lanes"`
	// Mixed are the groups holding valid and invalid indices together: on
	// the device such a group aborts the DMA even in skip mode (an
	// indirect transpose with oob_mode=skip and mixed indices:
	// NRT_EXEC_HW_ERR_DMA_ABORT).
	Mixed []Group `json:"mixed_groups"`
}

// OOBReport is the pre-flight of every indirect word of a NEFF.
type OOBReport struct {
	Words []IndirectWord `json:"words"`
	// Stopped is why the run stopped before its end ("": it ran through).
	Stopped string   `json:"stopped"`
	Inputs  []string `json:"inputs"`
}

// Bad is whether any word has an out-of-bounds lane, or the run stopped.
func (r *OOBReport) Bad() bool {
	if r.Stopped != "" {
		return true
	}
	for _, w := range r.Words {
		if w.Invalid > 0 {
			return true
		}
	}
	return false
}

// Preflight loads the NEFF with the given inputs (device.Load: inputs not
// given are the deterministic random data of `neff run`) and runs it under
// the reference semantics; each indirect word (DMA_INDIRECT,
// DMA_GATHER_TRANSPOSE), when it issues, has every lane's index read from
// where the run put it and held against the word's bounds — its legs'
// element counts, its index bound registers — and the variable its indexed
// leg lies in. A word with bad lanes then runs in skip mode so the run goes
// on to the words after it.
func Preflight(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, in map[string]device.Input) (*OOBReport, error) {
	im, err := device.Load(gen, f, sgs, in)
	if err != nil {
		return nil, err
	}
	r := &OOBReport{Words: []IndirectWord{}, Inputs: []string{}}
	for name := range in {
		r.Inputs = append(r.Inputs, name)
	}
	sort.Strings(r.Inputs)
	x := &preflight{gen: gen, report: r}
	for si := range im.Subgraphs {
		x.regions = append(x.regions, varRegions(&im.Subgraphs[si], im.Place[si]))
	}
	if _, err := im.Run(device.Options{Exec: device.Ref, Observer: x}); err != nil {
		r.Stopped = err.Error()
	}
	return r, nil
}

// region is a placed variable: its name and bytes.
type region struct {
	name     string
	lo, size uint64
}

func varRegions(sg *neff.Subgraph, place map[int]uint64) []region {
	var out []region
	for _, v := range sg.Variables() {
		if a, ok := place[v.ID]; ok && v.Size > 0 && v.Type != "state-buffer" {
			out = append(out, region{v.Name, a, uint64(v.Size)})
		}
	}
	return out
}

// preflight observes a pre-flight run on the reference: each indirect word
// is evaluated as it is offered, its unbound lanes patched and its bad
// lanes skipped while it runs, and recorded once it issued.
type preflight struct {
	gen     isa.Gen
	regions [][]region // per core
	report  *OOBReport
	// the indirect word being issued: its evaluation and patched lanes
	w       *IndirectWord
	patches []patch
}

func (x *preflight) Before(at *device.At, in *isa.Inst) *isa.Inst {
	x.w, x.patches = nil, nil
	if in.Opcode() != isa.OpDMAIndirect && in.Opcode() != isa.OpDMAGatherTranspose {
		return nil
	}
	w, patches, err := x.evaluate(at, in)
	if err != nil {
		return nil // the reference names the fault
	}
	// lanes no bound of the word catches would run off their variable: they
	// run as index 0 for now, the index tensor restored after
	for _, p := range patches {
		_ = at.Mem.Write(p.addr, make([]byte, 4)) // read just before: writable
	}
	x.w, x.patches = w, patches
	if w.Invalid == 0 {
		return nil
	}
	c := *in // skip the bad lanes so the run reaches the words after
	if c.Opcode() == isa.OpDMAIndirect {
		err = c.Set("flags.idx_bound_is_err", 0)
	} else {
		err = c.Set("src_idx_bound_reg.bc_disable_oob_error_notif", 1)
	}
	if err != nil {
		return nil
	}
	return &c
}

func (x *preflight) After(at *device.At, in *isa.Inst, err error) {
	for _, p := range x.patches {
		_ = at.Mem.Write(p.addr, p.old[:])
	}
	if x.w != nil && !errors.Is(err, device.ErrBlocked) { // a refused word is evaluated again when it issues
		x.report.Words = append(x.report.Words, *x.w)
	}
	x.w, x.patches = nil, nil
}

// patch is an index the pre-flight run replaces while its word runs.
type patch struct {
	addr uint64
	old  [4]byte
}

// evaluate reads the word's indices as they are now and holds each lane
// against its bounds; the patches are the lanes only their variable bounds.
func (x *preflight) evaluate(at *device.At, in *isa.Inst) (*IndirectWord, []patch, error) {
	var patches []patch
	w := &IndirectWord{Subgraph: at.Stream.Subgraph, Engine: at.Stream.Key, Offset: at.Step.Offset, Mnemonic: in.Def().Mnemonic(), BadLanes: []BadLane{}, Mixed: []Group{}}
	regions := x.regions[at.Stream.Core]
	stride := isa.Map(x.gen).SBUFStride
	var addrs []uint64 // the last index tensor read: each index's address
	read := func(path string, c, n int) ([]uint32, error) {
		if c <= 0 {
			return nil, fmt.Errorf("idx_num_active_channels 0")
		}
		base, err := control.Addr4(at.Regs, in, path)
		if err != nil {
			return nil, err
		}
		out := make([]uint32, n)
		addrs = make([]uint64, n)
		var b [4]byte
		for j := range out {
			addrs[j] = control.IndexAddr(stride, base, c, j)
			if err := at.Mem.Read(addrs[j], b[:]); err != nil {
				return nil, err
			}
			out[j] = binary.LittleEndian.Uint32(b[:])
		}
		return out, nil
	}
	unbound := func(j int) { // a lane only its variable bounds: patched while the word runs
		p := patch{addr: addrs[j]}
		_ = at.Mem.Read(addrs[j], p.old[:])
		patches = append(patches, p)
	}
	limit := func(r isa.BoundCheckRegView) (bool, uint64, int) {
		if r.BCEnabled() != 1 {
			return false, 0, 0
		}
		return true, uint64(at.Regs[r.BCReg()]), int(r.BCReg())
	}
	bad := make([]bool, 0)
	mark := func(j int, leg string, v uint32, reason, bound string) {
		if bad[j] {
			return
		}
		bad[j] = true
		w.Invalid++
		if len(w.BadLanes) < MaxLanes {
			w.BadLanes = append(w.BadLanes, BadLane{Lane: j, Leg: leg, Index: v, Reason: reason, Bound: bound})
		}
	}
	// inVar checks a row of n bytes at a against the variable the leg's
	// base lies in (SBUF legs: none)
	inVar := func(base uint64, a int64, n int64) (string, bool) {
		for _, r := range regions {
			if base >= r.lo && base < r.lo+r.size {
				if a < int64(r.lo) || a+n > int64(r.lo+r.size) {
					return fmt.Sprintf("row at %#x..%#x is outside %s (%d bytes at %#x)", a, a+n, r.name, r.size, r.lo), false
				}
				return "", true
			}
		}
		return "", true
	}
	group := 0
	switch in.Opcode() {
	case isa.OpDMAIndirect:
		v, _ := in.Indirect1D()
		mode := v.Flags().IndirectMode()
		sn, dn := int(v.SrcNumElem()), int(v.DstNumElem())
		lanes := dn
		if mode == isa.IndirectModeDst {
			lanes = sn
		}
		w.Lanes, group = lanes, max(lanes, 1)
		bad = make([]bool, lanes)
		w.Mode = "skip"
		if v.Flags().IdxBoundIsErr() == 1 {
			w.Mode = "error"
		}
		c := int(v.IdxNumActiveChannels())
		sa, da := v.SrcStartAddr(), v.DstStartAddr()
		type leg struct {
			name, path string
			n          int
			step, size int64
			base       isa.Addr8
			bound      isa.BoundCheckRegView
		}
		var legs []leg
		if mode != isa.IndirectModeDst {
			legs = append(legs, leg{"src", "src_idx_start_addr", sn, v.SrcStepElem(), isa.ElemBytes(v.SrcElemSize()), sa, v.SrcIdxBoundReg()})
		}
		if mode != isa.IndirectModeSrc {
			legs = append(legs, leg{"dst", "dst_idx_start_addr", dn, v.DstStepElem(), isa.ElemBytes(v.DstElemSize()), da, v.DstIdxBoundReg()})
		}
		for _, l := range legs {
			idx, err := read(l.path, c, lanes)
			if err != nil {
				return nil, nil, err
			}
			on, lim, reg := limit(l.bound)
			base, imm := l.base.Imm()
			for j, i := range idx {
				switch {
				case int64(i) >= int64(l.n):
					mark(j, l.name, i, fmt.Sprintf("index %d >= %d elements (%s_num_elem)", i, l.n, l.name), "num_elem")
				case on && uint64(i) > lim:
					mark(j, l.name, i, fmt.Sprintf("index %d > limit r%d = %d", i, reg, lim), "bound_reg")
				case imm && l.base.Form() == "imm":
					if why, ok := inVar(base, int64(base)+int64(i)*l.step, l.size); !ok {
						mark(j, l.name, i, why, "variable")
						unbound(j)
					}
				}
			}
		}
	case isa.OpDMAGatherTranspose:
		v, _ := in.GatherXpose()
		n := int(v.SrcNumElem(1))
		w.Lanes, group = n, GatherTile
		bad = make([]bool, n)
		on, lim, reg := limit(v.SrcIdxBoundReg())
		w.Mode = "error"
		if on && v.SrcIdxBoundReg().BCDisableOOBErrorNotif() == 1 {
			w.Mode = "skip"
		}
		idx, err := read("src_idx_start_addr", int(v.IdxNumActiveChannels()), n)
		if err != nil {
			return nil, nil, err
		}
		sa := v.SrcStartAddr()
		base, imm := sa.Imm()
		rows := int64(v.ElemSize()) / 2 * v.SrcStepElem(0) // L two-byte elements at step s0: the row's extent
		for j, i := range idx {
			switch {
			case i >= 1<<31:
				mark(j, "src", i, fmt.Sprintf("index %d is 2^31 or more: a row index is a signed 32-bit value", i), "num_elem")
			case on && uint64(i) > lim:
				mark(j, "src", i, fmt.Sprintf("index %d > limit r%d = %d", i, reg, lim), "bound_reg")
			case imm && sa.Form() == "imm":
				if why, ok := inVar(base, int64(base)+int64(i)*v.SrcStepElem(1), max(rows, 2)); !ok {
					mark(j, "src", i, why, "variable")
					unbound(j)
				}
			}
		}
	}
	for g := 0; g < len(bad); g += group {
		gr := Group{First: g, Last: min(g+group, len(bad)) - 1}
		for j := gr.First; j <= gr.Last; j++ {
			if bad[j] {
				gr.Invalid++
			} else {
				gr.Valid++
			}
		}
		if gr.Valid > 0 && gr.Invalid > 0 {
			w.Mixed = append(w.Mixed, gr)
		}
	}
	first := -1
	caught := true // every bad lane caught by a bound of the word (not only its variable)
	for j := range bad {
		if bad[j] && first < 0 {
			first = j
		}
	}
	for _, l := range w.BadLanes {
		caught = caught && l.Bound != "variable"
	}
	switch {
	case w.Invalid == 0:
		w.OnError, w.OnSkip = "every lane moves", "every lane moves"
	case !caught:
		w.OnError = fmt.Sprintf("no bound of the word catches lanes past their variable (first lane %d): error or skip, the DMA reads or writes outside it (on the device NRT_EXEC_OOB); bound the index with the index bound register (its limit the last valid row) or a num_elem of the variable's rows", first)
		w.OnSkip = w.OnError
	default:
		w.OnError = fmt.Sprintf("the word faults at lane %d and moves nothing (on the device the DMA aborts, NRT_EXEC_OOB)", first)
		w.OnSkip = fmt.Sprintf("%d lanes skipped, %d move", w.Invalid, w.Lanes-w.Invalid)
		if len(w.Mixed) > 0 {
			w.OnSkip += fmt.Sprintf("; %d groups mix valid and invalid indices: users report that skip over such a group aborts the DMA on the device (an indirect transpose, NRT_EXEC_HW_ERR_DMA_ABORT)", len(w.Mixed))
		}
	}
	return w, patches, nil
}
