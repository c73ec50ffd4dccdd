package device

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"slices"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

func TestNew(t *testing.T) {
	d := New(isa.Mariana, 3)
	if d.Cores() != 3 || d.Gen != isa.Mariana {
		t.Fatalf("Cores() = %d, Gen %s", d.Cores(), d.Gen)
	}
	for _, i := range []int{-1, 3, 100} {
		if d.Core(i) != nil {
			t.Errorf("Core(%d) is not nil", i)
		}
	}
	for i := range 3 {
		c := d.Core(i)
		if c == nil || c.HBM() != d.HBM() || c.Gen != isa.Mariana {
			t.Fatalf("core %d: %v, its HBM is the device's: %v", i, c, c != nil && c.HBM() == d.HBM())
		}
		for j := range i {
			if d.Core(j) == c {
				t.Fatalf("cores %d and %d are one memory", j, i)
			}
		}
	}
	// core 2 writes HBM and SBUF; cores 0 and 1 see the HBM bytes only
	if err := d.Core(2).Write(0x1_2345_6789, []byte{0xEE}); err != nil {
		t.Fatal(err)
	}
	if err := d.Core(2).Write(0x100, []byte{0xDD}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		var h, s [1]byte
		d.Core(i).Read(0x1_2345_6789, h[:])
		d.Core(i).Read(0x100, s[:])
		if h[0] != 0xEE || s[0] != 0 {
			t.Errorf("core %d reads HBM %#x, SBUF %#x; want 0xee, 0", i, h[0], s[0])
		}
	}
	if New(isa.Cayman, 1).HBM() == d.HBM() {
		t.Error("two devices share an HBM")
	}
	defer func() {
		if recover() == nil {
			t.Error("New with 0 cores did not panic")
		}
	}()
	New(isa.Cayman, 0)
}

