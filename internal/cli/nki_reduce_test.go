package cli

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `ndma nki run` replays a program with reductions (docs/nki.md
// "Compute"): nl.max over the free axis and nl.sum over the partitions
// of a [16 8] float32 input, against loops here; `nki lower` prints the
// TENSOR_REDUCE word of the free-axis one.
func TestNKIRunReduce(t *testing.T) {
	dir := t.TempDir()
	const P, F = 16, 8
	x := make([]float32, P*F)
	for i := range x {
		x[i] = float32((i*29)%53)/4 - 5
	}
	in := filepath.Join(dir, "x.npy")
	data := npyHeader("<f4", "(16, 8)")
	for _, v := range x {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "reduce.json")
	if err := os.WriteFile(prog, []byte(`{"target": "trn2", "tensors": [
  {"name": "x", "buffer": "hbm", "dtype": "float32", "shape": [16, 8], "kind": "input"},
  {"name": "t", "buffer": "sbuf", "dtype": "float32", "shape": [16, 8]},
  {"name": "m", "buffer": "sbuf", "dtype": "float32", "shape": [16, 1]},
  {"name": "s", "buffer": "sbuf", "dtype": "float32", "shape": [1, 8]},
  {"name": "mx", "buffer": "hbm", "dtype": "float32", "shape": [16, 1], "kind": "output"},
  {"name": "sm", "buffer": "hbm", "dtype": "float32", "shape": [1, 8], "kind": "output"}],
 "calls": [{"op": "load", "dst": {"tensor": "t"}, "src": {"tensor": "x"}},
  {"op": "tensor_reduce", "dst": {"tensor": "m"}, "src": {"tensor": "t"}, "axes": [1], "alu_op": "max"},
  {"op": "tensor_reduce", "dst": {"tensor": "s"}, "src": {"tensor": "t"}, "axes": [0], "alu_op": "add"},
  {"op": "store", "dst": {"tensor": "mx"}, "src": {"tensor": "m"}},
  {"op": "store", "dst": {"tensor": "sm"}, "src": {"tensor": "s"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mx, sm := filepath.Join(dir, "mx.npy"), filepath.Join(dir, "sm.npy")
	if code, so, se := runCLI("nki", "run", "--in", "x="+in, "--out", "mx="+mx, "--out", "sm="+sm, prog); code != 0 {
		t.Fatalf("nki run: exit %d\n%s%s", code, so, se)
	}
	f32 := func(path string, n int) []float32 {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = b[len(b)-4*n:] // the data follows the header
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	gotMax, gotSum := f32(mx, P), f32(sm, F)
	for p := range P {
		want := x[p*F]
		for f := 1; f < F; f++ {
			want = max(want, x[p*F+f])
		}
		if gotMax[p] != want {
			t.Errorf("max row %d = %v, want %v", p, gotMax[p], want)
		}
	}
	for f := range F {
		var want float64
		for p := range P {
			want += float64(x[p*F+f])
		}
		if math.Abs(float64(gotSum[f])-want) > 1e-4 {
			t.Errorf("sum column %d = %v, want %v", f, gotSum[f], want)
		}
	}
	code, so, se := runCLI("nki", "lower", prog)
	if code != 0 || !strings.Contains(so, "TENSOR_REDUCE") {
		t.Errorf("nki lower: exit %d, no TENSOR_REDUCE word\n%s%s", code, so, se)
	}
}
