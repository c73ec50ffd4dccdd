package sdma

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"strings"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// word assembles and decodes one word.
func word(t testing.TB, gen isa.Gen, src string) isa.Inst { return *testutil.Word(t, gen, src) }

func lower(t testing.TB, gen isa.Gen, src string, opt dge.Options) *dge.Program {
	t.Helper()
	in := word(t, gen, src)
	p, err := dge.Lower(&in, gen, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return p
}

// neuron maps a descriptor's SoC address back (field-tables §11.2, core 0).
func neuron(soc uint64) uint64 {
	switch {
	case soc >= 0x28_0200_0000 && soc < 0x28_0200_0000+0x400000:
		return soc - 0x28_0200_0000 + 0x2000000
	case soc >= 0x20_0000_0000 && soc < 0x20_0800_0000:
		return soc - 0x20_0000_0000
	}
	return soc
}

// bytesOf lists the Neuron byte addresses a descriptor list covers, in order
// (the completion descriptor, with INT_EN, left out).
func bytesOf(ds []Desc) []uint64 {
	var out []uint64
	for i := range ds {
		if ds[i].IntEn() {
			continue
		}
		a := neuron(ds[i].BufPtr())
		for k := 0; k < ds[i].Length(); k++ {
			out = append(out, a+uint64(k))
		}
	}
	return out
}

// pairs is the independent oracle: which src byte lands on which dst byte,
// from the word's meaning (field-tables §11.3, §11.5), walked naively.
type pairs map[[2]uint64]int

func walk2D(start uint64, num [2]int, step [2]int64, es int) []uint64 {
	var out []uint64
	for i1 := 0; i1 < num[1]; i1++ {
		for i0 := 0; i0 < num[0]; i0++ {
			e := uint64(int64(start) + int64(i0)*step[0] + int64(i1)*step[1])
			for b := 0; b < es; b++ {
				out = append(out, e+uint64(b))
			}
		}
	}
	return out
}

func zip(t *testing.T, s, d []uint64) pairs {
	t.Helper()
	if len(s) != len(d) {
		t.Fatalf("streams of %d and %d bytes", len(s), len(d))
	}
	p := pairs{}
	for i := range s {
		p[[2]uint64{s[i], d[i]}]++
	}
	return p
}

// expanded pairs the M2S and S2M bytes of every channel.
func expanded(t *testing.T, lw *Lowered) pairs {
	t.Helper()
	all := pairs{}
	for _, q := range lw.Queues {
		for k, v := range zip(t, bytesOf(q.M2S), bytesOf(q.S2M)) {
			all[k] += v
		}
	}
	return all
}

func samePairs(t *testing.T, what string, got, want pairs) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d byte pairs, want %d", what, len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: src byte %#x → dst %#x moved %d times, want %d", what, k[0], k[1], got[k], v)
		}
	}
}

// runsOf counts the maximal contiguous runs of a byte sequence, cut at 64 KiB.
func runsOf(bs []uint64) int {
	n, length := 0, 0
	for i, b := range bs {
		if i == 0 || b != bs[i-1]+1 || length == MaxRun {
			n++
			length = 0
		}
		length++
	}
	return n
}

// Random DIRECT2D words (negative steps, overlapping, several partitions and
// channels): the descriptors move exactly the bytes the walk says, src byte
// to dst byte, and each list has one descriptor per maximal run.
func TestDirect2DAgainstWalker(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 55))
	for n := 0; n < testutil.Trials(300); n++ {
		es := []int{1, 2, 4, 8, 512}[r.IntN(5)]
		num := [2]int{1 + r.IntN(16), 1 + r.IntN(20)}
		pick := func() (string, uint64, [2]int64) {
			steps := [2]int64{int64(es) * int64(r.IntN(3)-0), int64(es) * int64(num[0]) * int64(1+r.IntN(2))}
			if r.IntN(3) == 0 {
				steps[0] = int64(es)
			}
			if r.IntN(4) == 0 {
				steps[1] = -steps[1]
			}
			if r.IntN(3) == 0 { // walk partitions
				steps[1] = 0x40000 * int64(1+r.IntN(2))
				return fmt.Sprintf("sbuf:0:0x%x", es*64), uint64(es * 64), steps
			}
			return fmt.Sprintf("hbm:0x%x", 0x100000), 0x1_0010_0000, steps
		}
		sa, sAddr, ss := pick()
		da, dAddr, ds := pick()
		src := fmt.Sprintf(`dmamemcpy src_start_addr=%s, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
  dst_start_addr=%s, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d, in_dtype=u8, out_dtype=u8, semaphore=3, sem_increment=16`,
			sa, ss[0], ss[1], num[0], num[1], es%65536, da, ds[0], ds[1], num[0], num[1], es%65536)
		p := lower(t, isa.Cayman, src, dge.Options{})
		// a walk to a negative address is an input error, not a test case
		if int64(sAddr)+ss[1]*int64(num[1]) < 0 || int64(dAddr)+ds[1]*int64(num[1]) < 0 {
			continue
		}
		lw, err := Expand(p, Options{})
		if err != nil {
			if strings.Contains(err.Error(), "not in SBUF") {
				continue
			}
			t.Fatalf("%v\n%s", err, src)
		}
		want := zip(t, walk2D(sAddr, num, ss, es), walk2D(dAddr, num, ds, es))
		samePairs(t, src, expanded(t, lw), want)
		for _, q := range lw.Queues {
			if got, want := len(q.M2S), runsOf(bytesOf(q.M2S)); got != want {
				t.Fatalf("DMA[%d]: %d M2S descriptors for %d runs\n%s", q.DMA, got, want, src)
			}
			if got, want := len(q.S2M)-1, runsOf(bytesOf(q.S2M)); got != want {
				t.Fatalf("DMA[%d]: %d S2M descriptors for %d runs\n%s", q.DMA, got, want, src)
			}
		}
	}
}

