package nkic

import (
	"math"
	"testing"
)

// Compute calls' predicted times against the compute model's documented
// trn2 constants (internal/timing/compute.go, docs/sim.md "Compute time"):
// a DVE word 156 + 0.5225 ns an element per partition for each tensor it
// reads (at least one); a Pool (GpSimd) word (150 + elements × inputs) /
// 1.2 ns; an ACT word on fp32 106 + elements / 1.2 ns; LDWEIGHTS 26 ns; a MATMUL 42 + 0.169 ns a moving column, × 4 on fp32.
// An fp32 nc_matmul is two LDWEIGHTS + MATMUL pairs (the LOW and HIGH
// passes, docs/compute.md §14), a narrower one a pair.
func TestComputeTimes(t *testing.T) {
	vec := func(elems, inputs float64) int64 { return int64(math.Round(156 + 0.5225*elems*inputs)) }
	act := func(elems float64) int64 { return int64(math.Round(106 + elems/1.2)) }
	pool := func(elems float64) int64 { return int64(math.Round((150 + elems) / 1.2)) }
	mm := func(cols, passes float64) int64 { return int64(math.Round(42 + 0.169*passes*cols)) }
	mm32 := func(cols float64) int64 { return mm(cols, 4) }
	const P, F = 128, 500
	cases := []struct {
		name string
		call *Call
		want int64
	}{
		{"tensor_tensor", &Call{Op: "tensor_tensor", Dst: whole("c"), Srcs: []*AP{whole("a"), whole("b")}, ALUOp: "add"}, vec(F, 2)},
		{"tensor_scalar", &Call{Op: "tensor_scalar", Dst: whole("c"), Src: whole("a"), ALUOp: "multiply", Operand0: f64p(2)}, vec(F, 1)},
		{"tensor_copy", &Call{Op: "tensor_copy", Dst: whole("c"), Src: whole("a")}, vec(F, 1)},
		{"memset half", &Call{Op: "memset", Dst: &AP{Tensor: "c", Slices: [][3]int64{{0, P, 1}, {0, F / 2, 1}}}, Value: f64p(1)}, pool(F / 2)},
		{"activation", &Call{Op: "activation", Dst: whole("c"), Src: whole("a"), Func: "exp"}, act(F)},
		{"iota", &Call{Op: "iota", Dst: whole("c"), Coefs: []int64{1, 1}}, pool(F)},
		{"nc_matmul fp32", &Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: &AP{Tensor: "a", Slices: [][3]int64{{0, P, 1}, {0, 64, 1}}}, Moving: &AP{Tensor: "b", Slices: [][3]int64{{0, P, 1}, {0, 400, 1}}}}, 2 * (26 + mm32(400))},
		{"nc_matmul fp16", &Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: &AP{Tensor: "h", Slices: [][3]int64{{0, P, 1}, {0, 64, 1}}}, Moving: &AP{Tensor: "h", Slices: [][3]int64{{0, P, 1}, {0, 400, 1}}}}, 26 + mm(400, 1)},
		{"nc_transpose", &Call{Op: "nc_transpose", Dst: whole("tt"), Src: &AP{Tensor: "a", Slices: [][3]int64{{0, 64, 1}, {0, 32, 1}}}}, 26 + mm32(64)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{
				ten("a", "sbuf", "float32", "", P, F), ten("b", "sbuf", "float32", "", P, F), ten("c", "sbuf", "float32", "", P, F),
				ten("h", "sbuf", "float16", "", P, F), ten("ps", "psum", "float32", "", 64, 400), ten("tt", "sbuf", "float32", "", 32, 64),
			}, tc.call)
			_, tr := run(t, p, nil)
			if got := tr.Calls[0].TimeNS; got != tc.want {
				t.Errorf("time %d ns, want %d (%+v)", got, tc.want, tr.Calls[0])
			}
			if tr.ComputeNS != tc.want || tr.DMANS != 0 {
				t.Errorf("trace compute_ns %d, dma_ns %d; want %d, 0", tr.ComputeNS, tr.DMANS, tc.want)
			}
		})
	}
}

// TimeOf (the front end's NumPy calls) gives a call's time without running
// it; a reduction is the DVE law over the source's elements per partition.
func TestTimeOf(t *testing.T) {
	s, err := NewSession("trn2", Options{Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add([]*Tensor{ten("a", "sbuf", "float32", "", 128, 300), ten("r", "sbuf", "float32", "", 128, 1),
		ten("ps", "psum", "float32", "", 128, 300)}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		call *Call
		want int64
	}{
		{&Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("a"), ALUOp: "max", Axes: []int{1}}, int64(math.Round(156 + 0.5225*300))},
		{&Call{Op: "matmul", Dst: whole("ps"), Stationary: &AP{Tensor: "a", Slices: [][3]int64{{0, 128, 1}, {0, 128, 1}}}, Moving: whole("a")}, 2 * (26 + int64(math.Round(42+4*0.169*300)))},
	} {
		ct, err := s.TimeOf(tc.call)
		if err != nil {
			t.Fatal(err)
		}
		if ct.TimeNS != tc.want {
			t.Errorf("%s: %d ns, want %d", tc.call.Op, ct.TimeNS, tc.want)
		}
	}
	if n := len(s.Trace().Calls); n != 0 {
		t.Errorf("TimeOf ran %d calls", n)
	}
}

// A DMA call's time is its word on the packet-level model, alone, by hand
// (docs/nki.md "Compute calls"; timing.Trn2): a HW DGE load of (P, 512)
// fp32 is P/8 engines of 8 rows × 2048 contiguous bytes — two packets of
// 8192 B (8 + 8192 / 27.1 = 310 ns each; the second carries the 4-byte
// semaphore) — after the DGE's 600 ns and SP's 900-ns latency, engine e
// 57·e ns later (HBM reads), the last write 450 ns after its data: 128
// partitions 600 + 900 + 15·57 + 2·310 + 450 = 3425, 16 partitions
// 600 + 900 + 57 + 620 + 450 = 2627; the (128, 512) store reads SBUF
// (14 ns an engine): 600 + 900 + 210 + 620 + 450 = 2780.
func TestDMACallTimeByHand(t *testing.T) {
	for _, tc := range []struct {
		parts     int
		load, sto int64
	}{{128, 3425, 2780}, {16, 2627, 0}} {
		p := build(t, "trn2", []*Tensor{ten("a", "hbm", "float32", "", tc.parts, 512), ten("x", "sbuf", "float32", "", tc.parts, 512),
			ten("o", "hbm", "float32", "output", tc.parts, 512)},
			&Call{Op: "load", Dst: whole("x"), Src: whole("a"), DGEMode: ModeHW},
			&Call{Op: "store", Dst: whole("o"), Src: whole("x"), DGEMode: ModeHW})
		_, tr := run(t, p, nil)
		if got := tr.Calls[0].TimeNS; got != tc.load {
			t.Errorf("(%d, 512) load: %d ns, by hand %d", tc.parts, got, tc.load)
		}
		if got := tr.Calls[1].TimeNS; tc.sto > 0 && got != tc.sto {
			t.Errorf("(%d, 512) store: %d ns, by hand %d", tc.parts, got, tc.sto)
		}
		if tr.DMANS != tr.Calls[0].TimeNS+tr.Calls[1].TimeNS {
			t.Errorf("dma_ns %d, the calls' %d + %d", tr.DMANS, tr.Calls[0].TimeNS, tr.Calls[1].TimeNS)
		}
	}
}
