package sim

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

// The cases where ref and the engines once disagreed (issue 15: H1, H2,
// M8), each checked on both against values worked out by hand.

// pair is one word run on ref and on the engines from the same memory and
// registers.
type pair struct {
	t    *testing.T
	a    *ref.Machine
	b    *Machine
	g    isa.Gen
	errA error
	errB error
}

func newPair(t *testing.T, g isa.Gen) *pair {
	return &pair{t: t, a: ref.New(g), b: New(g), g: g}
}

// put writes bytes at addr on both machines.
func (p *pair) put(addr uint64, b []byte) {
	p.t.Helper()
	for _, m := range []interface{ Write(uint64, []byte) error }{p.a.Mem, p.b.Mem} {
		if err := m.Write(addr, b); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *pair) put16(addr uint64, vs ...uint16) {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	p.put(addr, b)
}

func (p *pair) put32(addr uint64, vs ...uint32) {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	p.put(addr, b)
}

func (p *pair) reg(r int, v uint32) { p.a.Regs[r], p.b.Regs[r] = v, v }

// exec runs the word on both and demands the same memory and semaphores.
func (p *pair) exec(src string) {
	p.t.Helper()
	in := word(p.t, p.g, src)
	p.errA, p.errB = p.a.Exec(in), p.b.Exec(in)
	if d, differ := mem.FirstDifference(p.a.Mem, p.b.Mem, true); differ {
		p.t.Fatalf("memory or semaphores differ (ref %v, sim %v)\n%s: %v", p.errA, p.errB, src, d)
	}
}

// ok demands that both ran.
func (p *pair) ok() {
	p.t.Helper()
	if p.errA != nil || p.errB != nil {
		p.t.Fatalf("ref %v, sim %v", p.errA, p.errB)
	}
}

// faults demands that both faulted (and memory is as it was: exec compared it).
func (p *pair) faults(refText string) {
	p.t.Helper()
	if p.errA == nil || p.errB == nil {
		p.t.Fatalf("want both to fault: ref %v, sim %v", p.errA, p.errB)
	}
	if !strings.Contains(p.errA.Error(), refText) {
		p.t.Fatalf("ref %v, want %q", p.errA, refText)
	}
}

// get reads n bytes at addr (ref's memory; exec showed the engines' is the same).
func (p *pair) get(addr uint64, n int) []byte {
	p.t.Helper()
	b := make([]byte, n)
	if err := p.a.Mem.Read(addr, b); err != nil {
		p.t.Fatal(err)
	}
	return b
}

func (p *pair) get16(addr uint64) uint16 { return binary.LittleEndian.Uint16(p.get(addr, 2)) }

// H1: a compute op whose src elements land on one dst element reads the dst
// as the writes before it left it — a read-modify-write per element, in
// stream order (RATIONALE.md, Execution).
func TestRepeatedDstComputeInStreamOrder(t *testing.T) {
	// fp32: 16 + 1 = 17; 17 + 1e8 rounds to 1e8 + 16 (fp32 spacing 8 there);
	// + 1 rounds back to 1e8 + 16; − 1e8 = 16. All reads first would give
	// 16 + (−1e8); the exact sum is 18; the reverse order 1e8 + 17 − … = 1.
	p := newPair(t, isa.Cayman)
	f := math.Float32bits
	p.put32(hbm, f(1), f(1e8), f(1), f(-1e8))
	p.put32(hbm+0x1000, f(16))
	p.exec(`dmamemcpy semaphore=3, sem_increment=16, compute_op=ADD, in_dtype=fp32, out_dtype=fp32,
  src_start_addr=hbm:0x0, src_step_elem=[4, 8], src_num_elem=[2, 2], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[0, 0], dst_num_elem=[2, 2], dst_elem_size=4`)
	p.ok()
	if got := math.Float32frombits(binary.LittleEndian.Uint32(p.get(hbm+0x1000, 4))); got != 16 {
		t.Fatalf("fp32 ADD over one dst: %v, want 16", got)
	}

	// u8: 200 + 100 + 100 + 100 = 500 = 244 mod 256; the 16 fp32
	// values k + 0.5 onto one element accumulate to 128 (+ the old 2 = 130).
	p = newPair(t, isa.Cayman)
	p.put(hbm, []byte{100, 100, 100})
	p.put(hbm+0x100, []byte{200})
	p.exec(`dmamemcpy compute_op=ADD, in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 0],
  src_num_elem=[3, 1], src_elem_size=1, dst_start_addr=hbm:0x100, dst_step_elem=[0, 0], dst_num_elem=[3, 1], dst_elem_size=1`)
	p.ok()
	if got := p.get(hbm+0x100, 1)[0]; got != 244 {
		t.Fatalf("u8 ADD over one dst: %d, want 244", got)
	}
	p = newPair(t, isa.Cayman)
	for k := 0; k < 16; k++ {
		p.put32(hbm+4*uint64(k), f(float32(k)+0.5))
	}
	p.put32(hbm+0x1000, f(2))
	p.exec(`dmamemcpy compute_op=ADD, in_dtype=fp32, out_dtype=fp32, src_start_addr=hbm:0x0, src_step_elem=[4, 16],
  src_num_elem=[4, 4], src_elem_size=4, dst_start_addr=hbm:0x1000, dst_step_elem=[0, 0], dst_num_elem=[4, 4], dst_elem_size=4`)
	p.ok()
	if got := math.Float32frombits(binary.LittleEndian.Uint32(p.get(hbm+0x1000, 4))); got != 130 {
		t.Fatalf("16 fp32 onto one element: %v, want 130", got)
	}
}

// H1 over several DMA channels: a plain u8 copy into SBUF whose dst steps
// [0x40000, 0x20000] make element (i0, i1) land on (i0, i1 + 2) − 1
// partition: the last writer in stream order wins. Partition P's byte 0 is
// written by (P, 0) and (P−1, 2), its byte 0x20000 by (P, 1) and (P−1, 3);
// element k = i0 + 16·i1 carries the value k.
func TestRepeatedDstAcrossChannels(t *testing.T) {
	p := newPair(t, isa.Cayman)
	src := make([]byte, 64)
	for k := range src {
		src[k] = byte(k)
	}
	p.put(hbm, src)
	p.exec(`dmamemcpy semaphore=1, sem_increment=16, in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 16],
  src_num_elem=[16, 4], src_elem_size=1, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 0x20000], dst_num_elem=[16, 4], dst_elem_size=1`)
	p.ok()
	for P := uint64(0); P <= 16; P++ {
		want := [2]byte{0, 16} // P = 0: only (0, 0) and (0, 1)
		if P > 0 {
			want = [2]byte{byte(P - 1 + 32), byte(P - 1 + 48)}
		}
		got := [2]byte{p.get(P*0x40000, 1)[0], p.get(P*0x40000+0x20000, 1)[0]}
		if got != want {
			t.Fatalf("partition %d: bytes 0, 0x20000 = %d, want %d", P, got, want)
		}
	}
	if p.a.Mem.Sems[1] != 16 {
		t.Fatalf("$S[1] = %d", p.a.Mem.Sems[1])
	}
}

func le32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// gatherSetup: 64 src rows of L = 4 bf16 elements at hbm + 8·v (element k of
// row v holds 0x100·v + k), 16 indices idx[j] = j + 1 except those given;
// index j at partition j, offset 0x100 (128 channels).
func gatherSetup(p *pair, special map[int]uint32) []uint32 {
	for v := 0; v < 64; v++ {
		p.put16(hbm+8*uint64(v), uint16(0x100*v), uint16(0x100*v+1), uint16(0x100*v+2), uint16(0x100*v+3))
	}
	idx := make([]uint32, 16)
	for j := range idx {
		idx[j] = uint32(j + 1)
		if v, ok := special[j]; ok {
			idx[j] = v
		}
		p.put32(uint64(j)*0x40000+0x100, idx[j])
	}
	// the dst (SBUF partition 1: a 32-bit bound register reaches it) starts as 0xeeee
	fill := make([]uint16, 16*4)
	for i := range fill {
		fill[i] = 0xeeee
	}
	p.put16(0x40000, fill...)
	return idx
}

// dst(j, k) at sbuf:1 + 2·j + 32·k.
const gatherWord = `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 8],
  src_num_elem=[4, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:1:0x0, dst_step_elem_1=32,
  dst_num_elem=[16, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`

// H2: DMA_GATHER_TRANSPOSE's src_idx_bound_reg and dst_bound_reg, quiet and
// error, on both executors.
func TestGatherTransposeBounds(t *testing.T) {
	check := func(p *pair, idx []uint32, written func(j, k int) bool) {
		t.Helper()
		for k := 0; k < 4; k++ {
			for j := 0; j < 16; j++ {
				want := uint16(0xeeee)
				if written(j, k) {
					want = uint16(0x100*idx[j]) + uint16(k)
				}
				if got := p.get16(0x40000 + 2*uint64(j) + 32*uint64(k)); got != want {
					t.Fatalf("dst(%d, %d) = %#x, want %#x", j, k, got, want)
				}
			}
		}
	}
	all := func(j, k int) bool { return true }

	// the index bound in error mode: index 53 > r3 = 10 faults, nothing moves
	p := newPair(t, isa.Cayman)
	gatherSetup(p, map[int]uint32{5: 53})
	p.reg(3, 60)
	p.exec(gatherWord + `, src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=3`)
	p.ok() // 53 ≤ 60
	p = newPair(t, isa.Cayman)
	gatherSetup(p, map[int]uint32{5: 53})
	p.reg(3, 10)
	p.exec(gatherWord + `, src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=3`)
	p.faults("index 53 > limit r3 = 10")

	// quiet: lane 5 (index 53) and lane 7 (index 0xffffffff) are skipped, the rest moves
	p = newPair(t, isa.Cayman)
	idx := gatherSetup(p, map[int]uint32{5: 53, 7: 0xffffffff})
	p.reg(3, 20)
	p.exec(gatherWord + `, src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=3, src_idx_bound_reg.bc_disable_oob_error_notif=1`)
	p.ok()
	check(p, idx, func(j, k int) bool { return j != 5 && j != 7 })
	if p.a.Mem.Sems[0] != 1 {
		t.Fatalf("$S[0] = %d", p.a.Mem.Sems[0])
	}

	// index 0xffffffff with no bound enabled is past any row: an error
	p = newPair(t, isa.Cayman)
	gatherSetup(p, map[int]uint32{7: 0xffffffff})
	p.exec(gatherWord)
	p.faults("index 4294967295")

	// dst_bound_reg: the last byte of dst(j, k) is 0x40001 + 2j + 32k; r4 =
	// 0x40049 passes every element of columns 0, 1 and column 2's rows 0–4
	for _, quiet := range []bool{false, true} {
		p = newPair(t, isa.Cayman)
		idx = gatherSetup(p, nil)
		p.reg(4, 0x40049)
		w := gatherWord + `, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4`
		if quiet {
			w += `, dst_bound_reg.bc_disable_oob_error_notif=1`
		}
		p.exec(w)
		if !quiet {
			p.faults("limit r4 = 0x40049")
			continue
		}
		p.ok()
		check(p, idx, func(j, k int) bool { return k < 2 || k == 2 && j <= 4 })
	}

	// both bounds quiet: lane 3 past r3 = 40, and the dst past r4
	p = newPair(t, isa.Cayman)
	idx = gatherSetup(p, map[int]uint32{3: 41})
	p.reg(3, 40)
	p.reg(4, 0x40049)
	p.exec(gatherWord + `, src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=3, src_idx_bound_reg.bc_disable_oob_error_notif=1,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4, dst_bound_reg.bc_disable_oob_error_notif=1`)
	p.ok()
	check(p, idx, func(j, k int) bool { return j != 3 && (k < 2 || k == 2 && j <= 4) })

	// in bounds everywhere: everything moves
	p = newPair(t, isa.Cayman)
	idx = gatherSetup(p, nil)
	p.reg(3, 63)
	p.reg(4, 0xffffffff)
	p.exec(gatherWord + `, src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=3, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4`)
	p.ok()
	check(p, idx, all)
}

// M8: DMA_TRANSPOSE with quiet (and error) bound registers on both legs: a
// 16 × 4 bf16 block, src(c, r) at sbuf:0 + 2c + 8r holding 0x100·r + c,
// dst(r, c) at sbuf:1 + 2r + 32c.
func TestTransposeBounds(t *testing.T) {
	const w = `dma_transpose semaphore=2, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 8],
  src_num_elem=[4, 16], tile_src_rows=16, tile_src_cols=4, tile_src_row_step=8, dst_start_addr=sbuf:1:0x0,
  dst_step_elem=[2, 32], dst_num_elem=[16, 4]`
	setup := func() *pair {
		p := newPair(t, isa.Cayman)
		for r := 0; r < 16; r++ {
			p.put16(8*uint64(r), uint16(0x100*r), uint16(0x100*r+1), uint16(0x100*r+2), uint16(0x100*r+3))
		}
		fill := make([]uint16, 64)
		for i := range fill {
			fill[i] = 0xeeee
		}
		p.put16(0x40000, fill...)
		return p
	}
	check := func(p *pair, written func(r, c int) bool) {
		t.Helper()
		for c := 0; c < 4; c++ {
			for r := 0; r < 16; r++ {
				want := uint16(0xeeee)
				if written(r, c) {
					want = uint16(0x100*r + c)
				}
				if got := p.get16(0x40000 + 2*uint64(r) + 32*uint64(c)); got != want {
					t.Fatalf("dst(%d, %d) = %#x, want %#x", r, c, got, want)
				}
			}
		}
	}
	// dst: last byte of dst(r, c) is 0x40001 + 2r + 32c; r4 = 0x40049 passes
	// columns 0, 1 and rows 0–4 of column 2
	dstOK := func(r, c int) bool { return c < 2 || c == 2 && r <= 4 }
	// src: last byte of src(c, r) is 2c + 8r + 1; r5 = 0x55 passes rows 0–9
	// and columns 0–2 of row 10
	srcOK := func(r, c int) bool { return r <= 9 || r == 10 && c <= 2 }
	for _, quiet := range []bool{false, true} {
		q := ""
		if quiet {
			q = ", dst_bound_reg.bc_disable_oob_error_notif=1"
		}
		p := setup()
		p.reg(4, 0x40049)
		p.exec(w + `, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4` + q)
		if !quiet {
			p.faults("limit r4 = 0x40049")
		} else {
			p.ok()
			check(p, dstOK)
		}
		p = setup()
		p.reg(5, 0x55)
		p.exec(w + strings.ReplaceAll(`, src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=5`+q, "dst_bound", "src_bound"))
		if !quiet {
			p.faults("limit r5 = 0x55")
		} else {
			p.ok()
			check(p, srcOK)
		}
	}
	// both quiet
	p := setup()
	p.reg(4, 0x40049)
	p.reg(5, 0x55)
	p.exec(w + `, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4, dst_bound_reg.bc_disable_oob_error_notif=1,
  src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=5, src_bound_reg.bc_disable_oob_error_notif=1`)
	p.ok()
	check(p, func(r, c int) bool { return dstOK(r, c) && srcOK(r, c) })
	if p.a.Mem.Sems[2] != 1 {
		t.Fatalf("$S[2] = %d", p.a.Mem.Sems[2])
	}
	// a quiet src bound and an erroring dst bound: a dst element past its
	// limit is an error even where its src element was skipped
	p = setup()
	p.reg(4, 0x40049)
	p.reg(5, 0x55)
	p.exec(w + `, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4,
  src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=5, src_bound_reg.bc_disable_oob_error_notif=1`)
	p.faults("limit r4 = 0x40049")
}

// M8: quiet bounds on a DIRECT2D whose element sizes differ (4-byte src
// elements, 8-byte dst elements) or that casts: a dst element is written
// only when it is within its bound and every src byte it takes is too.
func TestQuietBoundsUnequalSizes(t *testing.T) {
	// src: 8 u32 at sbuf:0 + 4i holding 100 + i; dst: 4 8-byte elements at
	// sbuf:1 + 16k (each takes src elements 2k, 2k + 1)
	const w = `dmamemcpy semaphore=3, sem_increment=1, in_dtype=%s, out_dtype=%s, src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0],
  src_num_elem=[8, 1], src_elem_size=4, dst_start_addr=sbuf:1:0x0, dst_step_elem=[16, 0], dst_num_elem=[%d, 1], dst_elem_size=8,
  src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=5, src_bound_reg.bc_disable_oob_error_notif=1,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4, dst_bound_reg.bc_disable_oob_error_notif=1`
	setup := func() *pair {
		p := newPair(t, isa.Cayman)
		for i := 0; i < 8; i++ {
			p.put32(4*uint64(i), uint32(100+i))
		}
		p.put32(0x40000, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee,
			0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee)
		return p
	}
	// r5 = 0x16: src elements 0–4 pass (element 5's last byte is 0x17);
	// r4 = 0x40037: dst elements 0–2 pass (element 3 ends at 0x40037 too:
	// 0x40030 + 7), so r4 = 0x40036 stops element 3
	p := setup()
	p.reg(5, 0x16)
	p.reg(4, 0x40036)
	p.exec(fmt.Sprintf(w, "u32", "u32", 4))
	p.ok()
	// dst 0 ← src 0, 1; dst 1 ← src 2, 3; dst 2 ← src 4, 5 (5 skipped: untouched); dst 3 past r4
	want := le32(100, 101, 0xeeeeeeee, 0xeeeeeeee, 102, 103, 0xeeeeeeee, 0xeeeeeeee,
		0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee)
	if got := p.get(0x40000, 64); !reflect.DeepEqual(got, want) {
		t.Fatalf("unequal sizes:\n got % x\nwant % x", got, want)
	}
	if p.a.Mem.Sems[3] != 1 {
		t.Fatalf("$S[3] = %d", p.a.Mem.Sems[3])
	}
	// a cast u32 → u16: dst element k (8 bytes) holds 4 u16 scalars, from
	// src elements 4k … 4k + 3; only dst 0 has all its src (0–3 ≤ r5's 4)
	p = setup()
	p.reg(5, 0x16)
	p.reg(4, 0x40036)
	p.exec(fmt.Sprintf(w, "u32", "u16", 2))
	p.ok()
	got := p.get(0x40000, 32)
	want = append([]byte{100, 0, 101, 0, 102, 0, 103, 0}, le32(0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee, 0xeeeeeeee)...)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("quiet bounds through a cast:\n got % x\nwant % x", got, want)
	}
}