// Random transposes: dst(i0 = r, i1 = c) receives src(i0 = c, i1 = r), byte for byte.
func TestTransposeAgainstWalker(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 66))
	for n := 0; n < 60; n++ {
		es := []int{2, 4}[r.IntN(2)]
		rows, cols := 16*(1+r.IntN(4)), []int{8, 16, 32, 64}[r.IntN(4)]
		tc := cols / []int{1, 2}[r.IntN(2)]
		dt := map[int]string{2: "bf16", 4: "fp32"}[es]
		src := fmt.Sprintf(`dma_transpose in_dtype=%s, out_dtype=%s, src_start_addr=sbuf:0:0x0, src_step_elem=[%d, %d],
  src_num_elem=[%d, %d], tile_src_row_step=%d, tile_src_rows=16, tile_src_cols=%d,
  dst_start_addr=sbuf:1:0x0, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d]`,
			dt, dt, es, cols*es, cols, rows, cols*es, tc, es, rows*es, rows, cols)
		p := lower(t, isa.Cayman, src, dge.Options{})
		lw, err := Expand(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The DRE contract, walked naively: tiles of 16 rows × tc columns; M2S
		// reads a tile row by row, S2M writes it column by column, and the
		// crossbar turns the tile, so input k = r·tc + c comes out at c·16 + r.
		var m2s, s2m []uint64
		moved := pairs{}
		for rb := 0; rb < rows; rb += 16 {
			for cb := 0; cb < cols; cb += tc {
				srcAt := func(r, c int) uint64 { return uint64((c + r*cols) * es) }
				dstAt := func(r, c int) uint64 { return uint64(0x40000 + (r+c*rows)*es) }
				for r := rb; r < rb+16; r++ {
					for c := cb; c < cb+tc; c++ {
						for b := 0; b < es; b++ {
							m2s = append(m2s, srcAt(r, c)+uint64(b))
						}
					}
				}
				for c := cb; c < cb+tc; c++ {
					for r := rb; r < rb+16; r++ {
						for b := 0; b < es; b++ {
							s2m = append(s2m, dstAt(r, c)+uint64(b))
							moved[[2]uint64{srcAt(r, c) + uint64(b), dstAt(r, c) + uint64(b)}]++
						}
					}
				}
			}
		}
		q := lw.Queues[0]
		if got := bytesOf(q.M2S); fmt.Sprint(got) != fmt.Sprint(m2s) {
			t.Fatalf("M2S bytes differ from the tile walk\n%s", src)
		}
		if got := bytesOf(q.S2M); fmt.Sprint(got) != fmt.Sprint(s2m) {
			t.Fatalf("S2M bytes differ from the tile walk\n%s", src)
		}
		// and the meaning: every dst(i0 = r, i1 = c) byte comes from src(i0 = c, i1 = r)
		want := pairs{}
		for rr := 0; rr < rows; rr++ {
			for c := 0; c < cols; c++ {
				for b := 0; b < es; b++ {
					want[[2]uint64{uint64((c+rr*cols)*es + b), uint64(0x40000 + (rr+c*rows)*es + b)}]++
				}
			}
		}
		samePairs(t, src, moved, want)
		for _, q := range lw.Queues {
			if q.M2S[0].Op() != OpDRE {
				t.Fatalf("transpose descriptors are %s, want DRE", SDMAOp.Format(uint64(q.M2S[0].Op())))
			}
		}
	}
}

