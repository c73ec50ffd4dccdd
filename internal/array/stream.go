package array

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Streaming: a .npy file's header read and checked against the file's size
// before anything else is read or allocated, then its data read a piece at
// a time (ReadAt, ReadInto) straight into where it goes — a 4 GiB input
// costs its destination, not a copy of the file in memory.

// Header is what a .npy header says, checked, and where the data lies.
type Header struct {
	Descr  string // the element type as written, e.g. "<f2", "|u1"
	Shape  []int  // C order; empty for a scalar
	Elem   int    // bytes per element
	Offset int64  // where the data starts in the file
	Size   int64  // the data's bytes: the shape's elements × Elem, exactly what follows the header
}

// Elems is the element count the shape declares.
func (h *Header) Elems() int64 {
	n := int64(1)
	for _, d := range h.Shape {
		n *= int64(d)
	}
	return n
}

// MaxHeader is the longest header (the dict after the length field) read:
// NumPy writes tens of bytes; a longer one is refused, not allocated.
const MaxHeader = 64 << 10

// ParseHeader reads a .npy header from r, which holds the file from its
// first byte; size is the file's length in bytes, against which the header
// length and the data the header declares are checked before anything is
// allocated for them. name is for messages. Refused: a bad magic or
// version, a header past the file or longer than MaxHeader, a dict other
// than {'descr', 'fortran_order', 'shape'}, a structured, big-endian or
// non-numeric dtype, Fortran order, and data that is not exactly what
// follows the header.
func ParseHeader(r io.Reader, size int64, name string) (*Header, error) {
	var pre [12]byte
	if size < 10 {
		return nil, fmt.Errorf("%s: not a .npy file: %d bytes, shorter than the 10-byte preamble", name, size)
	}
	if _, err := io.ReadFull(r, pre[:10]); err != nil {
		return nil, fmt.Errorf("%s: reading the .npy preamble: %w", name, err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("%s: not a .npy file (no \\x93NUMPY magic)", name)
	}
	var hl, start int64
	switch pre[6] {
	case 1:
		hl, start = int64(pre[8])|int64(pre[9])<<8, 10
	case 2, 3:
		if size < 12 {
			return nil, fmt.Errorf("%s: .npy version %d preamble truncated: %d bytes", name, pre[6], size)
		}
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, fmt.Errorf("%s: reading the .npy preamble: %w", name, err)
		}
		hl, start = int64(pre[8])|int64(pre[9])<<8|int64(pre[10])<<16|int64(pre[11])<<24, 12
	default:
		return nil, fmt.Errorf("%s: .npy format version %d.%d: ndma reads 1.x, 2.x and 3.x", name, pre[6], pre[7])
	}
	if hl > size-start {
		return nil, fmt.Errorf("%s: the header declares %d bytes, the file holds %d after its %d-byte preamble", name, hl, size-start, start)
	}
	if hl > MaxHeader {
		return nil, fmt.Errorf("%s: a header of %d bytes (ndma reads at most %d)", name, hl, MaxHeader)
	}
	text := make([]byte, hl)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, fmt.Errorf("%s: reading the %d-byte header: %w", name, hl, err)
	}
	h, err := parseDict(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: .npy header: %w", name, err)
	}
	h.Offset = start + hl
	n, elems := h.Offset, int64(1) // the declared data, without overflow
	for _, d := range h.Shape {
		if d != 0 && elems > math.MaxInt64/int64(d) {
			return nil, fmt.Errorf("%s: shape %v: more elements than a file can hold", name, h.Shape)
		}
		elems *= int64(d)
	}
	if elems > math.MaxInt64/int64(h.Elem) {
		return nil, fmt.Errorf("%s: shape %v of %s: more bytes than a file can hold", name, h.Shape, h.Descr)
	}
	h.Size = elems * int64(h.Elem)
	if present := size - n; h.Size != present {
		return nil, fmt.Errorf("%s: shape %v of %s declares %d elements (%d bytes) of data, the file holds %d bytes after its %d-byte header",
			name, h.Shape, h.Descr, elems, h.Size, present, n)
	}
	return h, nil
}

// elemSize is the bytes of a plain numeric descr ("<f2", "|u1", "|b1"),
// or why it is refused.
func elemSize(descr string) (int, error) {
	if len(descr) < 3 {
		return 0, fmt.Errorf("element type %q is not supported (want bool, (u)int8..64, float16..64)", descr)
	}
	order, kind, bits := descr[0], descr[1], descr[2:]
	size, err := strconv.Atoi(bits)
	ok := err == nil && strings.IndexByte("<>|", order) >= 0
	switch kind {
	case 'b':
		ok = ok && size == 1
	case 'i', 'u':
		ok = ok && (size == 1 || size == 2 || size == 4 || size == 8)
	case 'f':
		ok = ok && (size == 2 || size == 4 || size == 8)
	default:
		ok = false
	}
	if !ok {
		return 0, fmt.Errorf("element type %q is not supported (want bool, (u)int8..64, float16..64)", descr)
	}
	if order == '>' && size > 1 {
		return 0, fmt.Errorf("big-endian %s: ndma reads little-endian arrays", descr)
	}
	return size, nil
}