// Issue 17: a word that validates is not refused for the DGE ring's size —
// its descriptors stream through the 4096-entry rings fill by fill
// (RATIONALE "Rings"). The two cases at their full sizes, each on
// ref and the engines, and checked against the bytes worked out here.
func TestLongerThanTheRing(t *testing.T) {
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i>>9) // not periodic in 64 or 128 bytes
		}
		return b
	}
	// strided: 8 × 65,535 rows of 64 B, every other one: 524,280 runs a leg
	p := newPair(t, isa.Cayman)
	src := fill(8 * 65535 * 128)
	p.put(hbm, src)
	p.exec(`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 8388480], src_num_elem=[65535, 8], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 4194240], dst_num_elem=[65535, 8], dst_elem_size=64, in_dtype=u8, out_dtype=u8`)
	p.ok()
	got := p.get(hbm+0x10000000, 8*65535*64)
	for r := 0; r < 8*65535; r++ { // dst row r = src row 2r (src rows of 64 B every 128)
		if !reflect.DeepEqual(got[64*r:64*r+64], src[128*r:128*r+64]) {
			t.Fatalf("strided: dst row %d differs from src row %d", r, 2*r)
		}
	}
	// 2-byte transpose HBM [65,520 × 128] → SBUF 128 partitions × 65,520:
	// dst(partition c, element r) = src(row r, column c)
	p = newPair(t, isa.Cayman)
	src = fill(65520 * 128 * 2)
	p.put(hbm, src)
	p.exec(`dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 65520], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[2, 0x40000], dst_num_elem=[65520, 128]`)
	p.ok()
	for _, c := range []int{0, 1, 77, 127} {
		part := p.get(uint64(c)*0x40000, 65520*2)
		for r := 0; r < 65520; r++ {
			if part[2*r] != src[256*r+2*c] || part[2*r+1] != src[256*r+2*c+1] {
				t.Fatalf("transpose: partition %d element %d = %#x, want src row %d column %d", c, r, part[2*r:2*r+2], r, c)
			}
		}
	}
}

