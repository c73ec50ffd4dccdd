package array

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// npyFile is a .npy written by hand the way NumPy writes one: the given
// format major version (1: a 2-byte header length, 2: a 4-byte one), the
// dict as given, padded with spaces and a newline to 64 bytes, then data.
func npyFile(major byte, dict string, data []byte) []byte {
	pre := 10
	if major >= 2 {
		pre = 12
	}
	for (pre+len(dict)+1)%64 != 0 {
		dict += " "
	}
	dict += "\n"
	b := []byte("\x93NUMPY")
	b = append(b, major, 0)
	if major >= 2 {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	}
	return append(append(b, dict...), data...)
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Open reads what Write writes and what NumPy writes by hand (versions 1.0
// and 2.0, either quote, a Python 2 long): the header, the data's place and
// size; ReadAt and ReadInto return the data exactly, in pieces across the
// chunk size.
func TestOpen(t *testing.T) {
	data := make([]byte, 2*ChunkSize+1000) // three chunks, the last short
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Array{Descr: "<f2", Shape: []int{2, len(data) / 4}, Data: data}); err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, "x.npy", buf.Bytes())
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Descr != "<f2" || !slices.Equal(f.Shape, []int{2, len(data) / 4}) || f.Elem != 2 || f.Offset != 128 || f.Size != int64(len(data)) || f.Elems() != int64(len(data)/2) {
		t.Fatalf("header %+v", f.Header)
	}
	got := make([]byte, len(data))
	seen := 0
	if err := f.ReadInto(func(chunk []byte, off int64) error {
		if off != int64(seen) || len(chunk) > ChunkSize {
			t.Fatalf("a chunk of %d bytes at %d after %d", len(chunk), off, seen)
		}
		seen += copy(got[off:], chunk)
		return nil
	}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadInto: err %v, equal %v", err, bytes.Equal(got, data))
	}
	p := make([]byte, 5000)
	if n, err := f.ReadAt(p, ChunkSize-7); n != len(p) || err != nil || !bytes.Equal(p, data[ChunkSize-7:ChunkSize-7+5000]) {
		t.Fatalf("ReadAt: %d %v", n, err)
	}
	if n, err := f.ReadAt(p, int64(len(data)-10)); n != 10 || err != io.EOF || !bytes.Equal(p[:10], data[len(data)-10:]) {
		t.Fatalf("ReadAt at the end: %d %v", n, err)
	}
	if _, err := f.ReadAt(p, int64(len(data)+1)); err == nil {
		t.Fatal("ReadAt past the data accepted")
	}
	// fill's error stops ReadInto and comes back as is
	stop := errors.New("stop")
	if err := f.ReadInto(func([]byte, int64) error { return stop }); err != stop {
		t.Fatalf("ReadInto returned %v, want fill's error", err)
	}

	for _, tc := range []struct {
		file  []byte
		descr string
		shape []int
	}{
		{npyFile(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", []byte{1, 2, 3}), "|u1", []int{3}},
		{npyFile(2, `{"shape": (2, 2), "descr": "<i4", "fortran_order": False}`, make([]byte, 16)), "<i4", []int{2, 2}},
		{npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", make([]byte, 8)), "<f8", []int{}},
		{npyFile(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (0, 5), }", nil), "|b1", []int{0, 5}},
		{npyFile(1, "{'descr':'<u8','fortran_order':False,'shape':(1L,2L)}", make([]byte, 16)), "<u8", []int{1, 2}},
	} {
		f, err := Open(writeTemp(t, "h.npy", tc.file))
		if err != nil {
			t.Errorf("%q: %v", tc.file, err)
			continue
		}
		if f.Descr != tc.descr || !slices.Equal(f.Shape, tc.shape) || f.Offset != 64 && f.Offset != 128 || f.Offset+f.Size != int64(len(tc.file)) {
			t.Errorf("%q: header %+v", tc.file, f.Header)
		}
		calls := 0
		f.ReadInto(func([]byte, int64) error { calls++; return nil })
		if f.Size == 0 && calls != 0 {
			t.Errorf("no data, %d chunks", calls)
		}
		f.Close()
	}
}

// Where the existing Read reads a file, Open agrees with it on the dtype,
// the shape and the bytes.
func TestOpenAgreesWithRead(t *testing.T) {
	for _, a := range []*Array{
		{Descr: "<f4", Shape: []int{3, 2}, Data: make([]byte, 24)},
		{Descr: "<u2", Shape: []int{5}, Data: []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0}},
		{Descr: "|i1", Shape: []int{2, 2, 2}, Data: []byte{1, 2, 3, 4, 5, 6, 7, 0x80}},
		{Descr: "<f2", Shape: []int{2}, Data: []byte{0x00, 0x3c, 0x00, 0xc0}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatal(err)
		}
		path := writeTemp(t, "a.npy", buf.Bytes())
		old, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, f.Size)
		if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		f.Close()
		if f.Descr != old.Descr || !slices.Equal(f.Shape, old.Shape) || !bytes.Equal(data, old.Data) {
			t.Errorf("%s %v: Open says %s %v, Read %s %v", a.Descr, a.Shape, f.Descr, f.Shape, old.Descr, old.Shape)
		}
	}
}

// A header declaring more data than the file holds is refused before
// anything is allocated for it: 144 bytes claiming 2^30 float16 elements
// is an error naming both sizes, and allocates next to nothing.
func TestOpenChecksSizeFirst(t *testing.T) {
	file := npyFile(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1073741824,), }", make([]byte, 16))
	if len(file) != 144 {
		t.Fatalf("the test file is %d bytes", len(file))
	}
	path := writeTemp(t, "big.npy", file)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Open(path)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"big.npy", "1073741824 elements", "2147483648 bytes", "holds 16 bytes", "128-byte header"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
		t.Errorf("Open allocated %d bytes before refusing", a)
	}
}

