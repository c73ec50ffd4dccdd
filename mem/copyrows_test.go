package mem

import (
	"math/rand/v2"
	"ndma/internal/testutil"
	"reflect"
	"testing"

	"ndma/isa"
)

// CopyRows against row-by-row Read then Write (its documented meaning: "copies
// n bytes from src[k] to dst[k] for every k, as one access"): the bytes, the
// byte counts, and on a fault the first bad row (src checked before dst) with
// nothing changed — for gathers from one table into rows a constant step
// apart (copyStrided's case, steps from the row's length up), into rows out
// of step, into SBUF, with rows past the HBM window or a partition's active
// bytes.
func TestCopyRowsIsRowByRow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	const hbm = 0x1_0000_0000
	for trial := range testutil.Trials(300) {
		a, b := New(isa.Cayman), New(isa.Cayman)
		table := make([]byte, 1<<18)
		for i := range table {
			table[i] = byte(r.Uint32())
		}
		for _, m := range []*Memory{a, b} {
			if err := m.Write(hbm, table); err != nil {
				t.Fatal(err)
			}
		}
		k, n := 1+r.IntN(64), 1+r.IntN(600)
		src, dst := make([]uint64, k), make([]uint64, k)
		base, step := uint64(hbm+0x100000), uint64(n+r.IntN(3)*r.IntN(300))
		if r.IntN(4) == 0 {
			base, step = uint64(r.IntN(4))*0x40000, uint64(n) // SBUF partition rows
		}
		for i := range k {
			src[i] = hbm + uint64(r.IntN(len(table)-n))
			dst[i] = base + uint64(i)*step
		}
		switch r.IntN(6) {
		case 0: // out of step: a row moved on by a whole row
			i := r.IntN(k)
			for j := i; j < k; j++ {
				dst[j] += step + uint64(n)
			}
		case 1: // a src row past the HBM window
			src[r.IntN(k)] = isa.Map(isa.Cayman).HBMEnd - uint64(r.IntN(n))
		case 2: // a dst row past the partition's active bytes
			dst[r.IntN(k)] = 0x38000 - uint64(r.IntN(n))
		}
		before := a.Snapshot()
		ka, erra := a.CopyRows(dst, src, n)
		// the model: every row checked (src first), then read, then written
		kb, errb := -1, error(nil)
		for _, rows := range [][]uint64{src, dst} {
			for i, x := range rows {
				if err := b.Check(x, n); err != nil && errb == nil {
					kb, errb = i, err
				}
			}
		}
		if (erra == nil) != (errb == nil) || erra != nil && (ka != kb || erra.Error() != errb.Error()) {
			t.Fatalf("trial %d: CopyRows row %d, %v; row by row %d, %v", trial, ka, erra, kb, errb)
		}
		if erra != nil {
			if !reflect.DeepEqual(before, a.Snapshot()) {
				t.Fatalf("trial %d: a refused CopyRows changed memory", trial)
			}
			continue
		}
		bufs := make([][]byte, k)
		for i := range k {
			bufs[i] = make([]byte, n)
			if err := b.Read(src[i], bufs[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i := range k {
			if err := b.Write(dst[i], bufs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(a.Snapshot(), b.Snapshot()) {
			t.Fatalf("trial %d (%d rows of %d, dst step %d): memory differs from row by row", trial, k, n, step)
		}
		if a.Stats != b.Stats {
			t.Fatalf("trial %d: stats %+v, row by row %+v", trial, a.Stats, b.Stats)
		}
	}
}
