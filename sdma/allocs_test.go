package sdma

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// Issue 17: lowering allocates per word, never per descriptor or micro-op.
// Two HBM → HBM copies of rows 512 bytes apart (each row its own run, so
// one M2S and one S2M descriptor a row, field-tables §11.7's maximal runs)
// differ only in their row count, 64 and 4096; the count of allocations of
// the whole lowering (dge.Lower + Expand) must not differ between them,
// though the second has 64 × the descriptors.
func TestLowerAllocsPerWord(t *testing.T) {
	allocs := func(rows int) (float64, int) {
		in := word(t, isa.Cayman, fmt.Sprintf(`dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[1, 512],
  src_num_elem=[256, %d], src_elem_size=1, dst_start_addr=hbm:0x1000000, dst_step_elem=[1, 512], dst_num_elem=[256, %d],
  dst_elem_size=1, in_dtype=u8, out_dtype=u8`, rows, rows))
		var n int
		a := testing.AllocsPerRun(20, func() {
			_, lw, err := Lower(&in, isa.Cayman, dge.Options{}, Options{RingSize: 1 << 16})
			if err != nil {
				t.Fatal(err)
			}
			n = 0
			for _, q := range lw.Queues {
				n += len(q.M2S) + len(q.S2M)
			}
		})
		return a, n
	}
	small, ns := allocs(64)
	large, nl := allocs(4096)
	if ns != 2*64+1 || nl != 2*4096+1 { // a descriptor a row on each leg, and the completion
		t.Fatalf("descriptors %d and %d, want %d and %d", ns, nl, 2*64+1, 2*4096+1)
	}
	if large != small {
		t.Errorf("allocations: %v for %d descriptors, %v for %d: lowering allocates per descriptor", small, ns, large, nl)
	}
}

// reuseWords are the words the reuse tests lower one after another: rows
// a descriptor each, a transpose in SBUF, and 16 channels of 64 KiB.
var reuseWords = []string{
	`dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[1, 512], src_num_elem=[256, 300], src_elem_size=1,
  dst_start_addr=hbm:0x1000000, dst_step_elem=[1, 512], dst_num_elem=[256, 300], dst_elem_size=1, in_dtype=u8, out_dtype=u8`,
	`dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000,
  dst_step_elem=[2, 128], dst_num_elem=[64, 128]`,
	`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[16, 1], src_elem_size=0,
  dst_start_addr=hbm:0x1000000, dst_step_elem=[0x10000, 0], dst_num_elem=[16, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8`,
}

