package inspect

import (
	"encoding/binary"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/internal/samples/sampleneff"
	"ndma/isa"
	"ndma/neff"
)

func u32s(v ...uint32) device.Input {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return device.Input{Data: b, Descr: "<u4", Shape: []int{len(v)}}
}

// TestPreflightMixed: field-tables §11.5 — "INDIRECT1D (0xbb): SRC
// (gather) dst[j] = src[idx_s[j]] for j < dst_num_elem, and an index ≥
// src_num_elem is out of bounds"; "Out of bounds is an error that names the
// lane … unless errors are off (… idx_bound_is_err = 0 for INDIRECT1D
// indices), in which case that lane is skipped". Gather's table has 16
// rows: of [0 1 2 99 15 2^32−1 13 12] lanes 3 and 5 are out of bounds, the
// word mixes valid and invalid indices, and the run goes on to the output
// copy (the check reads the indices the 0xd4 put in SBUF, not the input).
func TestPreflightMixed(t *testing.T) {
	for _, skip := range []bool{false, true} {
		f, sgs, err := neffgen.Gather(8, skip).Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		idx := []uint32{0, 1, 2, 99, 15, 0xffffffff, 13, 12}
		r, err := Preflight(isa.Cayman, f, sgs, map[string]device.Input{"idx": u32s(idx...)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stopped != "" || len(r.Words) != 1 || !r.Bad() {
			t.Fatalf("skip %v: %+v", skip, r)
		}
		w := r.Words[0]
		var wantBad []int
		for j, v := range idx {
			if v >= neffgen.GatherRows {
				wantBad = append(wantBad, j)
			}
		}
		if w.Lanes != 8 || w.Invalid != len(wantBad) || len(w.BadLanes) != len(wantBad) {
			t.Fatalf("skip %v: %+v", skip, w)
		}
		for k, l := range w.BadLanes {
			if l.Lane != wantBad[k] || l.Index != idx[wantBad[k]] || l.Bound != "num_elem" || l.Leg != "src" {
				t.Errorf("bad lane %d: %+v", k, l)
			}
		}
		if len(w.Mixed) != 1 || w.Mixed[0] != (Group{First: 0, Last: 7, Valid: 6, Invalid: 2}) {
			t.Errorf("mixed groups: %+v", w.Mixed)
		}
		if want := map[bool]string{false: "error", true: "skip"}[skip]; w.Mode != want {
			t.Errorf("mode %s, want %s", w.Mode, want)
		}
	}
	// all in bounds: nothing reported
	f, sgs, err := neffgen.Gather(8, false).Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Preflight(isa.Cayman, f, sgs, map[string]device.Input{"idx": u32s(0, 1, 2, 3, 15, 14, 13, 12)})
	if err != nil || r.Bad() || len(r.Words) != 1 || r.Words[0].Invalid != 0 || len(r.Words[0].Mixed) != 0 {
		t.Fatalf("valid indices: %+v %v", r, err)
	}
	// every index out of bounds: no mixed group
	r, err = Preflight(isa.Cayman, f, sgs, map[string]device.Input{"idx": u32s(16, 17, 18, 19, 20, 21, 22, 0x7fffffff)})
	if err != nil || !r.Bad() || r.Words[0].Invalid != 8 || len(r.Words[0].Mixed) != 0 {
		t.Fatalf("invalid indices: %+v %v", r, err)
	}
}

// TestPreflightSamples: the synthetic shapes and matmul_small have no
// indirect words; the pre-flight runs them through and reports none.
func TestPreflightSamples(t *testing.T) {
	f, sgs := sampleneff.Open(t, "matmul_small.neff")
	if r, err := Preflight(isa.Cayman, f, sgs, nil); err != nil || r.Bad() || len(r.Words) != 0 {
		t.Fatalf("matmul_small: %+v %v", r, err)
	}
	for _, s := range neffgen.Shapes("cayman") {
		f, sgs, err := s.Program.Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Preflight(isa.Cayman, f, sgs, nil)
		if err != nil || r.Bad() || len(r.Words) != 0 {
			t.Fatalf("%s: %+v %v", s.Name, r, err)
		}
	}
}

// TestPreflightGatherTranspose: field-tables §11.5 — "GATHER_XPOSE (0xf1):
// … row j starts at src_start + idx[j]·src_step_elem[1] and holds L =
// elem_size / 2 two-byte elements": the table holds 64 rows of 256 bytes,
// so a row index ≥ 64 reads past it, and with src_idx_bound_reg off no
// bound of the word catches that ("variable"); the xbar's 16-row tiles are
// the groups (§9.4): of 32 lanes, tile 16..31 mixes, tile 0..15 is all
// valid. The run goes on past the word (its unbounded lanes run as index 0).
func TestPreflightGatherTranspose(t *testing.T) {
	f, sgs, err := neffgen.GatherTranspose(32).Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]uint32, 32)
	for j := range idx {
		idx[j] = uint32(j)
	}
	idx[20], idx[21] = neffgen.XposeRows, 0x7fffffff
	r, err := Preflight(isa.Cayman, f, sgs, map[string]device.Input{"idx": u32s(idx...)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != "" || len(r.Words) != 1 {
		t.Fatalf("%+v", r)
	}
	w := r.Words[0]
	if w.Invalid != 2 || w.BadLanes[0].Lane != 20 || w.BadLanes[1].Lane != 21 || w.BadLanes[0].Bound != "variable" || w.BadLanes[1].Bound != "variable" {
		t.Fatalf("lanes: %+v", w.BadLanes)
	}
	if len(w.Mixed) != 1 || w.Mixed[0] != (Group{First: 16, Last: 31, Valid: 14, Invalid: 2}) {
		t.Fatalf("groups: %+v", w.Mixed)
	}
	// 2^31 and above is no signed row index: caught by the word itself
	idx[21] = 0x80000000
	if r, err = Preflight(isa.Cayman, f, sgs, map[string]device.Input{"idx": u32s(idx...)}); err != nil || r.Words[0].BadLanes[1].Bound != "num_elem" {
		t.Fatalf("2^31: %+v %v", r, err)
	}
}
