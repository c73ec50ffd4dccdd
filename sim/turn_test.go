package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestTurn holds every path of turn (the 4-row 2-byte one and the register
// turn included) to the definition out(c, r) = in(r, c), element by element.
func TestTurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	for _, es := range []int{1, 2, 4, 8} {
		for _, h := range []int{1, 3, 4, 8, 16, 17, 64, 72} { // 8–64 rows of 2-byte elements: the register turn where w is 8k too
			for _, w := range []int{1, 2, 5, 24, 128} {
				in := make([]byte, h*w*es)
				for i := range in {
					in[i] = byte(rng.Uint32())
				}
				want := make([]byte, len(in))
				for r := 0; r < h; r++ {
					for c := 0; c < w; c++ {
						copy(want[(c*h+r)*es:(c*h+r+1)*es], in[(r*w+c)*es:(r*w+c+1)*es])
					}
				}
				got := make([]byte, len(in))
				turn(got, in, h, w, es)
				if !bytes.Equal(got, want) {
					t.Errorf("es %d, %d × %d: turn differs from out(c, r) = in(r, c)", es, h, w)
				}
				// turnStack of one tile: column c into cols[c], here the columns in reverse order
				bases := make([]int, w)
				cols := make([][]byte, w)
				clear(got)
				for c := range bases {
					bases[c] = (w - 1 - c) * h * es
					cols[c] = got[bases[c]:]
				}
				rows := make([][]byte, h)
				for r := range rows {
					rows[r] = in[r*w*es : (r+1)*w*es]
				}
				turnStack(cols, rows, h, w, es, 1)
				for c := range w {
					if !bytes.Equal(got[bases[c]:bases[c]+h*es], want[c*h*es:(c+1)*h*es]) {
						t.Fatalf("es %d, %d × %d: turnStack's column %d differs from out(c, r) = in(r, c)", es, h, w, c)
					}
				}
				// turnStack: m tiles stride apart (a gap between them), row r of tile j in rows[j·h + r], column c of tile j at bases[c] + j·h·es
				for _, m := range []int{1, 2, 3} {
					stride := h*w*es + 8
					stack := make([]byte, m*stride)
					for i := range stack {
						stack[i] = byte(rng.Uint32())
					}
					sb := make([]int, w)
					out := make([]byte, m*h*w*es)
					sc := make([][]byte, w)
					for c := range sb {
						sb[c] = (w - 1 - c) * m * h * es
						sc[c] = out[sb[c]:]
					}
					srows := make([][]byte, m*h)
					for j := range m {
						for r := range h {
							srows[j*h+r] = stack[j*stride+r*w*es : j*stride+(r+1)*w*es]
						}
					}
					turnStack(sc, srows, h, w, es, m)
					for j := range m {
						for r := range h {
							for c := range w {
								o, i := sb[c]+(j*h+r)*es, j*stride+(r*w+c)*es
								if !bytes.Equal(out[o:o+es], stack[i:i+es]) {
									t.Fatalf("es %d, %d × %d, %d stacked: tile %d element (%d, %d) differs", es, h, w, m, j, r, c)
								}
							}
						}
					}
				}
			}
		}
	}
}

// stackOf keeps at most 4 of a stack's rows in one of the 64 sets of 64-byte
// lines, counted here by hand for the tile shapes: 16 rows of 256 B
// in 4 KiB tiles fall in 16 sets, one row per set a tile (4 tiles fit);
// rows of 512 B in 8 KiB tiles fall in 8 sets, two a tile (2 fit).
func TestStackOf(t *testing.T) {
	for _, c := range []struct{ h, row, stride, want int }{
		{16, 256, 4096, 4}, {16, 256, 8 * 4096, 4}, {16, 256, 32 * 4096, 4}, {16, 512, 8192, 2}, {16, 4096, 65536, 1}, {4, 64, 256, 4},
	} {
		if got := stackOf(c.h, c.row, c.stride); got != c.want {
			t.Errorf("%d rows of %d B, tiles %d B apart: stacks of %d, want %d", c.h, c.row, c.stride, got, c.want)
		}
	}
}

