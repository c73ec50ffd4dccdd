// Package array reads and writes NumPy .npy files as raw little-endian bytes
// with a shape, for `ndma run --load` and `--dump`. Reading goes through
// codeberg.org/sbinet/npyio; bf16 and fp8 travel as unsigned integers of
// their width holding the raw bits. Open (stream.go) reads a file of any
// size a piece at a time instead, after checking its header against the
// file's size.
package array

import (
	"bytes"
	"fmt"
	"io"
	"ndma/dtype"
	"reflect"
	"strings"
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

// Load reads a .npy file: its header checked against the file's size
// before the data is allocated (ParseHeader), so a small file that claims a
// huge shape is refused by name, never allocated or panicked on.
func Load(path string) (*Array, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, f.Size)
	if n, err := f.ReadAt(data, 0); n < len(data) {
		return nil, err
	}
	return &Array{Descr: f.Descr, Shape: append([]int(nil), f.Shape...), Data: data}, nil
}

// Read reads a .npy stream (name for messages), checked as Load checks a
// file.
func Read(r io.Reader, name string) (*Array, error) {
	all, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h, err := ParseHeader(bytes.NewReader(all), int64(len(all)), name)
	if err != nil {
		return nil, err
	}
	return &Array{Descr: h.Descr, Shape: append([]int(nil), h.Shape...), Data: all[h.Offset : h.Offset+h.Size]}, nil
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
func Descr(dt uint8) (string, error) {
	if d := dtype.DType(dt).Descr(); d != "" {
		return d, nil
	}
	return "", fmt.Errorf("DTYPE %#x has no .npy element type", dt)
}
