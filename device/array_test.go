package device

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*5 + 1)
	}
	return b
}

// The layout, worked by hand from §7 / §11.2: SBUF partition p starts at
// p × 256 KiB (1 MiB on v5), PSUM partition p at 0x2000000 + p × 32 KiB; an
// on-chip array's rows go one partition apart, an HBM array is contiguous.
func TestLoadArrayLayout(t *testing.T) {
	tests := []struct {
		gen   isa.Gen
		addr  uint64
		shape []int
		rows  []uint64 // each row's address, in order
	}{
		{isa.Cayman, 5<<18 + 0x100, []int{3, 4}, []uint64{0x140100, 0x180100, 0x1c0100}},
		{isa.Sunda, 0x2000000 + 3<<15 + 0x10, []int{2, 8}, []uint64{0x2018010, 0x2020010}},
		{isa.Maverick, 2<<20 + 7, []int{2, 2, 3}, []uint64{0x200007, 0x300007}},
		{isa.Mariana, 9<<18 + 0x20, []int{12}, []uint64{0x240020}},                 // 1-D: one row
		{isa.Cayman, 0x1_0000_0000 + 0xFFF0, []int{4, 8}, []uint64{0x1_0000_fff0}}, // HBM: one row across a page
		{isa.Cayman, 127 << 18, []int{1, 16}, []uint64{0x1fc0000}},                 // one row in the last partition
	}
	for _, tc := range tests {
		d := New(tc.gen, 1)
		m := d.Core(0)
		n := 1
		for _, s := range tc.shape {
			n *= s
		}
		data := seq(n)
		if err := LoadArray(m, tc.addr, tc.shape, data); err != nil {
			t.Fatalf("%s %#x %v: %v", tc.gen, tc.addr, tc.shape, err)
		}
		rowBytes := n / len(tc.rows)
		for r, a := range tc.rows {
			got := make([]byte, rowBytes)
			if err := m.Read(a, got); err != nil || !bytes.Equal(got, data[r*rowBytes:(r+1)*rowBytes]) {
				t.Errorf("%s %#x %v: row %d at %#x holds %v (err %v)", tc.gen, tc.addr, tc.shape, r, a, got, err)
			}
		}
		// nothing else was written: the rows' bytes are all the memory holds
		var held int
		for k, v := range m.Snapshot() {
			if k != "sems" {
				held += len(v) - bytes.Count(v, []byte{0})
			}
		}
		if held != n-bytes.Count(data, []byte{0}) {
			t.Errorf("%s %#x %v: %d nonzero bytes in memory, want %d", tc.gen, tc.addr, tc.shape, held, n)
		}
		back, err := ReadArray(m, tc.addr, tc.shape, 1)
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("%s %#x %v: ReadArray = %v, %v", tc.gen, tc.addr, tc.shape, back, err)
		}
	}
}

// Random arrays round-trip load → read, element size and shape included.
func TestArrayRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	gens := []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.Maverick}
	for trial := 0; trial < 300; trial++ {
		g := gens[trial%4]
		d := New(g, 2)
		mp := isa.Map(g)
		elem := []int{1, 2, 4, 8}[r.IntN(4)]
		shape := []int{1 + r.IntN(8)}
		for range r.IntN(3) {
			shape = append(shape, 1+r.IntN(6))
		}
		n := elem
		for _, s := range shape {
			n *= s
		}
		var addr uint64
		switch r.IntN(3) {
		case 0:
			addr = uint64(r.IntN(100))*mp.SBUFStride + uint64(r.IntN(int(mp.SBUFActive)-n))
		case 1:
			if mp.PSUMSize > 0 {
				addr = mp.PSUMBase + uint64(r.IntN(100))*mp.PSUMStride + uint64(r.IntN(int(mp.PSUMActive)-n))
				break
			}
			fallthrough
		default:
			addr = mp.HBMBase + uint64(r.IntN(1<<30))
		}
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		if err := LoadArray(d.Core(trial%2), addr, shape, data); err != nil {
			t.Fatalf("trial %d: %s %#x %v×%d: %v", trial, g, addr, shape, elem, err)
		}
		// the core that loaded it reads it back; the HBM is the other core's too
		back, err := ReadArray(d.Core(trial%2), addr, shape, elem)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("trial %d: %s %#x %v×%d: read back differs (err %v)", trial, g, addr, shape, elem, err)
		}
		other, err := ReadArray(d.Core(1-trial%2), addr, shape, elem)
		if r, _, _ := mp.Split(addr); err != nil || (r == isa.HBM) != bytes.Equal(other, data) {
			t.Fatalf("trial %d: %s %#x (%s): the other core reads the array: %v (err %v)", trial, g, addr, r, bytes.Equal(other, data), err)
		}
	}
}