// turnPtrs (turn8 where the architecture has it) holds to the definition:
// the 2-byte element at rows[r] + 2c goes to cols[c] + 2r, every other byte
// untouched — rows in any order with gaps between them, columns in reverse
// order with gaps, w a multiple of 8 but not of 16 (one 8-column block a
// row group) or of 16 (one or two).
func TestTurnPtrs(t *testing.T) {
	if !haveTurn8 {
		t.Skip("no register turn on this architecture")
	}
	rng := rand.New(rand.NewPCG(17, 8))
	for _, w := range []int{8, 16, 24, 128} {
		for _, n := range []int{8, 16, 40, 256} {
			const gap = 6
			in := make([]byte, n*(2*w+gap))
			for i := range in {
				in[i] = byte(rng.Uint32())
			}
			rows, at := make([]unsafe.Pointer, n), make([]int, n)
			for r, k := range rng.Perm(n) { // row r is the k-th in memory
				at[r] = k * (2*w + gap)
				rows[r] = unsafe.Pointer(&in[at[r]])
			}
			out := make([]byte, w*(2*n+gap)+gap)
			for i := range out {
				out[i] = 0xa5
			}
			want := bytes.Clone(out)
			cols, base := make([]unsafe.Pointer, w), make([]int, w)
			for c := range w {
				base[c] = gap + (w-1-c)*(2*n+gap)
				for r := range n {
					copy(want[base[c]+2*r:base[c]+2*r+2], in[at[r]+2*c:])
				}
			}
			for k := 1; k <= 2 && w%(8*k) == 0; k++ {
				got := bytes.Clone(out)
				for c := range w {
					cols[c] = unsafe.Pointer(&got[base[c]])
				}
				turnPtrs(cols, rows, w, n, k)
				if !bytes.Equal(got, want) {
					t.Fatalf("%d rows × %d columns, %d blocks a row group: the register turn differs from out(c, r) = in(r, c)", n, w, k)
				}
			}
		}
	}
}

// BenchmarkTurn: dre's turn of 16 × 128 two-byte tiles (the DRE's tile of
// the transposes), a 2 MiB stream.
func BenchmarkTurn(b *testing.B) {
	const h, w, tiles = 16, 128, 512
	in, out := make([]byte, tiles*h*w*2), make([]byte, tiles*h*w*2)
	for i := range in {
		in[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		for o := 0; o < len(in); o += h * w * 2 {
			turn(out[o:], in[o:], h, w, 2)
		}
	}
}

// BenchmarkTurnStride: the register turn of a gather-transpose's shape
// (turnTiles: 4096 rows of 256 two-byte elements strewn over a 32 MiB
// table, stacks of 16 tiles of 16 rows, into 256 destinations S bytes
// apart), one block and two (oneSet): destinations a multiple of 4 KiB
// apart all fall in one L1 set.
func BenchmarkTurnStride(b *testing.B) {
	table := make([]byte, 32<<20)
	for i := range table {
		table[i] = byte(i * 7)
	}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]byte, 4096)
	for j := range rows {
		o := r.IntN(65536) * 512
		rows[j] = table[o : o+512]
	}
	const m = 16 // tiles a stack (stackBytes)
	for _, S := range []int{8192, 8192 + 64, 8192 + 128, 12288, 16384, 32768} {
		dst := make([]byte, 256*S)
		for _, k := range []int{1, 2} {
			b.Run(fmt.Sprintf("S%d/blocks%d", S, k), func(b *testing.B) {
				colp, rowp := make([]unsafe.Pointer, 256), make([]unsafe.Pointer, m*16)
				b.SetBytes(4096 * 512)
				for b.Loop() {
					for t := 0; t < 256; t += m {
						for c := range colp {
							colp[c] = unsafe.Pointer(&dst[c*S+t*32])
						}
						for i := range rowp {
							rowp[i] = unsafe.Pointer(&rows[t*16+i][0])
						}
						turnPtrs(colp, rowp, 256, m*16, k)
					}
				}
			})
		}
	}
}
