package compute_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"ndma/internal/compute"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
)

// peCase is one PE product: K contraction partitions, M output partitions
// (PE columns), N moving elements, over tiles K-tiles accumulated into the
// same PSUM cells (1: one overwriting product; 3: the conv2d group START,
// MID, END).
type peCase struct {
	gen          isa.Gen
	dt           string // FP16 or FP32 (the two-pass LOW/HIGH pair)
	K, M, N      int
	tiles        int
	wPart, xPart int // first partition of the weights and of the moving data
	dPart        int // first PSUM partition written
	wKind, xKind int // pattern shapes (see wPat, xPat)
	dKind        int
	dOff         int
}

func (c peCase) String() string {
	return fmt.Sprintf("%s/%s/K%d_M%d_N%d_t%d_w%d.%d_x%d.%d_d%d.%d", c.gen, c.dt, c.K, c.M, c.N, c.tiles, c.wPart, c.wKind, c.xPart, c.xKind, c.dPart, c.dKind)
}

// wPat is tile t's weight pattern: M elements per partition, read in one of
// three ways — backwards with step -1 (as every compiler-built load),
// backwards with step -3 in two dimensions (a strided weight slice, as the
// conv kernels' step -9), or forwards.
func (c peCase) wPat(t int) pat {
	sz := dtSize[c.dt]
	base := 0x100 + t*0x2000
	switch c.wKind {
	case 0:
		return sb(c.wPart, base+(c.M-1)*sz, []int{-1}, []int{c.M})
	case 1: // dims [a, M/a] stepping -3 and -3a from the last of 3M slots
		a := 1
		for _, d := range []int{4, 7, 2} {
			if c.M%d == 0 {
				a = d
				break
			}
		}
		return sb(c.wPart, base+3*(c.M-1)*sz, []int{-3, -3 * a}, []int{a, c.M / a})
	}
	return sb(c.wPart, base, []int{1}, []int{c.M})
}

// xPat is tile t's moving pattern: N elements per partition, contiguous,
// or in rows with gaps (2D), or a 3D walk whose outer step goes backwards.
func (c peCase) xPat(t int) pat {
	base := 0x10000 + t*0x4000
	switch {
	case c.xKind == 1 && c.N%8 == 0:
		return sb(c.xPart, base, []int{1, 11}, []int{8, c.N / 8})
	case c.xKind == 2 && c.N%4 == 0:
		return sb(c.xPart, base+0x1000, []int{2, 1, -0x100}, []int{c.N / 4, 2, 2})
	}
	st, nm := row(c.N)
	return sb(c.xPart, base, st, nm)
}

func (c peCase) dPat() pat {
	if c.dKind == 1 && c.N%4 == 0 {
		return ps(c.dPart, c.dOff, []int{1, c.N / 2}, []int{c.N / 4, 4})
	}
	st, nm := row(c.N)
	return ps(c.dPart, c.dOff, st, nm)
}

// fill writes a random value of dtype dt at each element of p in each of
// parts partitions and returns them as float64, [partition][element].
func fill(t testing.TB, r *rand.Rand, m *mem.Memory, p pat, parts int, dt string) [][]float64 {
	vals := make([][]float64, parts)
	for k := range parts {
		vals[k] = make([]float64, p.count())
		seen := map[uint64]float64{}
		for i, a := range p.byteAddrs(k, dtSize[dt]) {
			if v, ok := seen[a]; ok { // a re-read element (step 0) holds one value
				vals[k][i] = v
				continue
			}
			var v float64
			switch dt {
			case "FP16":
				h := randF16(r)
				putU16(t, m, a, h)
				v = f16(h)
			case "FP32":
				f := randF32(r, 2)
				putF32(t, m, a, f)
				v = float64(f)
			default:
				t.Fatalf("fill %s", dt)
			}
			seen[a], vals[k][i] = v, v
		}
	}
	return vals
}

func (c peCase) ldweights(t testing.TB, tile int, mode string, transpose bool) *isa.Inst {
	tr := ""
	if c.gen == isa.Cayman {
		tr = ", transpose_mode=0"
		if transpose {
			tr = ", transpose_mode=1"
		}
	}
	return word(t, c.gen, "ldweights %s, in_dtype=%s, fp32_mode=%s%s, num_active_rows=%d, num_active_cols=%d, row_grp=15, col_grp=15",
		c.wPat(tile).text("src_mem_pattern", 3), c.dt, mode, tr, c.K, c.M)
}

