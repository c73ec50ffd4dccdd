package nkic

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"ndma/check"
	"ndma/dtype"
	"ndma/internal/testutil"
	"ndma/isa"
)

// The NKI SDK's DMA tests and the API reference's examples, re-expressed as
// programs; every expectation is a plain loop over the inputs here.

func ten(name, buffer, dt string, kind string, shape ...int) *Tensor {
	return &Tensor{Name: name, Buffer: buffer, DType: dt, Shape: shape, Kind: kind}
}

func whole(name string) *AP { return &AP{Tensor: name} }

func i64(v int64) *int64 { return &v }

// build marshals a program and reads it back (the JSON reader is on every
// test's path).
func build(t *testing.T, target string, ts []*Tensor, calls ...*Call) *Program {
	t.Helper()
	b, err := json.Marshal(&Program{Target: target, Tensors: ts, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return p
}

func f32s(n int, f func(i int) float32) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f(i)))
	}
	return b
}

func u32s(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func getF32(b []byte, i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
}

func arr(dt dtype.DType, data []byte, shape ...int) *Array {
	return &Array{DType: dt, Shape: shape, Data: data}
}

// validWords checks every word compiled against the generation's rules
// (package check: the validator `ndma validate` runs).
func validWords(t *testing.T, p *Program, lws []*Lowered) {
	t.Helper()
	for _, lw := range lws {
		for k := range lw.Run {
			for _, pr := range check.Validate(&lw.Run[k], p.gen) {
				if pr.Severity == check.Error {
					t.Errorf("%s word %d: %s %s = %s: %s", lw.Call.Where(), k, pr.Predicate, pr.Field, pr.Value, pr.Want)
				}
			}
		}
	}
}

func run(t *testing.T, p *Program, in map[string]*Array) (map[string]*Array, *Trace) {
	t.Helper()
	lws, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	validWords(t, p, lws)
	out, tr, err := RunCompiled(p, lws, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the reference executor agrees byte for byte
	out2, _, err := RunCompiled(p, lws, in, Options{Ref: true})
	if err != nil {
		t.Fatalf("ref: %v", err)
	}
	for k, a := range out {
		if !bytes.Equal(a.Data, out2[k].Data) {
			t.Fatalf("output %q: sim and ref differ", k)
		}
	}
	sameAsFast(t, p, lws, in, out, tr)
	return out, tr
}

// sameAsFast runs the calls again under Options.Fast and holds it to the
// engines' run: the same outputs, and per call the same time and
// descriptor count.
func sameAsFast(t *testing.T, p *Program, lws []*Lowered, in map[string]*Array, out map[string]*Array, tr *Trace) {
	t.Helper()
	out3, tr3, err := RunCompiled(p, lws, in, Options{Fast: true})
	if err != nil {
		t.Fatalf("fast: %v", err)
	}
	for k, a := range out {
		if !bytes.Equal(a.Data, out3[k].Data) {
			t.Fatalf("output %q: sim and fast differ", k)
		}
	}
	for i := range tr.Calls {
		a, b := tr.Calls[i], tr3.Calls[i]
		if a.TimeNS != b.TimeNS || a.Descriptors != b.Descriptors {
			t.Fatalf("%s: engines %d ns %d descriptors, fast %d ns %d descriptors", lws[i].Call.Where(), a.TimeNS, a.Descriptors, b.TimeNS, b.Descriptors)
		}
	}
}

func TestStaticCopies(t *testing.T) {
	a := f32s(256*64, func(i int) float32 { return float32(i) * 0.5 })
	cases := []struct {
		name, mode string
		target     string
		slice      [][3]int64 // the HBM side's slices
		rows, cols int
		at         func(r, c int) int // the element of a the out (r, c) holds
	}{
		{"whole swdge", ModeSW, "trn2", nil, 128, 64, func(r, c int) int { return r*64 + c }},
		{"whole hwdge", ModeHW, "trn2", nil, 128, 64, func(r, c int) int { return r*64 + c }},
		{"whole none", ModeNone, "trn2", nil, 128, 64, func(r, c int) int { return r*64 + c }},
		{"trn1 none", ModeNone, "trn1", nil, 128, 64, func(r, c int) int { return r*64 + c }},
		{"trn3 unknown", ModeUnknown, "trn3", nil, 128, 64, func(r, c int) int { return r*64 + c }},
		{"strided slice", ModeHW, "trn2", [][3]int64{{1, 256, 2}, {8, 40, 1}}, 128, 32, func(r, c int) int { return (1+2*r)*64 + 8 + c }},
		{"over-long slice clips", ModeSW, "trn2", [][3]int64{{128, 999, 1}, {0, 64, 2}}, 128, 32, func(r, c int) int { return (128+r)*64 + 2*c }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, tc.target, []*Tensor{
				ten("a", "hbm", "float32", "input", 256, 64),
				ten("t", "sbuf", "float32", "", tc.rows, tc.cols),
				ten("out", "hbm", "float32", "output", tc.rows, tc.cols),
			},
				&Call{Op: "dma_copy", Dst: whole("t"), Src: &AP{Tensor: "a", Slices: tc.slice}, DGEMode: tc.mode, Line: 10},
				&Call{Op: "dma_copy", Dst: whole("out"), Src: whole("t"), DGEMode: tc.mode, Line: 11})
			if tc.slice == nil {
				p.Tensors[0].Shape = []int{256, 64}
				p.Calls[0].Src = &AP{Tensor: "a", Slices: [][3]int64{{0, 128, 1}, {0, 64, 1}}}
			}
			out, tr := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, 256, 64)})
			o := out["out"].Data
			for r := range tc.rows {
				for c := range tc.cols {
					if got, want := getF32(o, r*tc.cols+c), getF32(a, tc.at(r, c)); got != want {
						t.Fatalf("out[%d][%d] = %v, want %v", r, c, got, want)
					}
				}
			}
			if tr.Calls[0].Bytes != int64(4*tc.rows*tc.cols) || tr.Calls[0].TimeNS <= 0 {
				t.Errorf("trace: %+v", tr.Calls[0])
			}
		})
	}
}

