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
func benchProgram(b testing.TB, calls int, mode string, cols int) (*Program, map[string]*Array) {
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

// BenchmarkSessionVadd is bench/nki_calls.py's kernel as the Python front
// end sends it to a Session: per (128, 8) fp32 tile two loads into fresh
// SBUF tiles, a tensor_tensor add and a store, in batches of 1,024 calls
// with their new tensors; ns/call is per DMA call (3 a tile).
func BenchmarkSessionVadd(b *testing.B) {
	const tiles, cols = 5000, 8
	for _, tc := range []struct {
		name string
		opt  Options
	}{{"fast", Options{Fast: true, Brief: true}}, {"sim", Options{Brief: true}}, {"trace", Options{Fast: true}}} {
		b.Run(tc.name, func(b *testing.B) {
			in := make([]byte, tiles*128*cols*4)
			pat := func(t string, off int64) *AP {
				return &AP{Tensor: t, Pattern: [][2]int64{{cols, 128}, {1, cols}}, Offset: off}
			}
			b.ResetTimer()
			for range b.N {
				s, err := NewSession("trn2", tc.opt)
				if err != nil {
					b.Fatal(err)
				}
				sbuf := make([]byte, 128*224*1024)
				if err := s.ShareOnchip(sbuf, nil); err != nil {
					b.Fatal(err)
				}
				ts := []*Tensor{ten("arg0", "hbm", "float32", "input", tiles*128, cols), ten("arg1", "hbm", "float32", "input", tiles*128, cols),
					ten("out", "shared_hbm", "float32", "", tiles*128, cols)}
				if err := s.Add(ts, nil); err != nil {
					b.Fatal(err)
				}
				for _, n := range []string{"arg0", "arg1"} {
					if err := s.Write(n, in); err != nil {
						b.Fatal(err)
					}
				}
				ts = ts[:0]
				var cs []*Call
				idx, slot := 0, 0
				tile := func() string {
					off, part := int64(slot%6*64), 0
					name := fmt.Sprintf("t%d", slot+3)
					slot++
					ts = append(ts, &Tensor{Name: name, Buffer: "sbuf", DType: "float32", Shape: []int{128, cols}, Offset: &off, Partition: &part})
					return name
				}
				call := func(c *Call) {
					i := idx
					idx++
					c.Index, c.File = &i, "nki_calls.py"
					cs = append(cs, c)
				}
				for k := range tiles {
					off := int64(k * 128 * cols)
					x, y, z := tile(), tile(), tile()
					call(&Call{Op: "load", Line: 26, Dst: pat(x, 0), Src: pat("arg0", off)})
					call(&Call{Op: "load", Line: 27, Dst: pat(y, 0), Src: pat("arg1", off)})
					call(&Call{Op: "tensor_tensor", Line: 28, Dst: pat(z, 0), Srcs: []*AP{pat(x, 0), pat(y, 0)}, ALUOp: "add"})
					call(&Call{Op: "store", Line: 28, Dst: pat("out", off), Src: pat(z, 0)})
					if len(cs) >= 1024 || k == tiles-1 {
						if err := s.Add(ts, cs); err != nil {
							b.Fatal(err)
						}
						ts, cs = nil, nil
					}
				}
				out := make([]byte, len(in))
				if err := s.Read("out", out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(3*tiles), "ns/call")
		})
	}
}

// BenchmarkParse15000 reads a 15,000-call program from JSON (what `ndma nki
// run` does first); ns/call is per call.
func BenchmarkParse15000(b *testing.B) {
	p, _ := benchProgram(b, 15000, ModeHW, 64)
	js, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Parse(bytes.NewReader(js)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/15000, "ns/call")
}
