package device_test

import (
	"bytes"
	"fmt"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// naive moves a descriptor's bytes the way neff.md §4.5 reads it, with no
// runs, pieces or words: both sides enumerated byte by byte (sizes[0]
// contiguous bytes — or bytes at steps[0] — higher dims repeat counts, byte
// steps, innermost first), the k-th source byte to the k-th destination byte.
func naive(d neff.Desc, src, dst []byte) {
	offs := func(sizes, steps []int64) []int64 {
		var out []int64
		idx := make([]int64, len(sizes))
		step := func(k int) int64 {
			if k < len(steps) {
				return steps[k]
			}
			return 0
		}
		for {
			base := int64(0)
			for k := 1; k < len(sizes); k++ {
				base += idx[k] * step(k)
			}
			for b := int64(0); b < sizes[0]; b++ {
				if s0 := step(0); s0 == 0 || s0 == 1 {
					out = append(out, base+b)
				} else {
					out = append(out, base+b*s0)
				}
			}
			k := 1
			for ; k < len(sizes); k++ {
				if idx[k]++; idx[k] < sizes[k] {
					break
				}
				idx[k] = 0
			}
			if k == len(sizes) {
				return out
			}
		}
	}
	from, to := offs(d.FromSizes, d.FromSteps), offs(d.ToSizes, d.ToSteps)
	for i := range from {
		dst[to[i]] = src[from[i]]
	}
}

// Fired words run on the reference and on the descriptor engines and leave
// exactly what the naive byte walk says — a pitch that is no multiple of the
// run (sub-elements), gaps on both sides, a run crossing 64 KiB, a byte
// stride, runs that never line up — each from "big" (random bytes) to "big2".
func TestFireRunsOnBothExecutors(t *testing.T) {
	for _, d := range []neff.Desc{
		{FromSizes: []int64{1000, 70}, FromSteps: []int64{1, 1000}, ToSizes: []int64{1000, 70}, ToSteps: []int64{1, 1500}},
		{FromSizes: []int64{16, 4, 2}, FromSteps: []int64{1, 64, 1024}, ToSizes: []int64{128}},
		{FromSizes: []int64{8, 4, 4}, FromSteps: []int64{1, 100, 1000}, ToSizes: []int64{8, 16}, ToSteps: []int64{1, 24}},
		{FromSizes: []int64{70000}, ToSizes: []int64{35000, 2}, ToSteps: []int64{1, 40000}},
		{FromSizes: []int64{32, 3}, FromSteps: []int64{2, 100}, ToSizes: []int64{96}},
		{FromSizes: []int64{3, 20}, FromSteps: []int64{1, 5}, ToSizes: []int64{2, 30}, ToSteps: []int64{1, 4}},
	} {
		d.From, d.To = "big", "big2"
		p := styleA()
		g := &p.Subgraphs[0]
		g.Vars = append(g.Vars, neffgen.Var{Name: "big2", Type: "tmp-buf", Size: 1 << 17})
		g.Engines[0].DMA = append(g.Engines[0].DMA, neffgen.Block{Queue: "q_gradient_in", ID: 7, Desc: []neff.Desc{d}})
		sg, en, place := open(t, p)
		ids := map[string]int{}
		for _, v := range sg.Variables() {
			ids[v.Name] = v.ID
		}
		src := randomBytes(1<<17, 9, uint64(d.FromSizes[0]))
		want := make([]byte, 1<<17)
		naive(d, src, want)
		f, err := device.Fire(isa.Cayman, sg, en, trigger(t, "q_gradient_in", 7), place)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		for _, x := range executors(isa.Cayman, 0) {
			x.write(t, place[ids["big"]], src)
			x.run(t, fmt.Sprint(d), f.Words)
			got := make([]byte, 1<<17)
			if err := x.mem.Read(place[ids["big2"]], got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Errorf("%s %v: byte %d is %#x, want %#x (%d words)", x.name, d, i, got[i], want[i], len(f.Words))
			}
		}
	}
}