func TestCasts(t *testing.T) {
	for _, to := range []string{"bfloat16", "float16"} {
		t.Run(to, func(t *testing.T) {
			a := f32s(128*32, func(i int) float32 { return float32(i)/7 - 100 })
			p := build(t, "trn2", []*Tensor{
				ten("a", "hbm", "float32", "input", 128, 32),
				ten("t", "sbuf", to, "", 128, 32),
				ten("out", "hbm", to, "output", 128, 32),
			}, &Call{Op: "dma_copy", Dst: whole("t"), Src: whole("a"), DGEMode: ModeHW}, &Call{Op: "dma_copy", Dst: whole("out"), Src: whole("t"), DGEMode: ModeSW})
			out, _ := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, 128, 32)})
			for i := range 128 * 32 {
				v := getF32(a, i)
				var want uint16
				if to == "bfloat16" {
					want = uint16(dtype.ToBFloat16(v))
				} else {
					want = uint16(dtype.ToFloat16(v))
				}
				if got := binary.LittleEndian.Uint16(out["out"].Data[2*i:]); got != want {
					t.Fatalf("element %d: %#x, want %#x (%v)", i, got, want, v)
				}
			}
		})
	}
}

// gatherProg is the SDK's indirect-load test: rows idx[p] of a (N, D)
// table into a (P, D) tile, stored to out.
func gatherProg(t *testing.T, target, oob string, n, d, lanes int) *Program {
	return build(t, target, []*Tensor{
		ten("table", "hbm", "float32", "input", n, d),
		ten("idx", "sbuf", "uint32", "input", lanes, 1),
		ten("t", "sbuf", "float32", "", lanes, d),
		ten("out", "hbm", "float32", "output", lanes, d),
	},
		&Call{Op: "dma_copy", Dst: whole("t"), OOBMode: oob, Line: 21, File: "gather.py",
			Src: &AP{Tensor: "table", Pattern: [][2]int64{{int64(d), int64(lanes)}, {1, int64(d)}}, VectorOffset: whole("idx"), IndirectDim: 0}},
		&Call{Op: "dma_copy", Dst: whole("out"), Src: whole("t"), Line: 22, File: "gather.py"})
}

