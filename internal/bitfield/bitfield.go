// Package bitfield reads and writes a bit range of a little-endian byte buffer.
//
// A Field is precomputed once (from a layout table) so that Get and Put are a
// single 8-byte load, a shift and a mask: the decoders stay allocation-free
// and branch-free (field-tables §0: all scalars little-endian, packed
// bit-fields LSB-first within their byte).
package bitfield

import (
	"encoding/binary"
	"fmt"
)

// Field is a located bit range: bits [shift, shift+width) of the 8-byte
// little-endian window that starts at byte win.
type Field struct {
	win   uint16
	shift uint8
	width uint8
	mask  uint64
}

// Make locates the bit range that starts at bit `bit` of byte `off` and is
// `width` bits wide, inside a buffer of `size` bytes (size >= 8).
func Make(off, bit, width, size int) (Field, error) {
	if size < 8 {
		return Field{}, fmt.Errorf("bitfield: buffer of %d bytes is smaller than the 8-byte window", size)
	}
	if width < 1 || width > 64 || bit < 0 || off < 0 {
		return Field{}, fmt.Errorf("bitfield: bad range off=%d bit=%d width=%d", off, bit, width)
	}
	end := off*8 + bit + width // one past the last bit
	if end > size*8 {
		return Field{}, fmt.Errorf("bitfield: range off=%d bit=%d width=%d runs past %d bytes", off, bit, width, size)
	}
	win := off
	if win > size-8 {
		win = size - 8
	}
	shift := (off-win)*8 + bit
	if shift+width > 64 {
		return Field{}, fmt.Errorf("bitfield: range off=%d bit=%d width=%d does not fit one 8-byte window", off, bit, width)
	}
	mask := ^uint64(0)
	if width < 64 {
		mask = 1<<width - 1
	}
	return Field{win: uint16(win), shift: uint8(shift), width: uint8(width), mask: mask}, nil
}

// Width is the number of bits of the field.
func (f Field) Width() int { return int(f.width) }

// Mask is the largest value the field holds.
func (f Field) Mask() uint64 { return f.mask }

// Get returns the field's value, zero-extended.
func (f Field) Get(b []byte) uint64 {
	return binary.LittleEndian.Uint64(b[f.win:]) >> f.shift & f.mask
}

// GetSigned returns the field's value sign-extended from its width.
func (f Field) GetSigned(b []byte) int64 {
	s := 64 - uint(f.width)
	return int64(f.Get(b)<<s) >> s
}

// Put stores the low Width bits of v, leaving every other bit of b as it was.
func (f Field) Put(b []byte, v uint64) {
	w := binary.LittleEndian.Uint64(b[f.win:])
	w = w&^(f.mask<<f.shift) | (v&f.mask)<<f.shift
	binary.LittleEndian.PutUint64(b[f.win:], w)
}

// Fits reports whether v is representable in the field without truncation.
func (f Field) Fits(v uint64) bool { return v&^f.mask == 0 }

// FitsSigned reports whether v is representable as a two's-complement value of
// the field's width.
func (f Field) FitsSigned(v int64) bool {
	if f.width == 64 {
		return true
	}
	lim := int64(1) << (f.width - 1)
	return v >= -lim && v < lim
}
