package strbuf

import (
	"strconv"
	"testing"
)

// Every string keeps its own bytes while later ones fill the same and new
// chunks, and a long one stands alone.
func TestArenaStringsStay(t *testing.T) {
	var a Arena
	var got []string
	var want []string
	for i := range 20000 {
		b := []byte("note " + strconv.Itoa(i))
		if i%5000 == 0 {
			b = append(b, make([]byte, chunk)...) // past a quarter chunk: its own allocation
		}
		got = append(got, a.String(b))
		want = append(want, string(b))
		b[0] = 'X' // the caller's buffer is reused: the string must not change
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d = %.20q, want %.20q", i, got[i], want[i])
		}
	}
	if a.String(nil) != "" {
		t.Error("empty bytes: want the empty string")
	}
}

// Strings from an arena cost no allocation each (one per 32 KiB chunk).
func TestArenaAllocs(t *testing.T) {
	var a Arena
	b := []byte("x+0x100 → SB p0+0x37c00, 65536 bytes on qPoolDynamic")
	if n := testing.AllocsPerRun(1000, func() { a.String(b) }); n > 0.01 {
		t.Errorf("%.3f allocations a string, want about %.3f", n, float64(len(b))/chunk)
	}
}
