// Package array reads and writes NumPy .npy files as raw little-endian bytes
// with a shape, for `ndma run --load` and `--dump`. Reading goes through
// codeberg.org/sbinet/npyio; bf16 and fp8 travel as unsigned integers of
// their width holding the raw bits. Open (stream.go) reads a file of any
// size a piece at a time instead, after checking its header against the
// file's size.
package array

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"codeberg.org/sbinet/npyio/npy"
)

// Array is a C-ordered array as its bytes.
type Array struct {
	Descr string // the .npy element type, e.g. "<f4"
	Shape []int
	Data  []byte
}

// Elems is the element count.
func (a *Array) Elems() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Load reads a .npy file.
func Load(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a .npy stream (name for messages).
func Read(r io.Reader, name string) (*Array, error) {
	all, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rd, err := npy.NewReader(bytes.NewReader(all))
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npy file: %w", name, err)
	}
	h := rd.Header
	if h.Descr.Fortran {
		return nil, fmt.Errorf("%s: Fortran-ordered array: ndma reads C order (np.ascontiguousarray first)", name)
	}
	t := strings.Trim(h.Descr.Type, `'"`) // npyio keeps the quotes of a type it does not know
	if strings.HasPrefix(t, ">") {
		return nil, fmt.Errorf("%s: big-endian %s: ndma reads little-endian arrays", name, t)
	}
	n := 1
	for _, d := range h.Descr.Shape {
		n *= d
	}
	if t == "<f2" { // npyio has no float16: the raw bits after the header
		data, err := RawData(all)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(data) != 2*n {
			return nil, fmt.Errorf("%s: %d data bytes for %d float16 elements", name, len(data), n)
		}
		return &Array{Descr: t, Shape: append([]int(nil), h.Descr.Shape...), Data: data}, nil
	}
	rt := npy.TypeFrom(t)
	if rt == nil || !scalarKind(rt.Kind()) {
		return nil, fmt.Errorf("%s: element type %q is not supported (want bool, (u)int8..64, float16..64)", name, t)
	}
	slice := reflect.New(reflect.SliceOf(rt))
	slice.Elem().Set(reflect.MakeSlice(reflect.SliceOf(rt), n, n))
	if err := rd.Read(slice.Interface()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, slice.Elem().Interface()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Array{Descr: t, Shape: append([]int(nil), h.Descr.Shape...), Data: buf.Bytes()}, nil
}

// RawData is the data of a .npy file as stored, whatever its dtype (a NEFF
// `file` variable's bytes, a float16 array's bits).
func RawData(b []byte) ([]byte, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy file (no \\x93NUMPY magic)")
	}
	var hl, start int
	switch b[6] {
	case 1:
		hl, start = int(b[8])|int(b[9])<<8, 10
	case 2, 3:
		if len(b) < 12 {
			return nil, fmt.Errorf(".npy header truncated")
		}
		hl, start = int(b[8])|int(b[9])<<8|int(b[10])<<16|int(b[11])<<24, 12
	default:
		return nil, fmt.Errorf(".npy version %d", b[6])
	}
	if start+hl > len(b) || hl < 0 {
		return nil, fmt.Errorf(".npy header of %d bytes runs past the file", hl)
	}
	if strings.Contains(string(b[start:start+hl]), "'fortran_order': True") {
		return nil, fmt.Errorf("Fortran-ordered array: ndma reads C order")
	}
	return b[start+hl:], nil
}

func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int8, reflect.Uint8, reflect.Int16, reflect.Uint16, reflect.Int32, reflect.Uint32,
		reflect.Int64, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// Write writes a .npy (format 1.0): the header dict padded so the data starts
// on a 64-byte boundary (WriteHeader), then the bytes.
func Write(w io.Writer, a *Array) error {
	if err := WriteHeader(w, a.Descr, a.Shape); err != nil {
		return err
	}
	_, err := w.Write(a.Data)
	return err
}

// Descr is the .npy element type ndma writes for a DTYPE: the native type,
// or the unsigned integer of its width for bf16 and fp8 (raw bits).
func Descr(dtype uint8) (string, error) {
	switch dtype {
	case 0x01:
		return "<u8", nil
	case 0x02:
		return "|i1", nil
	case 0x03, 0x0D, 0x0E, 0x0F, 0x11:
		return "|u1", nil
	case 0x04:
		return "<i2", nil
	case 0x05, 0x06:
		return "<u2", nil
	case 0x07:
		return "<f2", nil
	case 0x08:
		return "<i4", nil
	case 0x09:
		return "<u4", nil
	case 0x0A, 0x0B:
		return "<f4", nil
	case 0x0C:
		return "<i8", nil
	}
	return "", fmt.Errorf("DTYPE %#x has no .npy element type", dtype)
}