// A DMA_GATHER_TRANSPOSE of two types, of a 4-byte type, or whose dst shape
// is not {N, elem_size/2} (field-tables §11.5) is refused by both, under
// the same rule, and changes nothing; the shape they agree on runs.
func TestGatherTransposeShapeRefusedAlike(t *testing.T) {
	word := func(dt string, dn0, dn1 int) string {
		return fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=16, src_start_addr=hbm:0x0, src_step_elem=[2, 64],
  src_num_elem=[32, 64], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=sbuf:0:0x1000, dst_step_elem_1=0x40000,
  dst_num_elem=[%d, %d], elem_size=64, %s, gather_dim=Y`, dn0, dn1, dt)
	}
	for _, tc := range []struct {
		src, rule string
	}{
		{word("dtype_lo=bf16, dtype_hi=fp16", 64, 32), "is_valid_dma_gather_transpose_dtype"},
		{word("dtype_lo=fp32, dtype_hi=fp32", 64, 32), "is_valid_dma_gather_transpose_dtype"},
		{word("dtype_lo=bf16, dtype_hi=bf16", 64, 64), "is_valid_dma_gather_transpose_num_idx"},
		{word("dtype_lo=bf16, dtype_hi=bf16", 32, 32), "is_valid_dma_gather_transpose_num_idx"},
		{word("dtype_lo=bf16, dtype_hi=bf16", 64, 32), ""},
	} {
		p := newPair(t, isa.Cayman)
		p.exec(tc.src)
		if tc.rule == "" {
			p.ok()
			continue
		}
		p.faults(tc.rule)
		if !strings.Contains(p.errB.Error(), tc.rule) {
			t.Fatalf("sim %v, want the rule %s", p.errB, tc.rule)
		}
	}
}

// A DMA_TRANSPOSE that casts (000 §8d: in == out) or moves a type other
// than 2 or 4 bytes (ndma's tile model) is refused by both under ref's
// rule, and changes nothing (FuzzExecDiffRaw found the engines running
// them).
func TestTransposeDtypeRefusedAlike(t *testing.T) {
	for _, tc := range []struct{ dt, rule string }{
		{"in_dtype=bf16, out_dtype=fp16", "has_valid_xpose_dtypes_temporary"},
		{"in_dtype=u8, out_dtype=u8", "has_valid_xpose_dtype_size"},
	} {
		p := newPair(t, isa.Cayman)
		p.exec(`dma_transpose ` + tc.dt + `, src_start_addr=hbm:0x0, src_step_elem=[1, 64],
  src_num_elem=[64, 64], tile_src_row_step=64, tile_src_rows=16, tile_src_cols=32, dst_start_addr=hbm:0x10000,
  dst_step_elem=[1, 64], dst_num_elem=[64, 64]`)
		p.faults(tc.rule)
		if !strings.Contains(p.errB.Error(), tc.rule) {
			t.Fatalf("sim %v, want the rule %s", p.errB, tc.rule)
		}
	}
}

// H4: DMA_INDIRECT's non_unique_dst_idx 0 forbids repeated destination
// indices (field-tables §11.5: "Duplicate destination indices without
// non_unique_dst_idx are a runtime error"), not repeated addresses: a
// scatter of 8 u32 lanes with indices 0..7 and dst_step_elem 0 runs on
// both — every lane onto one element, the last one's value stays — and
// repeated indices fault on both at the lane that repeats, naming the lane
// it repeats (the engines compared addresses: lane 1 of the first).
func TestUniqueDstIndicesNotAddresses(t *testing.T) {
	for _, tc := range []struct {
		idx  []uint32
		step int
		want string // "": runs
	}{
		{[]uint32{0, 1, 2, 3, 4, 5, 6, 7}, 0, ""},
		{[]uint32{0, 1, 2, 3, 4, 5, 6, 7}, 4, ""},
		{[]uint32{0, 1, 2, 1, 4, 5, 6, 7}, 0, "DMA_INDIRECT lane 3: non_unique_dst_idx: dst index 1 repeats lane 1 and non_unique_dst_idx is 0"},
		{[]uint32{3, 1, 2, 3, 1, 5, 6, 7}, 0, "DMA_INDIRECT lane 3: non_unique_dst_idx: dst index 3 repeats lane 0 and non_unique_dst_idx is 0"},
		{[]uint32{3, 1, 2, 3, 1, 5, 6, 7}, 4, "DMA_INDIRECT lane 3: non_unique_dst_idx: dst index 3 repeats lane 0 and non_unique_dst_idx is 0"},
	} {
		for _, exact := range []bool{false, true} {
			p := newPair(t, isa.Cayman)
			p.b.exact = exact
			for j, v := range tc.idx {
				p.put32(uint64(j)*0x40000+0x400, v)
			}
			p.put32(hbm, 1, 2, 3, 4, 5, 6, 7, 8)
			p.exec(fmt.Sprintf(`dma_indirect idx_num_active_channels=8, indirect_mode=DST, non_unique_dst_idx=0, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=8, src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=%d, dst_num_elem=8, dst_elem_size=4, dst_idx_start_addr=sbuf:0:0x400, in_dtype=u32, out_dtype=u32`, tc.step))
			if tc.want == "" {
				p.ok()
				if tc.step == 0 && binary.LittleEndian.Uint32(p.get(hbm+0x1000, 4)) != 8 {
					t.Fatalf("%v: dst %v, want the last lane's 8", tc.idx, p.get(hbm+0x1000, 4))
				}
				continue
			}
			p.faults(tc.want)
			if p.errB.Error() != p.errA.Error() {
				t.Fatalf("%v step %d: sim %v, ref %v", tc.idx, tc.step, p.errB, p.errA)
			}
		}
	}
}

// M8: a DGE word with a count of 0 moves nothing: ref ran it as a zero-byte
// move (its semaphore raised), the engines' lowering refused it; a step of
// a multi-element dimension that is no whole number of elements: ref ran
// it, the lowering refused it (DIMPUSH counts in elements). Both refuse both
// now, under one rule and in one text (control.ShapeRules; validate too);
// SUNDA, whose POOL kernel writes byte descriptors, runs byte steps on both.
func TestCountsAndStepsRefusedAlike(t *testing.T) {
	for _, tc := range []struct {
		g    isa.Gen
		src  string
		want string // "": both run
	}{
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[0, 1], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[4, 512], dst_num_elem=[0, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`,
			"DMAMEMCPY: has_valid_num_elem: src_num_elem[0] = 0: must not be 0"},
		{isa.Sunda, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[4, 0], src_num_elem=[4, 0], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[4, 0], dst_num_elem=[0, 4], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`,
			"DMAMEMCPY: has_valid_num_elem: src_num_elem[1] = 0: must not be 0"},
		{isa.Cayman, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 0],
  tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[0, 128]`,
			"DMA_TRANSPOSE: has_valid_num_elem: src_num_elem[1] = 0: must not be 0"},
		{isa.Cayman, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=DST,
  src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=0, src_elem_size=512,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=512, dst_num_elem=4, dst_elem_size=512, dst_idx_start_addr=sbuf:0:0x2000, in_dtype=fp16, out_dtype=fp16`,
			"DMA_INDIRECT: has_valid_num_elem: src_num_elem = 0: must not be 0"},
		{isa.Cayman, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x10000,
  src_step_elem=[2, 256], src_num_elem=[128, 0], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=128, dst_num_elem=[0, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`,
			"DMA_GATHER_TRANSPOSE: has_valid_num_elem: src_num_elem[1] = 0: must not be 0"},
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[3, 512], src_num_elem=[8, 1], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[4, 512], dst_num_elem=[8, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`,
			"DMAMEMCPY: has_whole_elem_steps: src_step_elem[0] = 3: must be a multiple of the 4-byte element"},
		{isa.Mariana, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=128, src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=3, dst_num_elem=4, dst_elem_size=4, src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp32, out_dtype=fp32`,
			"DMA_INDIRECT: has_whole_elem_steps: dst_step_elem = 3: must be a multiple of the 4-byte element"},
		{isa.Cayman, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[16, 16],
  tile_src_row_step=256, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[3, 128], dst_num_elem=[16, 16]`,
			"DMA_TRANSPOSE: has_whole_elem_steps: dst_step_elem[0] = 3: must be a multiple of the 2-byte element"},
		{isa.Sunda, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[3, 512], src_num_elem=[8, 1], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[4, 512], dst_num_elem=[8, 1], dst_elem_size=4, in_dtype=u8, out_dtype=u8`, ""},
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[3, 512], src_num_elem=[1, 8], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[5, 4], dst_num_elem=[1, 8], dst_elem_size=4, in_dtype=u8, out_dtype=u8`, ""}, // one-element dimensions never step
	} {
		p := newPair(t, tc.g)
		src := make([]byte, 64)
		for k := range src {
			src[k] = byte(k + 1)
		}
		p.put(hbm, src)
		p.exec(tc.src)
		if tc.want == "" {
			p.ok()
			continue
		}
		p.faults(tc.want)
		if p.errA.Error() != p.errB.Error() {
			t.Fatalf("%s: ref %v, sim %v", tc.src, p.errA, p.errB)
		}
	}
}

// L1: DMA_TRANSPOSE and DMA_GATHER_TRANSPOSE do not exist on SUNDA (000
// §3d, §3e: nc >= V3): ref ran them, the engines' lowering refused them;
// both refuse them, as validate does, under has_valid_opcode_for_gen.
func TestTransposesRefusedOnSunda(t *testing.T) {
	for _, src := range []string{
		`dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[16, 16],
  tile_src_row_step=256, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[16, 16]`,
		`dma_gather_transpose semaphore=6, idx_num_active_channels=16, src_start_addr=hbm:0x10000,
  src_step_elem=[2, 256], src_num_elem=[128, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=128, dst_num_elem=[16, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`,
	} {
		p := newPair(t, isa.Sunda)
		p.exec(src)
		p.faults(": has_valid_opcode_for_gen: ")
		if p.errA.Error() != p.errB.Error() {
			t.Fatalf("ref %v, sim %v", p.errA, p.errB)
		}
	}
}

// A start address held in a register pair, reg(lo, hi) = r[lo] | r[hi] << 32
// (field-tables §11.2): ref ran it, the engines refused it ("not supported
// by lowering": the lowering resolves immediates only). The engines resolve
// it at issue, as ref does, and lower the word with that immediate.
func TestRegisterAddressesRun(t *testing.T) {
	for _, tc := range []struct {
		g    isa.Gen
		src  string
		want string // "": both run
	}{
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8, src_start_addr=reg(r4, r5), src_step_elem=[1, 64],
  src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1`, ""},
		{isa.Mariana, `dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 16],
  src_num_elem=[16, 4], src_elem_size=1, dst_start_addr=reg(r6, r7), dst_step_elem=[1, 0x40000], dst_num_elem=[16, 4], dst_elem_size=1`, ""},
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8, src_start_addr=reg(r4, r70), src_step_elem=[1, 64],
  src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1`,
			"DMAMEMCPY: src_start_addr: register r4/r70: there are 64"},
		{isa.Cayman, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=reg(r4, r5), src_step_elem=[2, 32], src_num_elem=[16, 16],
  tile_src_row_step=32, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 0x40000], dst_num_elem=[16, 16]`, ""},
	} {
		p := newPair(t, tc.g)
		src := make([]byte, 1024)
		for k := range src {
			src[k] = byte(k*7 + 1)
		}
		p.put(hbm, src)
		p.reg(4, 0x0)
		p.reg(5, 0x1) // r5:r4 = hbm:0x0
		p.reg(6, 0x40000*3+0x20)
		p.reg(7, 0) // r7:r6 = sbuf:3:0x20
		p.exec(tc.src)
		if tc.want == "" {
			p.ok()
			continue
		}
		p.faults(tc.want)
		if p.errA.Error() != p.errB.Error() {
			t.Fatalf("%s: ref %v, sim %v", tc.src, p.errA, p.errB)
		}
	}
	p := newPair(t, isa.Cayman) // the bytes as worked out: hbm 0x0.. onto 0x1000..
	src := []byte("sixty-four bytes of a register-addressed source, moved at issue.")
	p.put(hbm, src)
	p.reg(5, 1)
	p.exec(`dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8, src_start_addr=reg(r4, r5), src_step_elem=[1, 64],
  src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1`)
	p.ok()
	if got := p.get(hbm+0x1000, 64); string(got) != string(src) || p.b.Mem.Sems[1] != 1 {
		t.Fatalf("dst %q, $S[1] %d", got, p.b.Mem.Sems[1])
	}
}