// A Slab kept from expansion to expansion gives every expansion the lists
// a fresh one gives (the listing, byte for byte), and its pages are reused:
// the second expansion of a word allocates no descriptor memory.
func TestSlabReuse(t *testing.T) {
	var slab []Desc
	for round := range 2 {
		for _, src := range reuseWords {
			in := word(t, isa.Cayman, src)
			_, fresh, err := Lower(&in, isa.Cayman, dge.Options{}, Options{RingSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			_, kept, err := Lower(&in, isa.Cayman, dge.Options{}, Options{RingSize: 64, Slab: &slab})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := string(fresh.AppendListing(nil)), string(kept.AppendListing(nil)); a != b {
				t.Fatalf("round %d: the listing through a kept slab differs:\n%s\nfresh:\n%s", round, b, a)
			}
			if cap(slab) == 0 || &kept.Queues[0].M2S[0] != &slab[:1][0] {
				t.Fatalf("round %d: the lists are not cut from the kept slab", round)
			}
		}
	}
}

// With Into and Slab kept, and the program lowered into a kept one (as
// `neff lower` lowers word after word), every expansion lists what a fresh
// one lists — descriptors, doorbells, the firmware's lines — and, once the
// storage has grown to the largest word, lowering a word allocates nothing.
func TestIntoReuse(t *testing.T) {
	var (
		prog  dge.Program
		slab  []Desc
		into  Lowered
		insts []isa.Inst
	)
	opt := Options{RingSize: 64, Slab: &slab, Into: &into}
	for _, src := range reuseWords {
		insts = append(insts, word(t, isa.Cayman, src))
	}
	for round := range 2 {
		for i := range insts {
			_, fresh, err := Lower(&insts[i], isa.Cayman, dge.Options{}, Options{RingSize: 64})
			if err != nil {
				t.Fatal(err)
			}
			_, kept, err := LowerInto(&prog, &insts[i], isa.Cayman, dge.Options{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if kept != &into {
				t.Fatalf("round %d word %d: Expand did not fill Into", round, i)
			}
			if a, b := string(fresh.AppendListing(nil)), string(kept.AppendListing(nil)); a != b {
				t.Fatalf("round %d word %d: the listing through Into differs:\n%s\nfresh:\n%s", round, i, b, a)
			}
			if a, b := fmt.Sprint(fresh.Log()), fmt.Sprint(kept.Log()); a != b {
				t.Fatalf("round %d word %d: the firmware lines through Into differ:\n%s\nfresh:\n%s", round, i, b, a)
			}
			for q := range fresh.Queues {
				if a, b := fmt.Sprint(fresh.Queues[q].Doorbells), fmt.Sprint(kept.Queues[q].Doorbells); a != b {
					t.Fatalf("round %d word %d queue %d: doorbells %s through Into, %s fresh", round, i, q, b, a)
				}
			}
		}
	}
	for i := range insts {
		if a := testing.AllocsPerRun(10, func() {
			if _, _, err := LowerInto(&prog, &insts[i], isa.Cayman, dge.Options{}, opt); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("word %d: %v allocations a lowering through kept storage, want 0", i, a)
		}
	}
}

// Two words lowered one after the other through one Into and Slab — one
// channel needing more than either channel of the other — allocate
// nothing once grown: the kept storage does not shrink to the smaller
// word's and grow back (rows 1000: the doorbells would; 600: the slab).
func TestIntoAlternating(t *testing.T) {
	for _, rows := range []int{1000, 600} {
		x := word(t, isa.Cayman, fmt.Sprintf(`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[1, 512], src_num_elem=[256, %d], src_elem_size=1,
  dst_start_addr=hbm:0x1000000, dst_step_elem=[1, 512], dst_num_elem=[256, %d], dst_elem_size=1, in_dtype=u8, out_dtype=u8`, rows, rows))
		y := word(t, isa.Cayman, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[1, 100], src_num_elem=[100, 16], src_elem_size=1,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=[2, 0x40000], dst_num_elem=[100, 16], dst_elem_size=1, in_dtype=u8, out_dtype=u8`) // 2 channels
		var (
			prog dge.Program
			slab []Desc
			into Lowered
		)
		opt := Options{RingSize: 64, Slab: &slab, Into: &into}
		both := func() {
			for _, in := range []*isa.Inst{&x, &y} {
				if _, _, err := LowerInto(&prog, in, isa.Cayman, dge.Options{}, opt); err != nil {
					t.Fatal(err)
				}
			}
		}
		both()
		if got := len(into.Queues); got != 2 {
			t.Fatalf("rows %d: the second word has %d channels, want 2 (the test's premise)", rows, got)
		}
		if a := testing.AllocsPerRun(10, both); a != 0 {
			t.Errorf("rows %d: %v allocations a pair of words, want 0", rows, a)
		}
	}
}

// descs takes a run's SoC address from the run before when both lie in one
// region (the SoC map is a translation per region, field-tables §11.2):
// every buf_ptr is still isa.AddressMap.SoC of its run, across regions and
// cores, and a run outside the map is still refused.
func TestDescsSoC(t *testing.T) {
	m := isa.Map(isa.Cayman)
	rs := []run{{0x40, 32}, {0x40000 + 8, 64}, {m.HBMBase, 70000}, {m.HBMBase + 1<<20, 8}, {m.PSUMBase + 0x8000, 16},
		{m.PSUMBase + 4, 4}, {0x100, 2}, {m.HBMEnd - 4, 4}, {0x7f << 18, 16}}
	for core := range 2 {
		n, _ := count(rs, 1<<20)
		slab := make([]Desc, 0, n)
		ds, err := descs(rs, m, Desc{}, core, n, 4, &slab)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, r := range rs {
			want, err := m.SoC(r.addr, core)
			if err != nil {
				t.Fatal(err)
			}
			for off := uint64(0); off < r.n; off += MaxRun {
				if got := ds[k].BufPtr(); got != want+off {
					t.Errorf("core %d run %#x+%d: buf_ptr %#x, SoC %#x", core, r.addr, off, got, want+off)
				}
				k++
			}
		}
	}
	slab := make([]Desc, 0, 2)
	if _, err := descs([]run{{0x40, 8}, {m.HBMEnd + 64, 8}}, m, Desc{}, 0, 2, 4, &slab); err == nil {
		t.Error("a run past HBM: no error")
	}
}

// descs' two-store path (twoWords) writes the descriptors the layout's
// field writers write: every length (64 KiB as 0), flag, phase and op kept.
func TestDescsTwoWords(t *testing.T) {
	if !twoWords {
		t.Fatal("the layout no longer has length at bits 0–15 and buf_ptr at bytes 8–15: descs writes through the fields")
	}
	m := isa.Map(isa.Cayman)
	rs := []run{{0x40, 32}, {m.HBMBase, 200000}, {0x40000, 65536}, {0x80000, 0}, {m.PSUMBase + 8, 8}, {0x100, 1}, {0x200, 2}, {0x300, 3}}
	tmpl := newDesc(0, 0, OpCCE, CCEMax)
	tmpl.setCCE(3, 9)
	tmpl.setPhase(1)
	var got [2][]Desc
	for k, fast := range []bool{true, false} {
		twoWords = fast
		n, _ := count(rs, 1<<20)
		slab := make([]Desc, 0, n)
		ds, err := descs(rs, m, tmpl, 1, n, 3, &slab)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = ds
	}
	twoWords = true
	if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
		t.Fatalf("two stores:\n%x\nfields:\n%x", got[0], got[1])
	}
}

// Head decodes what the layout's fields hold (field-tables §6.1 as the
// table places them): random descriptors, every field read both ways.
func TestHeadIsTheLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	for range 2000 {
		var d Desc
		for i := range d {
			d[i] = byte(r.Uint32())
		}
		n, ph, op, ty, buf := d.Head()
		if n != d.Length() || ph != d.Phase() || op != d.Op() || ty != d.OpType() || buf != d.BufPtr() {
			t.Fatalf("% x: Head %d %d %d %d %#x, fields %d %d %d %d %#x", d[:], n, ph, op, ty, buf, d.Length(), d.Phase(), d.Op(), d.OpType(), d.BufPtr())
		}
	}
}

// legRuns' rows of separate elements are the runs element by element
// appendRun gives (the walk's definition): random legs, negative and zero
// steps, rows that continue each other.
func TestLegRunsElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	for range 3000 {
		es := int64(1 + r.IntN(8))
		l := dge.Leg{Addr: 1 << 20, ElemSize: uint32(es)}
		for d := range l.Num {
			l.Num[d] = 1
		}
		l.Num[0], l.Num[1], l.Num[2] = uint32(1+r.IntN(6)), uint32(1+r.IntN(4)), uint32(1+r.IntN(3))
		l.Step[0] = []int64{0, es, 2 * es, -es, es + 1, -3 * es}[r.IntN(6)]
		l.Step[1] = []int64{0, es * int64(l.Num[0]), -64, 100, es}[r.IntN(5)]
		l.Step[2] = int64(r.IntN(300)) - 150
		var want []run
		rows(&l, 1, func(base int64) bool {
			for i := int64(0); i < int64(l.Num[0]); i++ {
				want = appendRun(want, uint64(base+i*l.Step[0]), uint64(es))
			}
			return true
		})
		got := legRuns(nil, &l, 1<<20)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("leg %+v:\nruns %v\nwant %v", l, got, want)
		}
	}
}