func TestGather(t *testing.T) {
	const n, d, lanes = 300, 48, 128
	table := f32s(n*d, func(i int) float32 { return float32(i) })
	idx := make([]uint32, lanes)
	for j := range idx {
		idx[j] = uint32((j*37 + 11) % n)
	}
	p := gatherProg(t, "trn2", "", n, d, lanes)
	out, tr := run(t, p, map[string]*Array{"table": arr(dtype.FP32, table, n, d), "idx": arr(dtype.U32, u32s(idx...), lanes, 1)})
	for j := range lanes {
		for c := range d {
			if got, want := getF32(out["out"].Data, j*d+c), getF32(table, int(idx[j])*d+c); got != want {
				t.Fatalf("out[%d][%d] = %v, want %v", j, c, got, want)
			}
		}
	}
	c := tr.Calls[0]
	// 192-byte rows land 256 KiB apart: the DGE counts steps in elements, so
	// three words of 64-byte columns
	if c.Mode != ModeSW || c.Backend != "software" || len(c.Words) != 3 {
		t.Errorf("gather call: %+v", c)
	}
	for _, w := range c.Words {
		if !strings.HasPrefix(w.Text, "dma_indirect") || !strings.Contains(w.Text, "src_elem_size=64") {
			t.Errorf("gather word: %s", w.Text)
		}
	}
}

func TestGatherOOB(t *testing.T) {
	const n, d, lanes = 100, 16, 8
	table := f32s(n*d, func(i int) float32 { return float32(i) + 1 })
	idx := []uint32{3, 99, 100, 7, 250, 0, 1, 2}
	in := map[string]*Array{"table": arr(dtype.FP32, table, n, d), "idx": arr(dtype.U32, u32s(idx...), lanes, 1)}

	_, _, err := Run(gatherProg(t, "trn2", "error", n, d, lanes), in, Options{})
	var oob *OOBError
	if !errors.As(err, &oob) || oob.Lane != 2 || oob.Index != 100 || oob.Bound != 100 {
		t.Fatalf("oob_mode=error: %v, want lane 2 index 100 bound 100", err)
	}
	if want := "call 0 (dma_copy, gather.py:21): index 100 is out of bounds for axis 0 with size 100"; err.Error() != want {
		t.Errorf("error text:\n%s\nwant\n%s", err, want)
	}

	out, tr, err := Run(gatherProg(t, "trn2", "skip", n, d, lanes), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Calls[0].RowsSkipped != 2 {
		t.Errorf("rows skipped %d, want 2", tr.Calls[0].RowsSkipped)
	}
	for j, v := range idx {
		for c := range d {
			want := float32(0) // a skipped row leaves the tile as it was: zero
			if int(v) < n {
				want = getF32(table, int(v)*d+c)
			}
			if got := getF32(out["out"].Data, j*d+c); got != want {
				t.Fatalf("out[%d][%d] = %v, want %v", j, c, got, want)
			}
		}
	}
}

// scatterProg scatters (or scatter-adds) the rows of src into dst at idx.
func scatterProg(t *testing.T, c *Call) *Program {
	c.Dst = &AP{Tensor: "dst", Pattern: [][2]int64{{32, 8}, {1, 32}}, VectorOffset: whole("idx")}
	if c.Op == "dma_copy" {
		c.Src = whole("s")
	} else {
		c.Srcs = []*AP{c.Dst, whole("s")}
	}
	return build(t, "trn2", []*Tensor{
		ten("base", "hbm", "float32", "input", 64, 32),
		ten("src", "hbm", "float32", "input", 8, 32),
		ten("idx", "sbuf", "uint32", "input", 8, 1),
		ten("s", "sbuf", "float32", "", 8, 32),
		ten("dst", "hbm", "float32", "output", 64, 32),
	},
		&Call{Op: "dma_copy", Dst: whole("dst"), Src: whole("base")},
		&Call{Op: "dma_copy", Dst: whole("s"), Src: whole("src")},
		c)
}

func TestScatter(t *testing.T) {
	base := f32s(64*32, func(i int) float32 { return float32(i % 13) })
	src := f32s(8*32, func(i int) float32 { return float32(1000 + i) })
	cases := []struct {
		name string
		call *Call
		idx  []uint32
		add  bool
	}{
		{"scatter", &Call{Op: "dma_copy"}, []uint32{5, 60, 0, 33, 12, 7, 8, 63}, false},
		{"scatter-add dma_compute", &Call{Op: "dma_compute", ReduceOp: "add"}, []uint32{5, 60, 0, 33, 12, 7, 8, 63}, true},
		{"legacy dst_rmw_op repeated", &Call{Op: "dma_copy", DstRMWOp: "add"}, []uint32{5, 5, 0, 5, 12, 7, 0, 63}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := scatterProg(t, tc.call)
			out, _ := run(t, p, map[string]*Array{"base": arr(dtype.FP32, base, 64, 32), "src": arr(dtype.FP32, src, 8, 32), "idx": arr(dtype.U32, u32s(tc.idx...), 8, 1)})
			want := make([]float32, 64*32)
			for i := range want {
				want[i] = getF32(base, i)
			}
			for j, r := range tc.idx {
				for c := range 32 {
					if tc.add {
						want[int(r)*32+c] += getF32(src, j*32+c)
					} else {
						want[int(r)*32+c] = getF32(src, j*32+c)
					}
				}
			}
			for i, w := range want {
				if got := getF32(out["dst"].Data, i); got != w {
					t.Fatalf("dst[%d][%d] = %v, want %v", i/32, i%32, got, w)
				}
			}
		})
	}
}