// parseDict reads the header's Python dict literal: exactly the keys
// 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple
// of non-negative integers), then only spaces up to the closing newline.
func parseDict(s string) (*Header, error) {
	p := &dictParser{s: s}
	h := &Header{}
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return nil, p.fail("want '{'")
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.fail(fmt.Sprintf("key %q twice", key))
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return nil, p.fail("want ':'")
		}
		p.space()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return nil, p.fail("a structured dtype (a list of fields): ndma reads plain numeric arrays")
			}
			if h.Descr, err = p.str(); err != nil {
				return nil, err
			}
			if h.Elem, err = elemSize(h.Descr); err != nil {
				return nil, err
			}
		case "fortran_order":
			switch {
			case p.word("False"):
			case p.word("True"):
				return nil, fmt.Errorf("Fortran-ordered array: ndma reads C order (np.ascontiguousarray first)")
			default:
				return nil, p.fail("fortran_order is neither True nor False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, p.fail(fmt.Sprintf("unexpected key %q (want descr, fortran_order, shape)", key))
		}
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return nil, p.fail("want ',' or '}'")
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, fmt.Errorf("no %q key", k)
		}
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.fail("text after the dict")
	}
	return h, nil
}

type dictParser struct {
	s string
	i int
}

func (p *dictParser) fail(why string) error {
	return fmt.Errorf("at byte %d: %s", p.i, why)
}

func (p *dictParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *dictParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dictParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str is a quoted string without escapes (what NumPy writes).
func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.fail("want a quoted string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", p.fail("an unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", p.fail("an escape in a string")
	}
	p.i += end + 2
	return v, nil
}

// tuple is "()", "(n,)" or "(a, b, …)" of non-negative decimal integers
// (a Python 2 "L" suffix allowed); "(n)", an integer in Python, is not one.
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.fail("shape is not a tuple")
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, nil // "()" or after a trailing comma
		}
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if j == p.i {
			return nil, p.fail("a shape dimension that is not a non-negative integer")
		}
		d, err := strconv.ParseInt(p.s[j:p.i], 10, strconv.IntSize)
		if err != nil {
			digits := p.s[j:p.i]
			if len(digits) > 24 { // echoed in part: a header may hold thousands
				digits = fmt.Sprintf("%s… (%d digits)", digits[:20], len(digits))
			}
			return nil, p.fail(fmt.Sprintf("shape dimension %s out of range", digits))
		}
		p.eat('L')
		shape = append(shape, int(d))
		p.space()
		if p.eat(',') {
			continue
		}
		if !p.eat(')') {
			return nil, p.fail("want ',' or ')' in the shape")
		}
		if len(shape) == 1 {
			return nil, p.fail("shape (n) is an integer, not a tuple: want (n,)")
		}
		return shape, nil
	}
}

// File is an open .npy file: its checked header, and its data read a piece
// at a time. It is not safe for concurrent use but for ReadAt.
type File struct {
	Header
	name string
	f    *os.File
}

// Open opens a .npy file and checks its header against its size (see
// ParseHeader); nothing of the data is read.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	h, err := ParseHeader(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{Header: *h, name: path, f: f}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadAt reads data bytes [off, off+len(p)) (off counts from the data's
// first byte, not the file's) as io.ReaderAt does: n < len(p) only with an
// error, io.EOF at the data's end. A file that has shrunk since Open is an
// error naming where its data stops.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > f.Size {
		return 0, fmt.Errorf("%s: data offset %d outside its %d bytes", f.name, off, f.Size)
	}
	want := int64(len(p))
	if want > f.Size-off {
		p = p[:f.Size-off]
	}
	n, err := f.f.ReadAt(p, f.Offset+off)
	switch {
	case n == len(p) && int64(n) < want:
		return n, io.EOF
	case n == len(p):
		return n, nil
	case errors.Is(err, io.EOF):
		return n, fmt.Errorf("%s: the data stops at byte %d of the %d declared (the file changed since it was opened)", f.name, off+int64(n), f.Size)
	}
	return n, fmt.Errorf("%s: reading data bytes at %d: %w", f.name, off+int64(n), err)
}

// ChunkSize is the piece ReadInto reads at a time.
const ChunkSize = 4 << 20

// ReadInto reads the whole data in order, ChunkSize bytes at a time into
// one buffer, and hands each piece to fill with its offset in the data;
// the piece is valid only during the call. It stops at fill's first error
// and returns it as is.
func (f *File) ReadInto(fill func(chunk []byte, off int64) error) error {
	buf := make([]byte, min(f.Size, ChunkSize))
	for off := int64(0); off < f.Size; {
		b := buf[:min(int64(len(buf)), f.Size-off)]
		if n, err := f.ReadAt(b, off); n < len(b) {
			return err
		}
		if err := fill(b, off); err != nil {
			return err
		}
		off += int64(len(b))
	}
	return nil
}

// WriteHeader writes the preamble and header of a .npy file (format 1.0,
// as Write does) for data of descr and shape, which the caller then writes
// in C order: elements × element size bytes.
func WriteHeader(w io.Writer, descr string, shape []int) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	s := strings.Join(dims, ", ")
	if len(shape) == 1 {
		s += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, s)
	pad := 64 - (10+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	if len(hdr) > math.MaxUint16 {
		return fmt.Errorf("a .npy 1.0 header of %d bytes (shape %v): at most %d", len(hdr), shape, math.MaxUint16)
	}
	pre := []byte("\x93NUMPY\x01\x00\x00\x00")
	pre[8], pre[9] = byte(len(hdr)), byte(len(hdr)>>8)
	if _, err := w.Write(pre); err != nil {
		return err
	}
	_, err := io.WriteString(w, hdr)
	return err
}