// INDIRECT1D gathers and scatters, GATHER_XPOSE, with random index tensors.
func TestIndexedAgainstWalker(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 77))
	for n := 0; n < 40; n++ {
		rows, lanes, es := 64, 1+r.IntN(64), 4*(1+r.IntN(8))
		idx := make([]uint32, lanes)
		for j := range idx {
			idx[j] = uint32(r.IntN(rows))
		}
		index := func(which, j int) (uint32, error) { return idx[j], nil }
		mode := []string{"SRC", "DST"}[n%2]
		srcNum, dstNum := rows, lanes
		if mode == "DST" {
			srcNum, dstNum = lanes, rows
		}
		src := fmt.Sprintf(`dma_indirect idx_num_active_channels=128, indirect_mode=%s, non_unique_dst_idx=1, src_start_addr=hbm:0x0,
  src_step_elem=%d, src_num_elem=%d, src_elem_size=%d, dst_start_addr=sbuf:2:0x0, dst_step_elem=%d, dst_num_elem=%d,
  dst_elem_size=%d, in_dtype=u8, out_dtype=u8`, mode, es, srcNum, es, es, dstNum, es)
		p := lower(t, isa.Mariana, src, dge.Options{Index: index})
		lw, err := Expand(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := pairs{}
		for j := 0; j < lanes; j++ {
			s, d := uint64(0x1_0000_0000+j*es), uint64(0x80000+int(idx[j])*es)
			if mode == "SRC" {
				s, d = uint64(0x1_0000_0000+int(idx[j])*es), uint64(0x80000+j*es)
			}
			for b := 0; b < es; b++ {
				want[[2]uint64{s + uint64(b), d + uint64(b)}]++
			}
		}
		samePairs(t, src, expanded(t, lw), want)
	}
	for n := 0; n < 20; n++ {
		nidx, l := 16*(1+r.IntN(4)), 1+r.IntN(64)
		idx := make([]uint32, nidx)
		for j := range idx {
			idx[j] = uint32(r.IntN(100))
		}
		src := fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, %d], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=sbuf:0:0x1000, dst_step_elem_1=%d,
  dst_num_elem=[%d, %d], elem_size=%d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, nidx, 2*nidx, nidx, l, 2*l)
		p := lower(t, isa.Maverick, src, dge.Options{Index: func(_, j int) (uint32, error) { return idx[j], nil }})
		lw, err := Expand(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// blocks of 16 gathered rows: M2S reads row by row, the crossbar turns
		// the block, S2M writes column k of the block as 16 consecutive elements
		var m2s, s2m []uint64
		for jb := 0; jb < nidx; jb += 16 {
			for j := jb; j < jb+16; j++ {
				for k := 0; k < l; k++ {
					a := uint64(0x1_0000_0000 + int(idx[j])*256 + 2*k)
					m2s = append(m2s, a, a+1)
				}
			}
			for k := 0; k < l; k++ {
				for j := jb; j < jb+16; j++ {
					d := uint64(0x1000 + 2*j + k*2*nidx)
					s2m = append(s2m, d, d+1)
				}
			}
		}
		q := lw.Queues[0]
		if fmt.Sprint(bytesOf(q.M2S)) != fmt.Sprint(m2s) || fmt.Sprint(bytesOf(q.S2M)) != fmt.Sprint(s2m) {
			t.Fatalf("gather transpose descriptors differ from the block walk\n%s", src)
		}
	}
}

// The NEFF word of neff.md §5.3 (x → SBUF, 128 rows of 512 B into 128
// partitions) fans out over 16 channels of 8 partitions, each adding 1 of the
// 16 to $S[24]; every descriptor is one 512-byte row.
func TestFanOutAndCompletion(t *testing.T) {
	p := lower(t, isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1],
  src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x37c00, dst_step_elem=[0x40000, 1],
  dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, dge.Options{})
	lw, err := Expand(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lw.Queues) != 16 {
		t.Fatalf("%d queues, want 16", len(lw.Queues))
	}
	total := 0
	for i, q := range lw.Queues {
		if len(q.M2S) != 1 || len(q.S2M) != 9 { // 8 rows are one contiguous 4 KiB in HBM; 8 partitions are 8 runs, + completion
			t.Fatalf("DMA[%d]: %d M2S, %d S2M descriptors", i, len(q.M2S), len(q.S2M))
		}
		done := q.S2M[len(q.S2M)-1]
		if done.BufPtr() != 0x28_0270_1800+4*24 || done.Length() != 4 || !done.IntEn() {
			t.Fatalf("DMA[%d] completion: %v", i, &done)
		}
		if !q.M2S[0].First() || !q.M2S[0].Last() || !q.S2M[0].First() || q.S2M[0].Last() || !q.S2M[7].Last() {
			t.Fatalf("DMA[%d] flags wrong", i)
		}
		if q.Doorbells[0] != (Doorbell{i, "TDRTP_inc", 1}) || q.Doorbells[1] != (Doorbell{i, "RDRTP_inc", 9}) {
			t.Fatalf("DMA[%d] doorbells %v", i, q.Doorbells)
		}
		total += p.Channels[i].SemInc
	}
	if total != 16 {
		t.Fatalf("increments add to %d, want 16", total)
	}
}