func TestDMACompute(t *testing.T) {
	x := f32s(128*16, func(i int) float32 { return float32(i) })
	y := f32s(128*16, func(i int) float32 { return 0.25 * float32(i%5) })
	p := build(t, "trn2", []*Tensor{
		ten("x", "hbm", "float32", "input", 128, 16),
		ten("y", "hbm", "float32", "input", 128, 16),
		ten("out", "hbm", "float32", "output", 128, 16),
	}, &Call{Op: "dma_compute", Dst: whole("out"), Srcs: []*AP{whole("x"), whole("y")}, ReduceOp: "add"})
	out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, 128, 16), "y": arr(dtype.FP32, y, 128, 16)})
	for i := range 128 * 16 {
		if got, want := getF32(out["out"].Data, i), getF32(x, i)+getF32(y, i); got != want {
			t.Fatalf("out[%d] = %v, want %v", i, got, want)
		}
	}
	if len(tr.Calls[0].Words) != 2 {
		t.Errorf("x + y into a third tensor: %d words, want a copy and a copy-add", len(tr.Calls[0].Words))
	}
}

func f16s(n int, f func(i int) float32) []byte {
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(dtype.ToFloat16(f(i))))
	}
	return b
}

func TestDMATranspose(t *testing.T) {
	src := f16s(16*128, func(i int) float32 { return float32(i % 2000) })
	for _, from := range []string{"hbm", "sbuf"} {
		t.Run(from, func(t *testing.T) {
			var calls []*Call
			ts := []*Tensor{ten("a", "hbm", "float16", "input", 16, 128)}
			srcName := "a"
			if from == "sbuf" {
				ts = append(ts, ten("s", "sbuf", "float16", "", 16, 128))
				calls = append(calls, &Call{Op: "dma_copy", Dst: whole("s"), Src: whole("a")})
				srcName = "s"
			}
			ts = append(ts, ten("t", "sbuf", "float16", "", 128, 16), ten("out", "hbm", "float16", "output", 128, 16))
			calls = append(calls, &Call{Op: "dma_transpose", Dst: whole("t"), Src: whole(srcName), DGEMode: ModeHW, Line: 7},
				&Call{Op: "dma_copy", Dst: whole("out"), Src: whole("t")})
			out, tr := run(t, build(t, "trn2", ts, calls...), map[string]*Array{"a": arr(dtype.FP16, src, 16, 128)})
			for r := range 128 {
				for c := range 16 {
					got := binary.LittleEndian.Uint16(out["out"].Data[2*(r*16+c):])
					if want := binary.LittleEndian.Uint16(src[2*(c*128+r):]); got != want {
						t.Fatalf("out[%d][%d] = %#x, want %#x", r, c, got, want)
					}
				}
			}
			xc := tr.Calls[len(calls)-2]
			if xc.Words[0].Resolved == "" && !strings.HasPrefix(xc.Words[0].Text, "dma_transpose") {
				t.Errorf("transpose words: %+v", xc.Words)
			}
		})
	}
}

func TestIndirectTranspose(t *testing.T) {
	const rows, L, n = 64, 128, 32
	table := make([]byte, 2*rows*L)
	for i := range rows * L {
		binary.LittleEndian.PutUint16(table[2*i:], uint16(i))
	}
	idx := make([]uint32, n)
	for j := range idx {
		idx[j] = uint32((j*5 + 3) % rows)
	}
	p := build(t, "trn2", []*Tensor{
		ten("table", "hbm", "bfloat16", "input", rows, L),
		ten("idx", "sbuf", "uint32", "input", n, 1),
		ten("t", "sbuf", "bfloat16", "", L, n),
		ten("out", "hbm", "bfloat16", "output", L, n),
	},
		&Call{Op: "dma_transpose", Dst: whole("t"), Src: &AP{Tensor: "table", Pattern: [][2]int64{{L, n}, {1, L}}, VectorOffset: whole("idx")}},
		&Call{Op: "dma_copy", Dst: whole("out"), Src: whole("t")})
	out, tr := run(t, p, map[string]*Array{"table": arr(dtype.BF16, table, rows, L), "idx": arr(dtype.U32, u32s(idx...), n, 1)})
	for k := range L {
		for j := range n {
			got := binary.LittleEndian.Uint16(out["out"].Data[2*(k*n+j):])
			if want := uint16(int(idx[j])*L + k); got != want {
				t.Fatalf("out[%d][%d] = %d, want %d", k, j, got, want)
			}
		}
	}
	if !strings.HasPrefix(tr.Calls[0].Words[0].Text, "dma_gather_transpose") {
		t.Errorf("indirect transpose word: %s", tr.Calls[0].Words[0].Text)
	}
}

