package cli

import (
	"fmt"
	"testing"
)

// appendOffset is the listing's "== %#06x" built without fmt: it must be
// fmt's text for every offset a stream can hold (fmt pads the digits to six,
// not counting the 0x prefix).
func TestAppendOffsetIsFmt(t *testing.T) {
	for _, off := range []int{0, 1, 0x40, 0xfffff, 0x100000, 0x123456, 0xfffffff, 1<<40 + 3, -64} {
		if got, want := string(appendOffset(nil, off)), fmt.Sprintf("%#06x", off); got != want {
			t.Errorf("appendOffset(%#x) = %q, want %q", off, got, want)
		}
	}
}
