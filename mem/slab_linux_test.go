//go:build linux

package mem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"ndma/isa"
)

// advisedHuge reports whether the mapping holding address a carries the
// MADV_HUGEPAGE advice ("hg" in its smaps VmFlags).
func advisedHuge(t *testing.T, a uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " hg ")
		}
	}
	t.Fatalf("address %#x in no mapping of /proc/self/smaps", a)
	return false
}

// The partition slab follows the bytes touched: a few bytes in each of
// 128 partitions (an index tensor) leave it on 4 KiB pages; a dense
// destination over them (ReserveDense) advises its part as huge pages.
func TestSlabAdvisedOnlyWhenDense(t *testing.T) {
	m := New(isa.Cayman)
	st, act := m.Map.SBUFStride, m.Map.SBUFActive
	for p := range uint64(128) {
		if err := m.Write(p*st, make([]byte, 128)); err != nil {
			t.Fatal(err)
		}
	}
	if m.slabs[0] == nil {
		t.Fatal("128 partitions written and no slab")
	}
	at := func(p uint64) uintptr { return uintptr(unsafe.Pointer(&m.slabs[0][p*act])) }
	for _, p := range []uint64{40, 100, 127} {
		if advisedHuge(t, at(p)) {
			t.Fatalf("partition %d of the slab advised as huge pages after 128 bytes in each partition", p)
		}
	}
	m.ReserveDense(0, 127*st+act, int64(128*act))
	if !advisedHuge(t, at(64)) {
		t.Fatal("partition 64 of the slab not advised as huge pages after a dense reservation of all 128")
	}
}