func TestScalarAndVectorAP(t *testing.T) {
	a := f32s(64*32, func(i int) float32 { return float32(i) })
	// rows 10..17 of a through a scalar offset, and a (8, 32) static AP
	// of every other column
	p := build(t, "trn2", []*Tensor{
		ten("a", "hbm", "float32", "input", 64, 32),
		ten("t", "sbuf", "float32", "", 8, 32),
		ten("u", "sbuf", "float32", "", 8, 16),
		ten("o1", "hbm", "float32", "output", 8, 32),
		ten("o2", "hbm", "float32", "output", 8, 16),
	},
		&Call{Op: "dma_copy", Dst: whole("t"), Src: &AP{Tensor: "a", Pattern: [][2]int64{{32, 8}, {1, 32}}, ScalarOffset: i64(10 * 32)}, DGEMode: ModeHW},
		&Call{Op: "dma_copy", Dst: whole("u"), Src: &AP{Tensor: "a", Pattern: [][2]int64{{32, 8}, {2, 16}}, Offset: 1}, DGEMode: ModeSW},
		&Call{Op: "dma_copy", Dst: whole("o1"), Src: whole("t")},
		&Call{Op: "dma_copy", Dst: whole("o2"), Src: whole("u")})
	out, _ := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, 64, 32)})
	for r := range 8 {
		for c := range 32 {
			if got := getF32(out["o1"].Data, r*32+c); got != float32((10+r)*32+c) {
				t.Fatalf("o1[%d][%d] = %v", r, c, got)
			}
		}
		for c := range 16 {
			if got := getF32(out["o2"].Data, r*16+c); got != float32(r*32+1+2*c) {
				t.Fatalf("o2[%d][%d] = %v", r, c, got)
			}
		}
	}
	// a scalar offset past the tensor: an OOB error, or the call skipped
	p.Calls[0].Src.ScalarOffset = i64(60 * 32)
	b, _ := json.Marshal(p)
	if _, err := Parse(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	q, _ := Parse(bytes.NewReader(b))
	_, err := q.Compile()
	var oob *OOBError
	if !errors.As(err, &oob) {
		t.Fatalf("a scalar offset past the tensor: %v", err)
	}
}

