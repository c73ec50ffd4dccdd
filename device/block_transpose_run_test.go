package device_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/isa"
	"ndma/mem"
	"ndma/neff"
)

// stride is the SBUF partition stride of field-tables §7 (not isa.Map).
func stride(gen isa.Gen) uint64 {
	if gen == isa.Maverick {
		return 1 << 20
	}
	return 1 << 18
}

// Transpose blocks of several shapes — the observed ones, a tile written
// inside one partition, an unaligned destination, the identity order, 4-D
// permutations, an HBM destination, three tiles in one block — run on the
// reference and on the engines, which agree with each other and with the
// tile permutation of the test's own reading; the semaphore reaches 16.
func TestStyleATransposesRun(t *testing.T) {
	xp := func(op string, shape []int64, es int64, fs, fst, ts, tst []int64, to string, toOff int64) neff.Desc {
		return neff.Desc{From: "a_vec", To: to, ToOff: toOff, FromSizes: fs, FromSteps: fst, ToSizes: ts, ToSteps: tst,
			NumTilingDimensions: 2, TransposeOp: op, TransposeShape: shape, TransposeElementSize: es}
	}
	cases := []struct {
		name  string
		desc  neff.Desc
		xpose int // DMA_TRANSPOSE words expected on v3+
	}{
		{"observed fp32", xp("WZXY", []int64{1, 1, 128, 64}, 4, []int64{256, 128, 2, 1}, []int64{1, 512, 256, 65536}, []int64{512, 64, 2, 1}, []int64{1, 262144, 16777216, 512}, "SB", 0), 1},
		{"inside one partition", xp("WZXY", []int64{1, 1, 128, 64}, 4, []int64{256, 128, 2, 1}, []int64{1, 512, 256, 65536}, []int64{512, 64, 2, 1}, []int64{1, 512, 32768, 0}, "SB", 1024), 1},
		{"fp16 at offset 64", xp("WZXY", []int64{1, 1, 128, 128}, 2, []int64{256, 128, 1, 1}, []int64{1, 256, 0, 0}, []int64{256, 128, 1, 1}, []int64{1, 262144, 0, 0}, "SB", 64), 0},
		{"unaligned", xp("WZXY", []int64{1, 1, 128, 64}, 4, []int64{256, 128, 2, 1}, []int64{1, 512, 256, 65536}, []int64{512, 64, 2, 1}, []int64{1, 262144, 16777216, 512}, "SB", 16), 0},
		{"identity", xp("WZYX", []int64{1, 1, 128, 64}, 4, []int64{256, 128, 2, 1}, []int64{1, 512, 256, 65536}, []int64{256, 128, 2, 1}, []int64{1, 262144, 256, 0}, "SB", 0), 0},
		{"4-D XYZW", xp("XYZW", []int64{2, 3, 16, 8}, 2, []int64{96, 16, 2, 1}, []int64{1, 4096, 96, 0}, []int64{48, 32, 2, 1}, []int64{1, 262144, 48, 0}, "SB", 32), 0},
		{"4-D ZWYX", xp("ZWYX", []int64{2, 4, 16, 8}, 4, []int64{256, 16, 2, 1}, []int64{1, 512, 8192, 0}, []int64{4096, 1, 2, 1}, []int64{1, 0, 4096, 0}, "b_vec", 100), 0},
		{"HBM destination", xp("WZXY", []int64{1, 1, 128, 64}, 4, []int64{256, 128, 2, 1}, []int64{1, 512, 256, 65536}, []int64{512, 64, 2, 1}, []int64{1, 512, 32768, 0}, "b_vec", 0), 0},
		{"three tiles", xp("WZXY", []int64{1, 1, 16, 16}, 2, []int64{32, 16, 3, 1}, []int64{1, 2000, 32, 0}, []int64{32, 16, 3, 1}, []int64{1, 262144, 4194304, 0}, "SB", 4096), 2},
	}
	for _, gen := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Maverick} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s %s", gen, tc.name), func(t *testing.T) {
				d := tc.desc
				d.FromDtype = map[int64]string{2: "float16", 4: "float32"}[d.TransposeElementSize]
				d.ToDtype = d.FromDtype
				p := neffgen.VectorAdd(map[isa.Gen]string{isa.Sunda: "sunda", isa.Cayman: "cayman", isa.Maverick: "maverick"}[gen], 1)
				sp := &p.Subgraphs[0].Engines[1]
				sp.DMA = append(sp.DMA, neffgen.Compiled("qSPIn", 9, neffgen.SetOf(8), d))
				sg, en, place := openGen(t, p, "sp")
				f, err := device.Fire(gen, sg, en, triggerOn(t, gen, "qSPIn", 9), place)
				if err != nil {
					t.Fatal(err)
				}
				x := 0
				for i := range f.Words {
					if f.Words[i].Opcode() == isa.OpDMATranspose {
						x++
					}
				}
				if want := map[bool]int{true: tc.xpose, false: 0}[gen != isa.Sunda]; x != want {
					t.Errorf("%d DMA_TRANSPOSE words of %d, want %d", x, len(f.Words), want)
				}
				a, _ := sg.Var("a_vec")
				b, _ := sg.Var("b_vec")
				src := randomBytes(int(a.Size), 7, 7)
				from := samples.Walk(d.FromOff, d.FromSizes, d.FromSteps)
				in := make([]byte, len(from))
				for i, o := range from {
					in[i] = src[o]
				}
				out := samples.Permute(in, d.TransposeOp, d.TransposeShape, d.TransposeElementSize)
				want := map[uint64]byte{}
				for i, o := range samples.Walk(d.ToOff, d.ToSizes, d.ToSteps) {
					if d.To == "SB" {
						want[uint64(o>>18)*stride(gen)+uint64(o&(1<<18-1))] = out[i]
					} else {
						want[place[b.ID]+uint64(o)] = out[i]
					}
				}
				xs := executors(gen, f.RingDescriptors)
				for _, m := range xs {
					m.write(t, place[a.ID], src)
					m.run(t, "", f.Words)
					for addr, v := range want {
						var got [1]byte
						if err := m.mem.Read(addr, got[:]); err != nil || got[0] != v {
							t.Fatalf("%s: byte at %#x is %#x, the reading says %#x (%v)", m.name, addr, got[0], v, err)
						}
					}
					if s := m.mem.Sems[f.Semaphore]; s != 16 {
						t.Errorf("%s: $S[%d] = %d, want 16", m.name, f.Semaphore, s)
					}
				}
				if diff, ok := mem.FirstDifference(xs[0].mem, xs[1].mem, true); ok {
					t.Errorf("ref and sim differ: %s", diff)
				}
			})
		}
	}
}