// The messages, with the shape, rows and partitions worked by hand.
func TestArrayErrors(t *testing.T) {
	d := New(isa.Cayman, 1)
	m := d.Core(0)
	tests := []struct {
		err  error
		want string
	}{
		{LoadArray(m, 126<<18, []int{3, 4}, seq(12)), "shape [3 4]: 3 rows from sbuf partition 126 reach partition 128: there are 128"},
		{LoadArray(m, 0x2000000+127<<15, []int{2, 1}, seq(2)), "shape [2 1]: 2 rows from psum partition 127 reach partition 128: there are 128"},
		{LoadArray(m, 1<<18+0x37ffe, []int{2, 4}, seq(8)), "row 0: address 0x77ffe (+4 bytes, sbuf partition 1 offset 0x37ffe): beyond the 224 KiB active in a partition on CAYMAN (the array's shape [2 4] does not fit there)"},
		{LoadArray(m, 0x30000000, []int{4}, seq(4)), "row 0: address 0x30000000 (+4 bytes, unmapped): not in SBUF, PSUM or HBM (the array's shape [4] does not fit there)"},
		{LoadArray(m, 0x20_0000_0000-2, []int{4}, seq(4)), "row 0: address 0x1ffffffffe (+4 bytes, hbm offset 0x1efffffffe): runs past the HBM window (the array's shape [4] does not fit there)"},
		{LoadArray(m, 0x40, []int{2, 3}, seq(7)), "shape [2 3]: 7 bytes are not a whole number of its 6 elements"},
		{LoadArray(m, 0x40, []int{2, -3}, nil), "shape [2 -3]: a negative dimension"},
		{LoadArray(m, 0x40, []int{0, 3}, seq(1)), "shape [0 3]: 1 bytes are not a whole number of its 0 elements"},
		{second(ReadArray(m, 126<<18, []int{3, 4}, 2)), "shape [3 4]: 3 rows from sbuf partition 126 reach partition 128: there are 128"},
		{second(ReadArray(m, 2<<18+0x37ff0, []int{3, 8}, 4)), "row 0: address 0xb7ff0 (+32 bytes, sbuf partition 2 offset 0x37ff0): beyond the 224 KiB active in a partition on CAYMAN"},
		{second(ReadArray(m, 0x20_0000_0000-8, []int{2, 8}, 1)), "row 0: address 0x1ffffffff8 (+16 bytes, hbm offset 0x1efffffff8): runs past the HBM window"},
		{second(ReadArray(m, 0x40, []int{1<<30 + 1}, 1)), "1073741825 bytes is more than ndma dumps"},
		// 1 GiB exactly is not too big: the partitions refuse it
		{second(ReadArray(m, 0x40, []int{1 << 14, 1 << 14}, 4)), "shape [16384 16384]: 16384 rows from sbuf partition 0 reach partition 16383: there are 128"},
		{second(ReadArray(m, 0x40, []int{1 << 31, 1 << 31, 1 << 31}, 4)), "39614081257132168796771975168 bytes is more than ndma dumps"}, // 2^95: no int overflow
		{second(ReadArray(m, 0x40, []int{4}, 0)), "element size 0: want at least 1 byte"},
	}
	for i, tc := range tests {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("case %d: %v\n want %s", i, tc.err, tc.want)
		}
	}
	// the error wraps the mem.Fault, and a refused load writes nothing
	before := m.Snapshot()
	err := LoadArray(m, 5<<18+0x37ffc, []int{3, 8}, seq(24))
	if err == nil || !strings.HasPrefix(err.Error(), "row 0: ") {
		t.Fatalf("got %v", err)
	}
	var f *mem.Fault
	if !errors.As(err, &f) || f.Addr != 5<<18+0x37ffc {
		t.Errorf("the error does not wrap the mem.Fault: %#v", err)
	}
	if len(m.Snapshot()) != len(before) {
		t.Error("a refused LoadArray wrote rows")
	}
}

func second(_ []byte, err error) error { return err }

// The streamed paths are the buffered ones: LoadArrayFrom lays an array out
// as LoadArray does (checked by ReadArray), WriteArray writes what ReadArray
// returns, and both refuse what the buffered ones refuse, with their words.
func TestArrayStreamsAreArrays(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 200; trial++ {
		g := []isa.Gen{isa.Sunda, isa.Cayman, isa.Maverick}[trial%3]
		mp := isa.Map(g)
		shape := []int{1 + r.IntN(6), 1 + r.IntN(700)}
		n := shape[0] * shape[1]
		addr := mp.HBMBase + uint64(r.IntN(1<<20))
		if trial%2 == 0 {
			addr = uint64(r.IntN(120))*mp.SBUFStride + uint64(r.IntN(int(mp.SBUFActive)-n))
		}
		if trial%10 == 9 { // past the partitions or the active bytes: refused
			addr = uint64(mp.Partitions-2)*mp.SBUFStride + mp.SBUFActive - uint64(shape[1]/2)
		}
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		a, b := New(g, 1).Core(0), New(g, 1).Core(0)
		errA := LoadArray(a, addr, shape, data)
		errB := LoadArrayFrom(b, addr, shape, int64(n), func(p []byte, off int64) error {
			_, err := bytes.NewReader(data).ReadAt(p, off)
			return err
		})
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("trial %d: LoadArray %v, LoadArrayFrom %v", trial, errA, errB)
		}
		want, errA := ReadArray(b, addr, shape, 1)
		var got bytes.Buffer
		errB = WriteArray(&got, b, addr, shape, 1)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("trial %d: ReadArray %v, WriteArray %v", trial, errA, errB)
		}
		if errA != nil {
			if got.Len() != 0 {
				t.Fatalf("trial %d: a refused WriteArray wrote %d bytes", trial, got.Len())
			}
			continue
		}
		if !bytes.Equal(want, data) || !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("trial %d: %s %#x %v: the streamed load or write differs", trial, g, addr, shape)
		}
	}
	// a read error stops the load and is returned as is
	stop := errors.New("disk gone")
	if err := LoadArrayFrom(New(isa.Cayman, 1).Core(0), isa.Map(isa.Cayman).HBMBase, []int{8}, 8, func([]byte, int64) error { return stop }); err != stop {
		t.Fatalf("a failing read: %v", err)
	}
}
