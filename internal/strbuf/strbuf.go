// Package strbuf hands out many small strings from a few large allocations:
// a NEFF's lowering names every word (a schedule note, a finding), and a
// string a word is an allocation a word.
package strbuf

import "unsafe"

// chunk is the bytes one allocation holds (a longer string gets its own).
const chunk = 32 << 10

// Arena copies byte slices into strings cut from shared chunks. A chunk's
// bytes are never written again once a string covers them, so each string
// stays immutable; a chunk lives as long as any of its strings. The zero
// Arena is ready to use; it is not safe for concurrent use.
type Arena struct {
	buf []byte
}

// String returns a string holding b's bytes.
func (a *Arena) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		if len(b) > chunk/4 {
			return string(b)
		}
		a.buf = make([]byte, 0, chunk)
	}
	at := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[at], len(b))
}