func TestLegality(t *testing.T) {
	cases := []struct {
		name, target string
		call         *Call
		want         string
	}{
		{"hwdge on trn1", "trn1", &Call{Op: "dma_copy", Dst: whole("t"), Src: whole("a"), DGEMode: ModeHW, Line: 5}, "call 0 (dma_copy, line 5): not legal on the target: dge_mode=hwdge: the hardware DGE is NeuronCore-v3 or newer; trn1 is NeuronCore-v2"},
		{"transpose on trn1", "trn1", &Call{Op: "dma_transpose", Dst: whole("t"), Src: whole("a")}, "dma_transpose is NeuronCore-v3 or newer"},
		{"transpose swdge", "trn2", &Call{Op: "dma_transpose", Dst: whole("t"), Src: whole("a"), DGEMode: ModeSW}, "a direct transpose's only modes are unknown and hwdge"},
		{"gather hwdge", "trn2", &Call{Op: "dma_copy", Dst: whole("t"), DGEMode: ModeHW, Src: &AP{Tensor: "a", Pattern: [][2]int64{{16, 16}, {1, 16}}, VectorOffset: whole("i")}}, "needs the software DGE"},
		{"rmw skip", "trn2", &Call{Op: "dma_copy", Dst: whole("t"), Src: whole("a"), DstRMWOp: "add", OOBMode: "skip"}, "only oob_mode=error is allowed"},
		{"scalar offset none", "trn2", &Call{Op: "dma_copy", Dst: whole("t"), Src: &AP{Tensor: "a", Pattern: [][2]int64{{16, 16}, {1, 16}}, ScalarOffset: i64(0)}, DGEMode: ModeNone}, "a scalar_offset (dynamic start) needs a DGE"},
		{"dma_compute trn1", "trn1", &Call{Op: "dma_compute", Dst: whole("t"), Srcs: []*AP{whole("t"), whole("a")}, ReduceOp: "add"}, "dma_compute is Trn2 and Trn3 only"},
		{"element counts", "trn2", &Call{Op: "dma_copy", Dst: whole("t"), Src: &AP{Tensor: "a", Pattern: [][2]int64{{16, 8}, {1, 16}}}}, "src has 128 elements"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, tc.target, []*Tensor{ten("a", "hbm", "float16", "input", 16, 16), ten("i", "sbuf", "uint32", "input", 16, 1), ten("t", "sbuf", "float16", "", 16, 16)}, tc.call)
			_, err := p.Compile()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestSBUFSizes(t *testing.T) {
	for _, tc := range []struct {
		target string
		kib    int
	}{{"trn1", 192}, {"trn2", 224}, {"trn3", 256}} {
		fits := build(t, tc.target, []*Tensor{ten("t", "sbuf", "uint8", "", 128, tc.kib<<10)})
		if fits == nil {
			t.Fatal("no program")
		}
		b, _ := json.Marshal(&Program{Target: tc.target, Tensors: []*Tensor{ten("t", "sbuf", "uint8", "", 128, tc.kib<<10+1)}})
		if _, err := Parse(bytes.NewReader(b)); !errors.Is(err, ErrIllegal) || !strings.Contains(err.Error(), tc.target) {
			t.Errorf("%s: %d KiB + 1 byte per partition: %v", tc.target, tc.kib, err)
		}
	}
}

// The words against the assembler's: the text of each word, written here by
// hand from the field tables (docs/asm.md), assembles to the bytes the
// compiler built.
func TestWordsMatchAssembler(t *testing.T) {
	p := build(t, "trn2", []*Tensor{
		ten("a", "hbm", "float32", "input", 128, 64),
		ten("idx", "sbuf", "uint32", "input", 128, 1),
		ten("t", "sbuf", "float32", "", 128, 64),
		ten("h", "hbm", "float16", "input", 16, 128),
		ten("x", "sbuf", "float16", "", 128, 16),
	},
		&Call{Op: "dma_copy", Dst: whole("t"), Src: whole("a"), DGEMode: ModeSW},
		&Call{Op: "dma_copy", Dst: whole("t"), Src: &AP{Tensor: "a", Pattern: [][2]int64{{64, 128}, {1, 64}}, VectorOffset: whole("idx")}, OOBMode: "skip"},
		&Call{Op: "dma_transpose", Dst: whole("x"), Src: whole("h")})
	lws, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	// a: HBM base; idx: SBUF partition 0 offset 0; t: offset 64 (idx's 4 bytes, aligned); h after a
	want := []string{
		`dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[256, 32768], src_num_elem=[128, 1], src_elem_size=256,
		 dst_start_addr=sbuf:0:0x40, dst_step_elem=[0x40000, 0x2000000], dst_num_elem=[128, 1], dst_elem_size=256, in_dtype=FP32, out_dtype=FP32`,
		`dma_indirect semaphore=1, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=0,
		 src_start_addr=hbm:0x0, src_step_elem=256, src_num_elem=128, src_elem_size=256,
		 dst_start_addr=sbuf:0:0x40, dst_step_elem=0x40000, dst_num_elem=128, dst_elem_size=256,
		 src_idx_start_addr=sbuf:0:0x0, in_dtype=FP32, out_dtype=FP32`,
		`dma_transpose semaphore=1, in_dtype=FP16, out_dtype=FP16, src_start_addr=hbm:0x8000, src_step_elem=[2, 256], src_num_elem=[128, 16],
		 tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x140, dst_step_elem=[2, 0x40000], dst_num_elem=[16, 128]`,
	}
	for k, src := range want {
		w := testutil.Word(t, isa.Cayman, ".gen cayman\n"+strings.ReplaceAll(src, "\n\t\t", "\n    "))
		got, _ := isa.Encode(lws[k].Run[0])
		exp, _ := isa.Encode(*w)
		if got != exp {
			t.Errorf("call %d:\n got %s\nwant %s\n got text %s", k, hex.EncodeToString(got[:]), hex.EncodeToString(exp[:]), wordTrace(&lws[k].Run[0], nil).Text)
		}
	}
}