// Every dtype string of neff.md §4.5 that ndma's number formats cover
// casts to every other on every generation, and the two executors agree
// byte for byte; the 64-bit ones copy byte-exact (as UINT32 pairs) and
// refuse a cast by name.
func TestStyleADtypes(t *testing.T) {
	dtypes := []string{"float32", "float32r", "float16", "bfloat16", "float8e3", "float8e4", "float8e5", "float8_e4m3fn", "float8_e5m2", "int8", "uint8", "int16", "uint16", "int32", "uint32"}
	size := map[string]int64{"int64": 8, "uint64": 8, "float32": 4, "float32r": 4, "float16": 2, "bfloat16": 2, "float8e3": 1, "float8e4": 1, "float8e5": 1,
		"float8_e4m3fn": 1, "float8_e5m2": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4}
	for _, gen := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.Maverick} {
		p := neffgen.VectorAdd(map[isa.Gen]string{isa.Sunda: "sunda", isa.Cayman: "cayman", isa.Mariana: "mariana", isa.Maverick: "maverick"}[gen], 1)
		sp := &p.Subgraphs[0].Engines[1]
		type pair struct{ from, to string }
		var pairs []pair
		for _, a := range dtypes {
			for _, b := range dtypes {
				pairs = append(pairs, pair{a, b})
			}
		}
		pairs = append(pairs, pair{"int64", "int64"}, pair{"uint64", "uint64"})
		for i, pr := range pairs {
			op := "cast"
			if pr.from == pr.to {
				op = "copy"
			}
			// 64 elements of a_vec at 4096·i into b_vec at 1024·i
			sp.DMA = append(sp.DMA, neffgen.Compiled("qSPIn", 16+i, neffgen.SetOf(8), neff.Desc{From: "a_vec", To: "b_vec", FromOff: 4096 * int64(i), ToOff: 1024 * int64(i),
				FromSizes: []int64{64 * size[pr.from], 1}, FromSteps: []int64{1, 0}, ToSizes: []int64{64 * size[pr.to], 1}, ToSteps: []int64{1, 0}, Op: op, FromDtype: pr.from, ToDtype: pr.to}))
		}
		sp.DMA = append(sp.DMA, neffgen.Compiled("qSPIn", 15, neffgen.SetOf(8), neff.Desc{From: "a_vec", To: "b_vec", FromSizes: []int64{512, 1}, FromSteps: []int64{1, 0},
			ToSizes: []int64{256, 1}, ToSteps: []int64{1, 0}, Op: "cast", FromDtype: "int64", ToDtype: "int32"}))
		sg, en, place := openGen(t, p, "sp")
		if _, err := device.Fire(gen, sg, en, triggerOn(t, gen, "qSPIn", 15), place); err == nil || !bytesContains(err.Error(), "desc[0]: from_dtype int64, to_dtype int32, op \"cast\": a DMA word cannot cast or compute INT64/UINT64") {
			t.Errorf("%s: int64 cast: %v", gen, err)
		}
		a, _ := sg.Var("a_vec")
		b, _ := sg.Var("b_vec")
		src := randomBytes(int(a.Size), 1, 2)
		xs := executors(gen, 0)
		for _, x := range xs {
			x.write(t, place[a.ID], src)
		}
		for i, pr := range pairs {
			f, err := device.Fire(gen, sg, en, triggerOn(t, gen, "qSPIn", 16+i), place)
			if err != nil {
				t.Errorf("%s %s → %s: %v", gen, pr.from, pr.to, err)
				continue
			}
			for _, x := range xs {
				x.run(t, fmt.Sprintf("%s %s → %s", gen, pr.from, pr.to), f.Words)
			}
			got := make([]byte, 64*size[pr.to])
			if err := xs[0].mem.Read(place[b.ID]+1024*uint64(i), got); err != nil {
				t.Fatal(err)
			}
			if pr.from == pr.to && !bytes.Equal(got, src[4096*i:4096*i+len(got)]) {
				t.Errorf("%s %s copy is not byte-exact", gen, pr.from)
			}
		}
		if diff, ok := mem.FirstDifference(xs[0].mem, xs[1].mem, true); ok {
			t.Errorf("%s: ref and sim differ: %s", gen, diff)
		}
	}
}