func TestBoundLayersAndRing(t *testing.T) {
	p := lower(t, isa.Cayman, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0x40000],
  src_num_elem=[64, 4], src_elem_size=4, dst_start_addr=sbuf:8:0x0, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 4],
  dst_elem_size=4, in_dtype=fp32, out_dtype=fp32, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7`, dge.Options{})
	_, err := Expand(p, Options{Regs: map[uint8]uint32{7: 0x240000}})
	if !errors.Is(err, ErrBounds) || !strings.HasPrefix(err.Error(), "S: DGE: Failed bounds check. $S[10]+=1.") {
		t.Fatalf("bounds: %v", err)
	}
	if _, err := Expand(p, Options{Regs: map[uint8]uint32{7: 0x2c00ff}}); err != nil { // the last byte, inclusive
		t.Fatalf("within bounds: %v", err)
	}
	// a ring of 2 descriptors streams 4 runs + completion in fills of at
	// most 2 per leg, each fill doorbelled before the next is written; the
	// phase of a slot is its lap's: 1, toggled per wrap (field-tables §6.2)
	lw, err := Expand(p, Options{RingSize: 2, Regs: map[uint8]uint32{7: 0xffffffff}})
	if err != nil {
		t.Fatalf("a program longer than its ring: %v", err)
	}
	q := lw.Queues[0]
	if len(q.M2S) != 4 || len(q.S2M) != 5 {
		t.Fatalf("%d M2S, %d S2M descriptors, want 4 and 5", len(q.M2S), len(q.S2M))
	}
	want := []Doorbell{{0, "TDRTP_inc", 2}, {0, "RDRTP_inc", 2}, {0, "TDRTP_inc", 2}, {0, "RDRTP_inc", 2}, {0, "RDRTP_inc", 1}}
	if fmt.Sprint(q.Doorbells) != fmt.Sprint(want) {
		t.Fatalf("doorbells %v, want %v", q.Doorbells, want)
	}
	for leg, ds := range [][]Desc{q.M2S, q.S2M} {
		for i, d := range ds {
			if want := []int{1, 1, 0, 0, 1}[i]; d.Phase() != want {
				t.Fatalf("leg %d [%d] phase %d, want %d", leg, i, d.Phase(), want)
			}
		}
	}
	// one firmware "Generating" line per fill, each within ring_ndesc (§8.3)
	if fmt.Sprint(lw.Log()) != "[P0: Generating 4 descriptors; ring_ndesc = 2 P0: Generating 4 descriptors; ring_ndesc = 2 P0: Generating 1 descriptors; ring_ndesc = 2]" {
		t.Fatalf("log %q", lw.Log())
	}
	lw, _ = Expand(p, Options{RingSize: 5, Regs: map[uint8]uint32{7: 0xffffffff}})
	for i, d := range lw.Queues[0].S2M {
		if want := 1; d.Phase() != want {
			t.Fatalf("S2M[%d] phase %d, want %d", i, d.Phase(), want)
		}
	}
	if n := len(lw.Queues[0].Doorbells); n != 2 {
		t.Fatalf("a program within its ring: %d doorbells, want 2", n)
	}
}

func TestPhaseWraps(t *testing.T) {
	ds := make([]Desc, 7)
	phase(ds, 3)
	var got []int
	for i := range ds {
		got = append(got, ds[i].Phase())
	}
	if fmt.Sprint(got) != "[1 1 1 0 0 0 1]" {
		t.Fatalf("phases %v", got)
	}
}

// The descriptor layout is a real table: 128 bits covered, the fields where
// field-tables §11.7 puts them.
func TestDescLayout(t *testing.T) {
	d := newDesc(0x200, 0x20_0000_1000, OpCME, CMECopy)
	d.setFlags(true, true, false)
	d.setPhase(1)
	want := [16]byte{0x00, 0x02, 0x00, 0x0d, 0x80, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00}
	// word0 = len 0x200 | phase 1 << 24 | first << 26 | last << 27 = 0x0d000200; word1 = CME (2) << 6 = 0x80
	if d != want {
		t.Fatalf("descriptor % x, want % x", d[:], want[:])
	}
	if Layout.Size != 16 || len(Layout.Leaves()) == 0 {
		t.Fatal("layout")
	}
}
