package nkic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"ndma/dtype"
	"ndma/isa"
)

// randomCopies is n static copies among a few shapes at random places:
// tiles of a (64, 48) input (float32) loaded into SBUF tiles (float32, or
// bfloat16 — a cast) and stored into an output, plain and transposing
// patterns, strided columns, under every DGE mode trn2 has.
func randomCopies(r *rand.Rand, n int) ([]*Tensor, []*Call) {
	ts := []*Tensor{ten("a", "hbm", "float32", "input", 64, 48), ten("s", "sbuf", "float32", "", 64, 48),
		ten("h", "sbuf", "bfloat16", "", 64, 48), ten("out", "hbm", "float32", "output", 64, 48)}
	modes := []string{"", ModeHW, ModeSW, ModeNone}
	sl := func(rows, cols, step int64) [][3]int64 {
		r0, c0 := r.Int64N(64-rows+1), r.Int64N(48-(cols-1)*step)
		return [][3]int64{{r0, r0 + rows, 1}, {c0, c0 + (cols-1)*step + 1, step}}
	}
	var cs []*Call
	for range n {
		rows, cols, step := []int64{1, 8, 16}[r.IntN(3)], []int64{1, 4, 12}[r.IntN(3)], int64(1+r.IntN(2))
		mode := modes[r.IntN(len(modes))]
		mid := []string{"s", "h"}[r.IntN(2)]
		var c *Call
		switch r.IntN(3) {
		case 0:
			c = &Call{Op: "load", Dst: &AP{Tensor: mid, Slices: sl(rows, cols, 1)}, Src: &AP{Tensor: "a", Slices: sl(rows, cols, step)}}
		case 1:
			c = &Call{Op: "store", Dst: &AP{Tensor: "out", Slices: sl(rows, cols, step)}, Src: &AP{Tensor: mid, Slices: sl(rows, cols, 1)}}
		default: // an add into the output (a read-modify-write: the CCE path)
			c = &Call{Op: "dma_copy", Dst: &AP{Tensor: "out", Slices: sl(rows, cols, 1)}, Src: &AP{Tensor: "s", Slices: sl(rows, cols, step)}, DstRMWOp: "add"}
		}
		c.DGEMode, c.Line = mode, len(cs)+1
		cs = append(cs, c)
	}
	return ts, cs
}

// TestShapeCacheMatchesFullCompile compiles random static copies with the
// shape cache and with every call compiled in full: the words as run and
// as issued are byte for byte the same, and so are the runs' outputs and
// traces (words' hex and text).
func TestShapeCacheMatchesFullCompile(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ts, cs := randomCopies(rand.New(rand.NewPCG(seed, 7)), 400)
			js, err := json.Marshal(&Program{Target: "trn2", Tensors: ts, Calls: cs})
			if err != nil {
				t.Fatal(err)
			}
			var ps [2]*Program
			var lws [2][]*Lowered
			for k := range ps {
				if ps[k], err = Parse(bytes.NewReader(js)); err != nil {
					t.Fatal(err)
				}
				ps[k].noShapes = k == 1
				if lws[k], err = ps[k].Compile(); err != nil {
					t.Fatal(err)
				}
			}
			if len(ps[0].shapes) == 0 || len(ps[0].shapes) > len(cs)/2 || ps[1].shapes != nil {
				t.Fatalf("%d shapes cached for %d calls (full compile: %d): the calls should share shapes", len(ps[0].shapes), len(cs), len(ps[1].shapes))
			}
			enc := func(ws []isa.Inst) [][]byte {
				var out [][]byte
				for i := range ws {
					b := make([]byte, ws[i].Size())
					if err := ws[i].EncodeTo(b); err != nil {
						t.Fatal(err)
					}
					out = append(out, append(b, ws[i].AppendText(nil)...))
				}
				return out
			}
			for i := range lws[0] {
				a, b := lws[0][i], lws[1][i]
				if !reflect.DeepEqual(enc(a.Run), enc(b.Run)) || !reflect.DeepEqual(enc(a.Words), enc(b.Words)) || len(a.Run) == 0 {
					t.Fatalf("call %d (%s %s): cached words differ from the full compile's (%d/%d words)", i, cs[i].Op, cs[i].DGEMode, len(a.Run), len(b.Run))
				}
			}
			data := make([]byte, 64*48*4)
			for i := range data {
				data[i] = byte(i*7 + int(seed))
			}
			in := map[string]*Array{"a": arr(dtype.FP32, data, 64, 48)}
			var outs [2]map[string]*Array
			var trs [2]*Trace
			for k := range ps {
				if outs[k], trs[k], err = RunCompiled(ps[k], lws[k], in, Options{Fast: true}); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(outs[0], outs[1]) {
				t.Fatal("the runs' outputs differ")
			}
			if !reflect.DeepEqual(trs[0], trs[1]) {
				t.Fatal("the runs' traces differ")
			}
		})
	}
}