// Every malformed header is a located error, never a panic or an
// allocation of what it declares.
func TestOpenRefuses(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	huge := append([]byte("\x93NUMPY\x02\x00"), 0, 0, 0x10, 0) // version 2.0, a 1 MiB header
	huge = append(huge, make([]byte, 1<<20)...)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "shorter than the 10-byte preamble"},
		{"magic", []byte("not numpy at all"), "no \\x93NUMPY magic"},
		{"version", append([]byte("\x93NUMPY\x04\x00\x10\x00"), make([]byte, 16)...), "version 4.0"},
		{"header past the file", []byte("\x93NUMPY\x01\x00\xff\xff{'descr'"), "declares 65535 bytes, the file holds 8"},
		{"header too long", huge, "a header of 1048576 bytes"},
		{"v2 truncated", []byte("\x93NUMPY\x02\x00\x01\x00"), "preamble truncated"},
		{"fortran", npyFile(1, strings.Replace(good, "False", "True", 1), make([]byte, 8)), "Fortran-ordered"},
		{"big-endian", npyFile(1, strings.Replace(good, "<f4", ">f4", 1), make([]byte, 8)), "big-endian >f4"},
		{"complex", npyFile(1, strings.Replace(good, "<f4", "<c8", 1), make([]byte, 16)), `element type "<c8" is not supported`},
		{"object", npyFile(1, strings.Replace(good, "<f4", "|O", 1), make([]byte, 16)), `element type "|O"`},
		{"no order", npyFile(1, strings.Replace(good, "<f4", "f4", 1), make([]byte, 8)), `element type "f4"`},
		{"structured", npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)), "structured dtype"},
		{"no shape", npyFile(1, "{'descr': '<f4', 'fortran_order': False, }", make([]byte, 8)), `no "shape" key`},
		{"extra key", npyFile(1, strings.Replace(good, "}", "'x': 1, }", 1), make([]byte, 8)), `unexpected key "x"`},
		{"key twice", npyFile(1, strings.Replace(good, "}", "'shape': (2,), }", 1), make([]byte, 8)), `key "shape" twice`},
		{"shape (n)", npyFile(1, strings.Replace(good, "(2,)", "(2)", 1), make([]byte, 8)), "not a tuple: want (n,)"},
		{"negative", npyFile(1, strings.Replace(good, "(2,)", "(-2,)", 1), make([]byte, 8)), "not a non-negative integer"},
		{"dimension range", npyFile(1, strings.Replace(good, "(2,)", "(99999999999999999999,)", 1), make([]byte, 8)), "out of range"},
		{"overflow", npyFile(1, strings.Replace(good, "(2,)", "(4294967296, 4294967296)", 1), make([]byte, 8)), "more elements than a file can hold"},
		{"bytes overflow", npyFile(1, strings.Replace(good, "(2,)", "(4611686018427387904,)", 1), make([]byte, 8)), "more bytes than a file can hold"},
		{"not a dict", npyFile(1, "['descr']", nil), "want '{'"},
		{"unterminated", npyFile(1, "{'descr: 1}", nil), "unterminated string"},
		{"after the dict", npyFile(1, good+" x", make([]byte, 8)), "text after the dict"},
		{"short data", npyFile(1, good, make([]byte, 7)), "declares 2 elements (8 bytes) of data, the file holds 7 bytes"},
		{"long data", npyFile(1, good, make([]byte, 9)), "the file holds 9 bytes"},
	} {
		_, err := Open(writeTemp(t, "bad.npy", tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.npy") {
			t.Errorf("%s: error %v, want it to name the file and say %q", tc.name, err, tc.want)
		}
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("a directory opened")
	}
}

