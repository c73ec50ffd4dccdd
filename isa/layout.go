package isa

import (
	"fmt"
	"sort"

	"ndma/internal/bitfield"
)

// Kind is how a field's bits are read.
type Kind uint8

// Field kinds.
const (
	KUint        Kind = iota // unsigned little-endian integer or bit-field (maybe an Enum)
	KInt                     // signed two's-complement integer
	KStruct                  // a sub-struct (Sub)
	KAddr8                   // ADDR8 union, marker in byte 7 (§4.1)
	KPseudoAddr8             // PSEUDO_ADDR8: ADDR8 plus the var arm (§3.3, §11.2)
	KAddr4                   // ADDR4 union, marker in byte 3 (§4.2)
	KDMAAddr                 // v5 DMA_ADDR_UNION, arm chosen by a DMA_ADDR_MODE nibble (§2.5)
	KBytes                   // opaque bytes (raw descriptors, reserved ranges, unknown payload)
	KCCInst                  // one 4-byte compact control instruction (§3.11)
)

// Field is one row of a layout table: the only place an offset is written.
type Field struct {
	Name     string
	Off      int     // byte offset inside the parent struct
	Size     int     // bytes of one element; for a bit-field, the unit that holds it
	Bit      int     // bit-field: LSB position inside the unit
	Bits     int     // bit-field width; 0 = the whole unit
	Count    int     // array length; 0 = a scalar
	Kind     Kind    //
	Enum     *Enum   // value names (KUint)
	Sub      *Struct // KStruct
	Sel      string  // KDMAAddr: path of the DMA_ADDR_MODE field that picks the arm
	Reserved bool    // must be zero; kept so that any word round-trips
	Text     bool    // KBytes holding NUL-padded ASCII (a queue name): text and JSON show it as a string
	Prov     Prov
	Note     string
}

// Struct is a layout table: a named list of fields of a fixed byte size.
type Struct struct {
	Name   string
	Size   int
	Fields []Field
	Prov   Prov
	Note   string

	leaves []Leaf
	plan   *bitfield.Plan // the leaves compiled for the decode/encode loops
	byPath map[string]int
	keys   []Key // the assembly keys (text.go)
}

// Leaf is one flattened scalar of a layout: the unit that decode and encode move.
type Leaf struct {
	Path   string // spec path: "events.wait_mode", "src_step_elem[1]"
	Off    int    // absolute byte offset
	Bit    int    // first bit inside byte Off
	Bits   int    // width in bits
	Field  *Field // the row it comes from (for arrays and byte chunks: the array/bytes row)
	Elem   int    // array element index (0 for scalars)
	Chunk  int    // for KBytes longer than 8: which 8-byte chunk
	bf     bitfield.Field
	signed bool
}

// Signed reports whether the leaf is a two's-complement integer.
func (l *Leaf) Signed() bool { return l.signed }

// maxLeaves bounds the decoded form of one word (checked at init).
const maxLeaves = bitfield.MaxFields

// MaxLeaves bounds the leaves of one layout.
const MaxLeaves = maxLeaves

// Leaves is the flattened field list in table order.
func (s *Struct) Leaves() []Leaf { return s.leaves }

// LeafIndex finds a leaf by path.
func (s *Struct) LeafIndex(path string) (int, bool) {
	i, ok := s.byPath[path]
	return i, ok
}

// elemBits is the width of one element in bits.
func (f *Field) elemBits() int {
	if f.Bits != 0 {
		return f.Bits
	}
	return f.Size * 8
}

// n returns the number of elements (1 for a scalar).
func (f *Field) n() int {
	if f.Count == 0 {
		return 1
	}
	return f.Count
}