// Compare's texts, by hand: the core named only on a device of several,
// core by core, the HBM (no core) with core 0's bytes.
func TestCompare(t *testing.T) {
	tests := []struct {
		cores int
		set   func(a, b *Device)
		want  string
	}{
		{1, func(a, b *Device) {}, ""},
		{1, func(a, b *Device) { b.Core(0).Write(0x40, []byte{1}) }, "address 0x40 (sbuf partition 0): ref 0x00, sim 0x01"},
		{1, func(a, b *Device) { a.Core(0).Sems[7] = 16 }, "$S[7]: ref 16, sim 0"},
		{1, func(a, b *Device) { a.Core(0).Write(0x1_0000_0010, []byte{0xab}) }, "address 0x100000010 (hbm): ref 0xab, sim 0x00"},
		{2, func(a, b *Device) { a.Core(1).Write(0x2000000+0x8000, []byte{9}) }, "core 1: address 0x2008000 (psum partition 1): ref 0x09, sim 0x00"},
		{2, func(a, b *Device) { b.Core(1).Write(0x1_0000_0010, []byte{2}) }, "address 0x100000010 (hbm): ref 0x00, sim 0x02"}, // written by core 1: the HBM is no core's
		{2, func(a, b *Device) { b.Core(1).Sems[0] = 1; a.Core(0).Write(0x1_0000_0010, []byte{2}) }, "address 0x100000010 (hbm): ref 0x02, sim 0x00"},
		{2, func(a, b *Device) { b.Core(1).Sems[0] = 1; a.Core(0).Events[3] = true }, "core 0: event 3: ref true, sim false"},
		{3, func(a, b *Device) { b.Core(2).Sems[255] = -5; b.Core(1).Events[0] = true }, "core 1: event 0: ref false, sim true"},
		{3, func(a, b *Device) { b.Core(2).Sems[255] = -5 }, "core 2: $S[255]: ref 0, sim -5"},
	}
	for i, tc := range tests {
		a, b := New(isa.Cayman, tc.cores), New(isa.Cayman, tc.cores)
		tc.set(a, b)
		d, ok := Compare(a, b)
		got := ""
		if ok {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
		if ok {
			d.Labels = [2]string{"x", "y"}
			if s := d.String(); s != d.Format("x", "y") || bytes.Contains([]byte(s), []byte("ref")) {
				t.Errorf("case %d: with labels x, y: %q", i, s)
			}
		}
	}
}

// naiveCompare reads every written byte (only those can differ) of every
// core through Read, in the order Compare promises: core by core, semaphores, then the lowest
// differing byte (HBM with core 0's), then events.
func naiveCompare(a, b *Device, written []uint64) string {
	slices.Sort(written)
	for c := range a.Cores() {
		x, y := a.Core(c), b.Core(c)
		prefix := ""
		if a.Cores() > 1 {
			prefix = fmt.Sprintf("core %d: ", c)
		}
		for i := range 256 {
			if x.Sems[i] != y.Sems[i] {
				return fmt.Sprintf("%s$S[%d]: ref %d, sim %d", prefix, i, x.Sems[i], y.Sems[i])
			}
		}
		for _, addr := range written {
			if addr >= 0x1_0000_0000 && c > 0 {
				continue
			}
			var p, q [1]byte
			x.Read(addr, p[:])
			y.Read(addr, q[:])
			if p != q {
				where := "hbm"
				switch {
				case addr < 0x2000000:
					where = fmt.Sprintf("sbuf partition %d", addr/(256<<10))
				case addr < 0x2400000:
					where = fmt.Sprintf("psum partition %d", (addr-0x2000000)/(32<<10))
				default:
					prefix = ""
				}
				return fmt.Sprintf("%saddress %#x (%s): ref %#02x, sim %#02x", prefix, addr, where, p[0], q[0])
			}
		}
		for i := range 256 {
			if x.Events[i] != y.Events[i] {
				return fmt.Sprintf("%sevent %d: ref %v, sim %v", prefix, i, x.Events[i], y.Events[i])
			}
		}
	}
	return ""
}

// Compare against the naive reader over random devices of 1 to 4 cores
// given the same writes and then a few different ones.
func TestCompareAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	addr := func() uint64 {
		switch r.IntN(3) {
		case 0:
			return uint64(r.IntN(4))<<18 + uint64(r.IntN(224<<10))
		case 1:
			return 0x2000000 + uint64(r.IntN(4))<<15 + uint64(r.IntN(16<<10))
		}
		return 0x1_0000_0000 + uint64(r.IntN(4))*mem.PageSize*1000 + uint64(r.IntN(mem.PageSize))
	}
	kinds := map[string]int{}
	for trial := 0; trial < testutil.Trials(500); trial++ {
		cores := 1 + r.IntN(4)
		a, b := New(isa.Cayman, cores), New(isa.Cayman, cores)
		var written []uint64
		for range 20 {
			c, at, v := r.IntN(cores), addr(), byte(r.IntN(3))
			a.Core(c).Write(at, []byte{v})
			b.Core(c).Write(at, []byte{v})
			written = append(written, at)
		}
		for range r.IntN(3) {
			x := []*Device{a, b}[r.IntN(2)].Core(r.IntN(cores))
			switch r.IntN(6) {
			case 0:
				x.Sems[r.IntN(256)]++
			case 1:
				x.Events[r.IntN(256)] = true
			default:
				at := addr()
				x.Write(at, []byte{byte(r.IntN(3))})
				written = append(written, at)
			}
		}
		d, ok := Compare(a, b)
		got := ""
		if ok {
			got = d.String()
		}
		if want := naiveCompare(a, b, written); got != want {
			t.Fatalf("trial %d (%d cores): Compare says %q, the naive reader %q", trial, cores, got, want)
		}
		if ok {
			kinds[fmt.Sprint(d.Kind, d.Region, d.Core >= 0)]++
		} else {
			kinds["none"]++
		}
	}
	t.Logf("outcomes: %v", kinds)
	if len(kinds) < 6 {
		t.Errorf("the trials cover too few outcomes: %v", kinds)
	}
}

func TestComparePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Compare of a 1-core and a 2-core device did not panic")
		}
	}()
	Compare(New(isa.Cayman, 1), New(isa.Cayman, 2))
}