func bytesContains(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }

// Untrusted blocks never panic: random sizes, steps, offsets, dtypes and
// transpose keys either resolve or fail with an error.
func TestStyleARandomBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	pick := func(xs ...int64) int64 { return xs[r.IntN(len(xs))] }
	dims := func() []int64 {
		out := make([]int64, 1+r.IntN(5))
		for i := range out {
			out[i] = pick(0, 1, 2, 3, 4, 16, 64, 128, 256, 4000, -1, 1<<31, 1<<40)
		}
		return out
	}
	p := neffgen.VectorAdd("cayman", 1)
	sp := &p.Subgraphs[0].Engines[1]
	for i := 0; i < 400; i++ {
		d := neff.Desc{From: []string{"a_vec", "SB", "b_vec", "nope"}[r.IntN(4)], To: []string{"SB", "c_vec", "b_vec"}[r.IntN(3)],
			FromOff: pick(0, 4, 4000, 213368, -8, 1<<18, 1<<41), ToOff: pick(0, 32, 221368, 1<<18-4, -1),
			FromSizes: dims(), FromSteps: dims(), ToSizes: dims(), ToSteps: dims(),
			Op: []string{"", "copy", "cast", "add", "transpose", "fma"}[r.IntN(6)], FromDtype: []string{"", "float32", "float16", "int8", "int64", "bogus"}[r.IntN(6)],
			ToDtype: []string{"", "float32", "float16", "uint64"}[r.IntN(4)], NumTilingDimensions: int(pick(0, 1, 2, 3, -1, 9))}
		if r.IntN(2) == 0 {
			d.TransposeOp = []string{"WZXY", "XYZW", "WZYX", "AB", "WWXY"}[r.IntN(5)]
			d.TransposeShape = dims()
			d.TransposeElementSize = pick(0, 1, 2, 4, 8, 100, -2)
		}
		sp.DMA = append(sp.DMA, neffgen.Compiled("qSPIn", 100+i, neffgen.SetOf(8), d))
	}
	sg, en, place := openGen(t, p, "sp")
	for _, gen := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Maverick} {
		for i := 0; i < 400; i++ {
			device.Fire(gen, sg, en, triggerOn(t, gen, "qSPIn", 100+i), place) // an error is fine; a panic is not
		}
	}
}