// A file cut short after Open is an error naming where its data stops.
func TestReadIntoShrunkFile(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, &Array{Descr: "|u1", Shape: []int{1000}, Data: make([]byte, 1000)})
	path := writeTemp(t, "s.npy", buf.Bytes())
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, f.Offset+600); err != nil {
		t.Fatal(err)
	}
	err = f.ReadInto(func([]byte, int64) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "stops at byte 600 of the 1000 declared") {
		t.Fatalf("ReadInto of a shrunk file: %v", err)
	}
}

// WriteHeader then the data is what Write writes.
func TestWriteHeader(t *testing.T) {
	a := &Array{Descr: "<i2", Shape: []int{3, 1}, Data: []byte{1, 0, 2, 0, 3, 0}}
	var w, h bytes.Buffer
	if err := Write(&w, a); err != nil {
		t.Fatal(err)
	}
	if err := WriteHeader(&h, a.Descr, a.Shape); err != nil {
		t.Fatal(err)
	}
	h.Write(a.Data)
	if !bytes.Equal(w.Bytes(), h.Bytes()) {
		t.Fatal("WriteHeader + data differs from Write")
	}
	if err := WriteHeader(io.Discard, "<f4", make([]int, 30000)); err == nil {
		t.Fatal("a header past 64 KiB written")
	}
}

// FuzzNPY: ParseHeader never panics, and what it accepts is consistent —
// the data is exactly what follows the header (RawData agrees), the shape's
// elements times the element size.
func FuzzNPY(f *testing.F) {
	for _, b := range [][]byte{
		npyFile(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", make([]byte, 12)),
		npyFile(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", []byte{7}),
		npyFile(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1073741824,), }", make([]byte, 80)),
		[]byte("\x93NUMPY\x01\x00\xff\xff"),
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(bytes.NewReader(b), int64(len(b)), "f.npy")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.npy: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if h.Offset+h.Size != int64(len(b)) || h.Elems()*int64(h.Elem) != h.Size {
			t.Fatalf("header %+v of a %d-byte file", h, len(b))
		}
		for _, d := range h.Shape {
			if d < 0 {
				t.Fatalf("shape %v", h.Shape)
			}
		}
		data, err := RawData(b)
		if err != nil || int64(len(data)) != h.Size {
			t.Fatalf("RawData: %d bytes, %v; ParseHeader: %d", len(data), err, h.Size)
		}
	})
}
