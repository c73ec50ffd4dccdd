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

// Lane locates a bit range of a buffer read as little-endian 64-bit lanes
// (buffer byte 8k+j is bits 8j..8j+7 of lane k). A whole word is decoded by
// loading its lanes once and extracting every field from registers, and
// encoded by OR-ing every field into zeroed lanes — no read-modify-write of
// overlapping memory windows. Shift counts are kept below 64 and the high
// part of a range that straddles two lanes is selected by a mask, so Get and
// Or are branch-free.
type Lane struct {
	lo, hi uint8  // lane of the low bits; lane of the high bits (= lo unless the range straddles)
	shift  uint8  // bit position inside lane lo
	hshift uint8  // (64 - shift) mod 64: where the high part starts in the value
	mask   uint64 // the field's width
	hmask  uint64 // mask of the high part's bits in lane hi; 0 when the range does not straddle
}

// MakeLane locates `width` bits starting at bit `bit` of byte `off` in a
// buffer of `size` bytes (a multiple of 8).
func MakeLane(off, bit, width, size int) (Lane, error) {
	if size%8 != 0 || size <= 0 {
		return Lane{}, fmt.Errorf("bitfield: buffer of %d bytes is not a whole number of lanes", size)
	}
	if width < 1 || width > 64 || bit < 0 || off < 0 || off*8+bit+width > size*8 {
		return Lane{}, fmt.Errorf("bitfield: bad range off=%d bit=%d width=%d in %d bytes", off, bit, width, size)
	}
	first := off*8 + bit
	last := first + width - 1
	l := Lane{lo: uint8(first / 64), hi: uint8(last / 64), shift: uint8(first % 64), mask: ^uint64(0)}
	l.hshift = uint8((64 - int(l.shift)) % 64)
	if width < 64 {
		l.mask = 1<<width - 1
	}
	if l.hi != l.lo {
		l.hmask = 1<<(last%64+1) - 1 // bits 0..last%64 of lane hi
	}
	return l, nil
}

// Get extracts the field from the lanes.
func (l Lane) Get(lanes []uint64) uint64 {
	return (lanes[l.lo]>>(l.shift&63) | (lanes[l.hi]&l.hmask)<<(l.hshift&63)) & l.mask
}

// Or merges v (its low width bits) into lanes that are zero over the field.
func (l Lane) Or(lanes []uint64, v uint64) {
	v &= l.mask
	lanes[l.lo] |= v << (l.shift & 63)
	lanes[l.hi] |= v >> (l.hshift & 63) & l.hmask
}

// LoadLanes reads b (len = 8·len(lanes)) into lanes.
func LoadLanes(lanes []uint64, b []byte) {
	if len(lanes) == 8 && len(b) >= 64 { // a whole instruction word: unrolled
		b = b[:64]
		lanes[0] = binary.LittleEndian.Uint64(b[0:])
		lanes[1] = binary.LittleEndian.Uint64(b[8:])
		lanes[2] = binary.LittleEndian.Uint64(b[16:])
		lanes[3] = binary.LittleEndian.Uint64(b[24:])
		lanes[4] = binary.LittleEndian.Uint64(b[32:])
		lanes[5] = binary.LittleEndian.Uint64(b[40:])
		lanes[6] = binary.LittleEndian.Uint64(b[48:])
		lanes[7] = binary.LittleEndian.Uint64(b[56:])
		return
	}
	for i := range lanes {
		lanes[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}

// StoreLanes writes lanes to b.
func StoreLanes(b []byte, lanes []uint64) {
	for i, v := range lanes {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}