func (c peCase) matmul(t testing.TB, tile int, mode, flags string, transpose bool) *isa.Inst {
	extra := ", xbus_sel=0x10"
	if c.gen == isa.Cayman {
		extra = ", transpose_mode=0"
		if transpose {
			extra = ", transpose_mode=1"
		}
	}
	return word(t, c.gen, "matmul %s, in_dtype=%s, fp32_mode=%s%s, num_active_rows=%d, num_active_cols=%d, psum_accumulate_flags=%s, row_grp=15, col_grp=15, %s",
		c.xPat(tile).text("src_mem_pattern", 3), c.dt, mode, extra, c.K, c.M, flags, c.dPat().text("dst_mem_pattern", 3))
}

// run executes the case and checks PSUM against Σ over tiles of
// Σ_k W[k][c]·X[k][n], with W[k][N−1−i] the load pattern's element i.
// m may be a memory earlier cases used: a case reads only what it wrote.
func (c peCase) run(t *testing.T, m *mem.Memory, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	e := compute.New(c.gen)
	dp := c.dPat()
	// stale PSUM: an overwrite must not see it
	for p := range 128 {
		for _, a := range dp.byteAddrs(p-c.dPart, 4) {
			putF32(t, m, a, 1e6)
		}
	}
	want := make([][]float64, c.M)
	bound := make([][]float64, c.M) // Σ|w||x|
	for i := range want {
		want[i], bound[i] = make([]float64, c.N), make([]float64, c.N)
	}
	for tile := range c.tiles {
		wv := fill(t, r, m, c.wPat(tile), c.K, c.dt)
		xv := fill(t, r, m, c.xPat(tile), c.K, c.dt)
		W := make([][]float64, c.K)
		for k := range c.K {
			W[k] = make([]float64, c.M)
			for i := range c.M {
				W[k][c.M-1-i] = wv[k][i]
			}
		}
		for cc := range c.M {
			for n := range c.N {
				for k := range c.K {
					want[cc][n] += W[k][cc] * xv[k][n]
					bound[cc][n] += math.Abs(W[k][cc] * xv[k][n])
				}
			}
		}
		first, last := tile == 0, tile == c.tiles-1
		if c.dt == "FP16" {
			flags := "MULTI_MID"
			switch {
			case first && last:
				flags = "SINGLE"
			case first:
				flags = "MULTI_START"
			case last:
				flags = "MULTI_END"
			}
			exec(t, e, m, c.ldweights(t, tile, "NONE", false))
			exec(t, e, m, c.matmul(t, tile, "NONE", flags, false))
			continue
		}
		// FP32: LOW load + MATMUL, then HIGH load + MATMUL of the same data;
		// only the group's first pass overwrites, its last pass is END.
		lowFlags, highFlags := "MULTI_MID", "MULTI_MID"
		if first {
			lowFlags = "MULTI_START"
		}
		if last {
			highFlags = "MULTI_END"
		}
		exec(t, e, m, c.ldweights(t, tile, "LOW", false))
		exec(t, e, m, c.matmul(t, tile, "LOW_HIGH", lowFlags, false))
		exec(t, e, m, c.ldweights(t, tile, "HIGH", false))
		exec(t, e, m, c.matmul(t, tile, "LOW_HIGH", highFlags, false))
	}
	bad := 0
	for cc := range c.M {
		for n, a := range dp.byteAddrs(cc, 4) {
			got := float64(getF32(t, m, a))
			if d := math.Abs(got - want[cc][n]); !(d <= 1e-5*bound[cc][n]+1e-30) {
				if bad++; bad <= 5 {
					t.Errorf("out[%d][%d] = %g, want %g (Σ|w||x| %g)", cc, n, got, want[cc][n], bound[cc][n])
				}
			}
		}
	}
	// the partitions beside the output keep the stale value
	for _, p := range []int{c.dPart - 1, c.dPart + c.M} {
		if p >= 0 && p < 128 {
			if got := getF32(t, m, dp.byteAddrs(p-c.dPart, 4)[0]); got != 1e6 {
				t.Errorf("PSUM partition %d (outside the %d output partitions from %d) = %g, want it unchanged", p, c.M, c.dPart, got)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d wrong cells", bad)
	}
}

// peCases are K, M ∈ {1, 7, 128} by N ∈ {1, 64, 512} for FP16 and FP32 on
// gen, with random start partitions (non-zero where they fit), pattern
// shapes and one or three K-tiles.
func peCases(gen isa.Gen, seed uint64) []peCase {
	r := rand.New(rand.NewPCG(seed, 1))
	var cs []peCase
	part := func(n int) int {
		if n == 128 {
			return 0
		}
		return 1 + r.IntN(128-n)
	}
	for _, dt := range []string{"FP16", "FP32"} {
		for _, K := range []int{1, 7, 128} {
			for _, M := range []int{1, 7, 128} {
				for _, N := range []int{1, 64, 512} {
					c := peCase{gen: gen, dt: dt, K: K, M: M, N: N, tiles: 1 + 2*r.IntN(2),
						wPart: part(K), xPart: part(K), dPart: part(M),
						wKind: r.IntN(3), xKind: r.IntN(3), dKind: r.IntN(2), dOff: 4 * r.IntN(256)}
					if K == 7 && M == 7 {
						c.wKind = 1 // the negative-step 2D load, always once
					}
					cs = append(cs, c)
				}
			}
		}
	}
	return cs
}

// TestMatmul: LDWEIGHTS + MATMUL against the spec's formula on random data,
// CAYMAN (all 54 shapes) and SUNDA (the v2 layout; a quarter under -short).
func TestMatmul(t *testing.T) {
	cs := peCases(isa.Cayman, 1)
	sunda := peCases(isa.Sunda, 2)
	rand.New(rand.NewPCG(3, 3)).Shuffle(len(sunda), func(i, j int) { sunda[i], sunda[j] = sunda[j], sunda[i] })
	cs = append(cs, sunda[:testutil.Trials(len(sunda))]...)
	if testing.Short() { // the biggest products once per dtype and gen
		var keep []peCase
		seen := map[string]bool{}
		for _, c := range cs {
			k := fmt.Sprint(c.gen, c.dt)
			if c.K == 128 && c.M == 128 && c.N == 512 {
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			keep = append(keep, c)
		}
		cs = keep
	}
	mems := map[isa.Gen]*mem.Memory{isa.Cayman: mem.New(isa.Cayman), isa.Sunda: mem.New(isa.Sunda)}
	for i, c := range cs {
		t.Run(c.String(), func(t *testing.T) { c.run(t, mems[c.gen], uint64(i)) })
	}
}

// TestMatmulConvGroup: the conv2d accumulation group over three K-tiles —
// START overwrites a stale PSUM tile, MID and END add in FP32 — for FP16
// and the FP32 LOW/HIGH pairs, on both generations.
func TestMatmulConvGroup(t *testing.T) {
	for _, g := range []isa.Gen{isa.Cayman, isa.Sunda} {
		for _, dt := range []string{"FP16", "FP32"} {
			c := peCase{gen: g, dt: dt, K: 128, M: 64, N: 444, tiles: 3, wPart: 0, xPart: 0, dPart: 32, wKind: 1, xKind: 0, dOff: 0x378}
			t.Run(c.String(), func(t *testing.T) { c.run(t, mem.New(g), 99) })
		}
	}
}

// TestMatmulFP32PassPairing: a HIGH pass that does not complete the LOW pass
// before it (other moving data) adds its product like any other pass.
func TestMatmulFP32PassPairing(t *testing.T) {
	c := peCase{gen: isa.Cayman, dt: "FP32", K: 7, M: 7, N: 64, tiles: 2, wPart: 3, xPart: 5, dPart: 9}
	r := rand.New(rand.NewPCG(5, 5))
	m := mem.New(c.gen)
	e := compute.New(c.gen)
	w0 := fill(t, r, m, c.wPat(0), c.K, c.dt)
	x0 := fill(t, r, m, c.xPat(0), c.K, c.dt)
	x1 := fill(t, r, m, c.xPat(1), c.K, c.dt)
	// LOW pass on tile 0's data (START), then HIGH pass on tile 1's moving
	// data with the same weights: the HIGH pass is not the LOW pass's
	// completion, so both products count.
	exec(t, e, m, c.ldweights(t, 0, "LOW", false))
	exec(t, e, m, c.matmul(t, 0, "LOW_HIGH", "MULTI_START", false))
	exec(t, e, m, c.ldweights(t, 0, "HIGH", false))
	exec(t, e, m, c.matmul(t, 1, "LOW_HIGH", "MULTI_END", false))
	for cc := range c.M {
		for n, a := range c.dPat().byteAddrs(cc, 4) {
			var want, bound float64
			for k := range c.K {
				w := w0[k][c.M-1-cc]
				want += w * (x0[k][n] + x1[k][n])
				bound += math.Abs(w*x0[k][n]) + math.Abs(w*x1[k][n])
			}
			if got := float64(getF32(t, m, a)); math.Abs(got-want) > 1e-5*bound {
				t.Fatalf("out[%d][%d] = %g, want %g", cc, n, got, want)
			}
		}
	}
}

// TestTranspose: CAYMAN's PE transpose — LDWEIGHTS(transpose_mode=1) of a
// tile, MATMUL(transpose_mode=1, SINGLE) by an identity — puts the tile's
// column c in PSUM partition c, keeping the input dtype: FP16 results
// packed at 2 bytes, bit-exact, as matmul_small places two of them 256
// bytes apart in one bank; FP32 with a LOW load alone.
func TestTranspose(t *testing.T) {
	for _, tc := range []struct {
		dt           string
		K, M         int
		wPart, xPart int
		dPart        int
		offs         []int // PSUM offsets of successive transposes
		mode, mmode  string
	}{
		{"FP16", 128, 128, 0, 0, 0, []int{0, 256}, "NONE", "NONE"},
		{"FP16", 7, 64, 11, 40, 3, []int{0x100, 0x10e}, "NONE", "NONE"},
		{"FP32", 128, 128, 0, 0, 0, []int{0x800}, "LOW", "LOW_HIGH"},
		{"FP32", 1, 7, 127, 5, 120, []int{4}, "LOW", "LOW_HIGH"},
	} {
		t.Run(fmt.Sprintf("%s_K%d_M%d", tc.dt, tc.K, tc.M), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.K), uint64(tc.M)))
			m := mem.New(isa.Cayman)
			e := compute.New(isa.Cayman)
			sz := dtSize[tc.dt]
			var checks []func()
			// the identity, K×K, at 0x20000 of the moving partitions
			for k := range tc.K {
				for n := range tc.K {
					a := sbufAddr(tc.xPart+k, 0x20000+n*sz)
					switch {
					case tc.dt == "FP16" && k == n:
						putU16(t, m, a, 0x3c00)
					case tc.dt == "FP32" && k == n:
						putF32(t, m, a, 1)
					}
				}
			}
			for j, off := range tc.offs {
				// tile j's natural rows at 0x100+j*0x2000 (step -1 from the last: W[k][c] = T[k][c])
				wp := sb(tc.wPart, 0x100+j*0x2000+(tc.M-1)*sz, []int{-1}, []int{tc.M})
				T := make([][]uint32, tc.K)
				for k := range tc.K {
					T[k] = make([]uint32, tc.M)
					for cc := range tc.M {
						a := sbufAddr(tc.wPart+k, 0x100+j*0x2000+cc*sz)
						if tc.dt == "FP16" {
							h := randF16(r)
							putU16(t, m, a, h)
							T[k][cc] = uint32(h)
						} else {
							f := randF32(r, 100)
							putF32(t, m, a, f)
							T[k][cc] = math.Float32bits(f)
						}
					}
				}
				lw := word(t, isa.Cayman, "ldweights %s, in_dtype=%s, fp32_mode=%s, transpose_mode=1, num_active_rows=%d, num_active_cols=%d, row_grp=15, col_grp=15",
					wp.text("src_mem_pattern", 3), tc.dt, tc.mode, tc.K, tc.M)
				st, nm := row(tc.K)
				mm := word(t, isa.Cayman, "matmul %s, in_dtype=%s, fp32_mode=%s, transpose_mode=1, num_active_rows=%d, num_active_cols=%d, psum_accumulate_flags=SINGLE, row_grp=15, col_grp=15, %s",
					sb(tc.xPart, 0x20000, st, nm).text("src_mem_pattern", 3), tc.dt, tc.mmode, tc.K, tc.M, ps(tc.dPart, off, st, nm).text("dst_mem_pattern", 3))
				exec(t, e, m, lw)
				exec(t, e, m, mm)
				checks = append(checks, func() { // after every transpose ran: none overwrote another
					for cc := range tc.M {
						for n := range tc.K {
							a := psumAddr(tc.dPart+cc, off+n*sz)
							var got uint32
							if tc.dt == "FP16" {
								got = uint32(getU16(t, m, a))
							} else {
								got = getU32(t, m, a)
							}
							if got != T[n][cc] {
								t.Fatalf("transpose %d: PSUM[%d][%d] = %#x, want T[%d][%d] = %#x", j, cc, n, got, n, cc, T[n][cc])
							}
						}
					}
				})
			}
			for _, check := range checks {
				check()
			}
		})
	}
}
