package nkic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/dtype"
)

// TestFastTimes holds Options.Fast's cached times to the engines' over
// many copies whose shapes repeat at other addresses: tiles of an HBM
// tensor at random rows and columns, to random SBUF offsets and partition
// counts, in every DGE mode and dtype width; the engines' time and
// descriptor count of every call is what the cache gives.
func TestFastTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	for _, target := range []string{"trn1", "trn2", "trn3"} {
		for _, mode := range []string{ModeNone, ModeSW, ModeHW} {
			if target == "trn1" && mode != ModeNone {
				continue
			}
			for _, dt := range []string{"float32", "float16", "int8"} {
				t.Run(fmt.Sprintf("%s/%s/%s", target, mode, dt), func(t *testing.T) {
					ts := []*Tensor{ten("a", "hbm", dt, "input", 1024, 96), ten("t", "sbuf", dt, "", 128, 512), ten("out", "hbm", dt, "output", 1024, 96)}
					var cs []*Call
					for range 120 {
						rows := []int64{128, 64, 32, 1, 17}[rng.IntN(5)]
						cols := []int64{96, 64, 32, 8, 5}[rng.IntN(5)]
						r0 := rng.Int64N(1024 - rows + 1)
						c0 := []int64{0, 0, 1, 8, 16, 3}[rng.IntN(6)]
						if c0+cols > 96 {
							c0 = 0
						}
						s0 := []int64{0, 0, 64, 128, 7}[rng.IntN(5)]
						hb := []([3]int64){{r0, r0 + rows, 1}, {c0, c0 + cols, 1}}
						sb := []([3]int64){{0, rows, 1}, {s0, s0 + cols, 1}}
						cs = append(cs, &Call{Op: "load", Dst: &AP{Tensor: "t", Slices: sb}, Src: &AP{Tensor: "a", Slices: hb}, DGEMode: mode},
							&Call{Op: "store", Dst: &AP{Tensor: "out", Slices: hb}, Src: &AP{Tensor: "t", Slices: sb}, DGEMode: mode})
					}
					p := build(t, target, ts, cs...)
					lws, err := p.Compile()
					if err != nil {
						t.Fatal(err)
					}
					size := map[string]int{"float32": 4, "float16": 2, "int8": 1}[dt]
					d, _ := dtype.FromNEFF(dt)
					in := map[string]*Array{"a": arr(d, f32s(1024*96*size/4, func(i int) float32 { return float32(i) }), 1024, 96)}
					out, tr, err := RunCompiled(p, lws, in, Options{})
					if err != nil {
						t.Fatal(err)
					}
					sameAsFast(t, p, lws, in, out, tr)
				})
			}
		}
	}
}
