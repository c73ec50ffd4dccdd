package sdma

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// stringModel is the descriptor line as fmt formats it (the listing's
// first form, kept as the model of AppendText).
func stringModel(d *Desc) string {
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{d.First(), "FIRST"}, {d.Last(), "LAST"}, {d.IntEn(), "INT_EN"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	fl := strings.Join(flags, "|")
	if fl == "" {
		fl = "-"
	}
	op := SDMAOp.Format(uint64(d.Op()))
	switch d.Op() {
	case OpCME:
		op += ":COPY"
	case OpCCE:
		in, out := d.Dtypes()
		op += fmt.Sprintf(":%s:%s->%s", cceName(d.OpType()), isa.DType().Format(uint64(in)), isa.DType().Format(uint64(out)))
	}
	return fmt.Sprintf("len=%-5d phase=%d %-17s %-24s buf_ptr=0x%x", d.Length(), d.Phase(), fl, op, d.BufPtr())
}

// listingModel is AppendListing as fmt formats it.
func listingModel(lw *Lowered) string {
	var b strings.Builder
	for _, q := range lw.Queues {
		for _, leg := range []struct {
			name string
			ds   []Desc
		}{{"M2S", q.M2S}, {"S2M", q.S2M}} {
			for i := range leg.ds {
				fmt.Fprintf(&b, "  DMA[%d] %s[%d] %s\n", q.DMA, leg.name, i, stringModel(&leg.ds[i]))
			}
		}
		for _, db := range q.Doorbells {
			fmt.Fprintf(&b, "  DMA[%d] doorbell %s += %d\n", db.DMA, db.Reg, db.Value)
		}
	}
	return b.String()
}

// Every descriptor — any bytes: every op, type, dtype pair, flag and phase
// — prints as fmt prints it, and a lowered word's listing likewise.
func TestDescTextIsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	for i := range 20000 {
		var d Desc
		for k := range d {
			d[k] = byte(r.Uint32())
		}
		if i%3 == 0 { // the lowering's descriptors: a known op and type, small lengths
			d = newDesc(1+r.IntN(65536), r.Uint64()>>r.IntN(64), []int{OpCME, OpCCE, OpDRE}[r.IntN(3)], r.IntN(8))
			d.setFlags(r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0)
			d.setPhase(r.IntN(4))
			d.setCCE(uint8(r.IntN(16)), uint8(r.IntN(16)))
		}
		if got, want := d.String(), stringModel(&d); got != want {
			t.Fatalf("% x:\n%q\nwant %q", d[:], got, want)
		}
	}
	p := lower(t, isa.Cayman, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0x40000],
  src_num_elem=[64, 4], src_elem_size=4, dst_start_addr=sbuf:8:0x0, dst_step_elem=[2, 0x40000], dst_num_elem=[64, 4],
  dst_elem_size=2, in_dtype=fp32, out_dtype=bf16`, dge.Options{})
	lw, err := Expand(p, Options{RingSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(lw.AppendListing(nil)), listingModel(lw); got != want {
		t.Fatalf("listing:\n%s\nwant\n%s", got, want)
	}
}
