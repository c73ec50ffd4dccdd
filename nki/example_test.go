package nki_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"ndma/dtype"
	"ndma/nki"
)

// A causal mask and a top-8 in the program form (docs/nki.md "Selection"):
// affine_select keeps x[p, f] where p − f ≥ 0 (coefs [1, −1]) and writes
// −100 elsewhere; max8 takes each row's 8 largest, nc_find_index8 their first
// indices. The three run as ndma's Go loops, flagged not exact.
func ExampleRun_selection() {
	prog := `{"target": "trn2", "tensors": [
	  {"name": "x", "buffer": "hbm", "dtype": "float32", "shape": [4, 8], "kind": "input"},
	  {"name": "t", "buffer": "sbuf", "dtype": "float32", "shape": [4, 8]},
	  {"name": "v", "buffer": "sbuf", "dtype": "float32", "shape": [4, 8]},
	  {"name": "i", "buffer": "sbuf", "dtype": "uint32", "shape": [4, 8]},
	  {"name": "masked", "buffer": "hbm", "dtype": "float32", "shape": [4, 8], "kind": "output"},
	  {"name": "idx", "buffer": "hbm", "dtype": "uint32", "shape": [4, 8], "kind": "output"}],
	 "calls": [
	  {"op": "load", "dst": {"tensor": "t"}, "src": {"tensor": "x"}},
	  {"op": "affine_select", "dst": {"tensor": "t"}, "src": {"tensor": "t"}, "coefs": [1, -1],
	   "operand0": 0, "alu_op": "greater_equal", "value": -100},
	  {"op": "max8", "dst": {"tensor": "v"}, "src": {"tensor": "t"}},
	  {"op": "nc_find_index8", "dst": {"tensor": "i"}, "srcs": [{"tensor": "t"}, {"tensor": "v"}]},
	  {"op": "store", "dst": {"tensor": "masked"}, "src": {"tensor": "t"}},
	  {"op": "store", "dst": {"tensor": "idx"}, "src": {"tensor": "i"}}]}`
	p, err := nki.Parse(strings.NewReader(prog))
	if err != nil {
		fmt.Println(err)
		return
	}
	x := make([]byte, 4*32)
	for k := range 32 {
		binary.LittleEndian.PutUint32(x[4*k:], math.Float32bits(float32(k%8+1)))
	}
	out, tr, err := nki.Run(p, map[string]*nki.Array{"x": {DType: dtype.FP32, Shape: []int{4, 8}, Data: x}}, nki.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for r := range 4 {
		row := make([]float32, 8)
		idx := make([]uint32, 8)
		for c := range 8 {
			row[c] = math.Float32frombits(binary.LittleEndian.Uint32(out["masked"].Data[4*(8*r+c):]))
			idx[c] = binary.LittleEndian.Uint32(out["idx"].Data[4*(8*r+c):])
		}
		fmt.Println(row, idx)
	}
	fmt.Println(tr.Calls[1].Op, "exact:", tr.Calls[1].Exact)
	// Output:
	// [1 -100 -100 -100 -100 -100 -100 -100] [0 1 1 1 1 1 1 1]
	// [1 2 -100 -100 -100 -100 -100 -100] [1 0 2 2 2 2 2 2]
	// [1 2 3 -100 -100 -100 -100 -100] [2 1 0 3 3 3 3 3]
	// [1 2 3 4 -100 -100 -100 -100] [3 2 1 0 4 4 4 4]
	// affine_select exact: false
}
