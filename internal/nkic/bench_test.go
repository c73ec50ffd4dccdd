package nkic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"ndma/dtype"
)

// benchProgram is a streamed kernel of calls DMA calls: (128, 64) fp32
// tiles loaded from a (calls/2·128, 64) input and stored back, each tile
// its own pair of calls (a tiled vector copy, 15,000 calls at most).
func benchProgram(b *testing.B, calls int, mode string, cols int) (*Program, map[string]*Array) {
	tiles := calls / 2
	ts := []*Tensor{ten("a", "hbm", "float32", "input", tiles*128, cols), ten("t", "sbuf", "float32", "", 128, cols), ten("out", "hbm", "float32", "output", tiles*128, cols)}
	var cs []*Call
	for k := range tiles {
		sl := [][3]int64{{int64(k * 128), int64(k*128 + 128), 1}, {0, int64(cols), 1}}
		cs = append(cs, &Call{Op: "load", Dst: whole("t"), Src: &AP{Tensor: "a", Slices: sl}, DGEMode: mode, Line: 3},
			&Call{Op: "store", Dst: &AP{Tensor: "out", Slices: sl}, Src: whole("t"), DGEMode: mode, Line: 4})
	}
	js, err := json.Marshal(&Program{Target: "trn2", Tensors: ts, Calls: cs})
	if err != nil {
		b.Fatal(err)
	}
	p, err := Parse(bytes.NewReader(js))
	if err != nil {
		b.Fatal(err)
	}
	return p, map[string]*Array{"a": arr(dtype.FP32, make([]byte, tiles*128*cols*4), tiles*128, cols)}
}

// BenchmarkKernel15000 is 15,000 DMA calls compiled and run; ns/call is the
// amortized cost of one call (docs/nki.md "Speed").
func BenchmarkKernel15000(b *testing.B) {
	for _, tc := range []struct {
		mode string
		cols int
		ref  bool
		fast bool
	}{{ModeHW, 64, false, false}, {ModeSW, 64, false, false}, {ModeHW, 8, false, false}, {ModeSW, 8, false, false}, {ModeHW, 8, true, false},
		{ModeHW, 64, false, true}, {ModeSW, 64, false, true}, {ModeHW, 8, false, true}} {
		name := fmt.Sprintf("%s/128x%d", tc.mode, tc.cols)
		if tc.ref {
			name += "/ref"
		}
		if tc.fast {
			name += "/fast"
		}
		b.Run(name, func(b *testing.B) {
			p, in := benchProgram(b, 15000, tc.mode, tc.cols)
			b.ResetTimer()
			for range b.N {
				if _, _, err := Run(p, in, Options{Ref: tc.ref, Fast: tc.fast}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/15000, "ns/call")
		})
	}
}