// NewLayout checks and compiles a layout declared outside this package (the
// 16-byte SDMA descriptor uses the same machinery as the words).
func NewLayout(name string, size int, prov Prov, fields []Field) (*Struct, error) {
	s := &Struct{Name: name, Size: size, Prov: prov, Fields: fields}
	if err := s.build(); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeLeaves extracts every leaf of b (len ≥ Size) into v, in Leaves() order.
func (s *Struct) DecodeLeaves(b []byte, v *[MaxLeaves]uint64) { s.plan.Decode(b, v) }

// EncodeLeaves packs v into b[:Size]; every bit is written.
func (s *Struct) EncodeLeaves(b []byte, v *[MaxLeaves]uint64) { s.plan.Encode(b, v) }

// finish flattens a top-level layout into leaves and checks it. A bad table
// is a programming error in ndma, so it panics at package init.
func (s *Struct) finish() *Struct {
	if err := s.build(); err != nil {
		panic(err)
	}
	return s
}

// build checks the names and extents, flattens, then checks the bit coverage.
func (s *Struct) build() (err error) {
	if err := checkNames(s); err != nil {
		return err
	}
	defer func() { // addLeaf reports a bad range by panicking
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.byPath = map[string]int{}
	s.leaves = nil
	if s.plan, err = bitfield.NewPlan(s.Size); err != nil {
		return err
	}
	s.flatten("", 0, s)
	if len(s.leaves) > maxLeaves {
		return fmt.Errorf("isa: layout %s has %d leaves, more than %d", s.Name, len(s.leaves), maxLeaves)
	}
	s.buildKeys()
	return s.Check()
}

func (s *Struct) flatten(prefix string, base int, st *Struct) {
	for fi := range st.Fields {
		f := &st.Fields[fi]
		for e := 0; e < f.n(); e++ {
			path := prefix + f.Name
			if f.Count > 0 {
				path = fmt.Sprintf("%s[%d]", path, e)
			}
			off := base + f.Off + e*f.Size
			if f.Kind == KStruct {
				s.flatten(path+".", off, f.Sub)
				continue
			}
			if f.Kind == KBytes && f.Size > 8 {
				for c := 0; c*8 < f.Size; c++ {
					w := min(8, f.Size-c*8)
					s.addLeaf(Leaf{Path: fmt.Sprintf("%s#%d", path, c), Off: off + c*8, Bits: w * 8, Field: f, Elem: e, Chunk: c})
				}
				continue
			}
			s.addLeaf(Leaf{Path: path, Off: off, Bit: f.Bit, Bits: f.elemBits(), Field: f, Elem: e, signed: f.Kind == KInt})
		}
	}
}

func (s *Struct) addLeaf(l Leaf) {
	bf, err := bitfield.Make(l.Off, l.Bit, l.Bits, s.Size)
	if err != nil {
		panic(fmt.Sprintf("isa: layout %s leaf %s: %v", s.Name, l.Path, err))
	}
	l.bf = bf
	if _, err := s.plan.Add(l.Off, l.Bit, l.Bits); err != nil {
		panic(fmt.Sprintf("isa: layout %s leaf %s: %v", s.Name, l.Path, err))
	}
	if _, dup := s.byPath[l.Path]; dup {
		panic(fmt.Sprintf("isa: layout %s: duplicate path %s", s.Name, l.Path))
	}
	s.byPath[l.Path] = len(s.leaves)
	s.leaves = append(s.leaves, l)
}

// Check verifies the table itself: fields inside their parent, no two leaves
// sharing a bit, every bit covered by a field or a named reserved range,
// unique names in every struct, named enum values unique.
func (s *Struct) Check() error {
	if err := checkNames(s); err != nil {
		return err
	}
	type span struct {
		lo, hi int
		path   string
	}
	var spans []span
	for _, l := range s.leaves {
		lo := l.Off*8 + l.Bit
		spans = append(spans, span{lo, lo + l.Bits, l.Path})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	next := 0
	for _, sp := range spans {
		if sp.lo < next {
			return fmt.Errorf("isa: layout %s: %s (bit %d) overlaps the field before it", s.Name, sp.path, sp.lo)
		}
		if sp.lo > next {
			return fmt.Errorf("isa: layout %s: bits %d..%d are not covered by any field", s.Name, next, sp.lo-1)
		}
		next = sp.hi
	}
	if next != s.Size*8 {
		return fmt.Errorf("isa: layout %s: bits %d..%d are not covered by any field", s.Name, next, s.Size*8-1)
	}
	return nil
}

func checkNames(st *Struct) error {
	seen := map[string]bool{}
	for i := range st.Fields {
		f := &st.Fields[i]
		if f.Name == "" {
			return fmt.Errorf("isa: layout %s: field at offset %d has no name", st.Name, f.Off)
		}
		if seen[f.Name] {
			return fmt.Errorf("isa: layout %s: field name %s used twice", st.Name, f.Name)
		}
		seen[f.Name] = true
		if f.Off+f.n()*f.Size > st.Size {
			return fmt.Errorf("isa: layout %s: field %s runs past %d bytes", st.Name, f.Name, st.Size)
		}
		if f.Bit+f.elemBits() > f.Size*8 {
			return fmt.Errorf("isa: layout %s: bit-field %s runs past its %d-byte unit", st.Name, f.Name, f.Size)
		}
		if f.Kind == KStruct {
			if f.Sub == nil || f.Sub.Size != f.Size {
				return fmt.Errorf("isa: layout %s: sub-struct %s size mismatch", st.Name, f.Name)
			}
			if err := checkNames(f.Sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// TypeName is the field's type as `ndma describe` prints it.
func (f *Field) TypeName() string {
	var t string
	switch f.Kind {
	case KUint, KInt:
		switch {
		case f.Bits != 0:
			t = fmt.Sprintf("u%d", f.Bits)
		case f.Kind == KInt:
			t = fmt.Sprintf("i%d", f.Size*8)
		default:
			t = fmt.Sprintf("u%d", f.Size*8)
		}
		if f.Enum != nil {
			t = f.Enum.Name + "(" + t + ")"
		}
	case KStruct:
		t = f.Sub.Name
	case KAddr8:
		t = "ADDR8"
	case KPseudoAddr8:
		t = "PSEUDO_ADDR8"
	case KAddr4:
		t = "ADDR4"
	case KDMAAddr:
		t = "DMA_ADDR_UNION"
	case KBytes:
		t = fmt.Sprintf("bytes[%d]", f.Size)
		if f.Text {
			t = fmt.Sprintf("char[%d]", f.Size)
		}
	case KCCInst:
		t = "CCINST"
	}
	if f.Count > 0 {
		t = fmt.Sprintf("%s[%d]", t, f.Count)
	}
	return t
}

// Constructors for the tables: terse on purpose, so that each row reads as
// "offset, name, type, provenance, note".

func u8(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 1, Kind: KUint, Prov: p, Note: note}
}
func u16(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 2, Kind: KUint, Prov: p, Note: note}
}
func u32(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 4, Kind: KUint, Prov: p, Note: note}
}
func i32(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 4, Kind: KInt, Prov: p, Note: note}
}
func enum8(off int, name string, e *Enum, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 1, Kind: KUint, Enum: e, Prov: p, Note: note}
}

// bits is a bit-field of a 1-byte unit.
func bits(bit, width int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: 0, Size: 1, Bit: bit, Bits: width, Kind: KUint, Prov: p, Note: note}
}
func sub(off int, name string, st *Struct, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: st.Size, Kind: KStruct, Sub: st, Prov: p, Note: note}
}
func addr8(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 8, Kind: KAddr8, Prov: p, Note: note}
}
func paddr8(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 8, Kind: KPseudoAddr8, Prov: p, Note: note}
}
func addr4(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 4, Kind: KAddr4, Prov: p, Note: note}
}
func dmaAddr(off int, name, sel string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 8, Kind: KDMAAddr, Sel: sel, Prov: p, Note: note}
}
func rawBytes(off, size int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: size, Kind: KBytes, Prov: p, Note: note}
}

// text is a NUL-padded ASCII byte range (KBytes with Text set).
func text(off, size int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: size, Kind: KBytes, Text: true, Prov: p, Note: note}
}
func reserved(off, size int, name string, p Prov, note string) Field {
	f := Field{Name: name, Off: off, Size: size, Kind: KUint, Reserved: true, Prov: p, Note: note}
	if size > 8 {
		f.Kind = KBytes
	}
	return f
}

func (f Field) arr(n int) Field    { f.Count = n; return f }
func (f Field) enum(e *Enum) Field { f.Enum = e; return f }
func (f Field) resv() Field        { f.Reserved = true; return f }

// Resv marks a field reserved (for layouts declared outside this package).
func (f Field) Resv() Field { return f.resv() }

// WithEnum names the field's values by e.
func (f Field) WithEnum(e *Enum) Field { return f.enum(e) }
