package isa

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// WordSize is the size of every instruction word.
const WordSize = 64

// Sentinel errors, for errors.Is.
var (
	ErrTruncated     = errors.New("truncated word")
	ErrUnknownOpcode = errors.New("unknown opcode")
	ErrNoField       = errors.New("no such field")
	ErrRange         = errors.New("value out of range")
)

// DecodeError locates a decode failure in a byte stream.
type DecodeError struct {
	Offset int // byte offset of the word in the stream
	Opcode int // the word's opcode, or -1 when not even byte 0 was there
	Have   int // bytes present
	Err    error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offset %#x", e.Offset)
	if e.Opcode >= 0 {
		fmt.Fprintf(&b, " (%s)", Opcode(e.Opcode))
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if errors.Is(e.Err, ErrTruncated) {
		fmt.Fprintf(&b, ": %d of %d bytes", e.Have, WordSize)
	}
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Inst is one decoded instruction: its word as it stands in the stream, read
// and written field by field through its layout's leaves (a decoded view, not
// an unpacked copy), so that it is small enough to pass by value. A 0xd4
// pseudo word carries the 0xda extension word that followed it.
type Inst struct {
	Gen    Gen // the generation it was decoded for (GenAny: not stated)
	hasExt bool

	def *OpDef
	w   [WordSize]byte // the word; every bit belongs to one leaf of def's layout
	ext [WordSize]byte // the 0xda extension (PseudoExt), when hasExt
}

// leafAt is leaf i's raw value, read from the word.
func (in *Inst) leafAt(i int) uint64 { return in.layout().leaves[i].bf.Get(in.w[:]) }

// get reads width bits of the word at at = window<<8 | shift: from bit shift
// of the 8 bytes at byte window (typed_gen.go's reads of a word's fields,
// with constants: a load, a shift and a mask once inlined).
func (in *Inst) get(at, width uint) uint64 {
	return binary.LittleEndian.Uint64(in.w[at>>8&63:]) >> (at & 63) & (^uint64(0) >> (64 - width))
}

// putLeaf stores the low bits of v (the leaf's width) into leaf i.
func (in *Inst) putLeaf(i int, v uint64) { in.layout().leaves[i].bf.Put(in.w[:], v) }

// leafBytes copies the byte range that starts at leaf i (a KBytes chunk) into b.
func (in *Inst) leafBytes(i int, b []byte) { copy(b, in.w[in.layout().leaves[i].Off:]) }

// setLeafBytes is leafBytes' inverse.
func (in *Inst) setLeafBytes(i int, b []byte) { copy(in.w[in.layout().leaves[i].Off:], b) }

// New returns an instruction of opcode op with every field zero except the
// header: opcode and inst_word_len = 0x10 (0xda has no header, only byte 0).
func New(gen Gen, op Opcode) Inst {
	var in Inst
	in.Reset(gen, op)
	return in
}

// Def is the catalog row of the instruction's opcode.
func (in *Inst) Def() *OpDef { return in.def }

// Opcode is byte 0.
func (in *Inst) Opcode() Opcode { return Opcode(in.w[0]) }

// Layout is the table the instruction decodes by.
func (in *Inst) Layout() *Struct { return in.layout() }

// layout is the table of the word's opcode on its generation.
func (in *Inst) layout() *Struct { return in.def.layoutOn(in.Gen) }

// Size is the number of stream bytes the instruction occupies (64, or 128 for
// a 0xd4 with its extension).
func (in *Inst) Size() int {
	if in.hasExt {
		return 2 * WordSize
	}
	return WordSize
}

// Ext returns the 0xda extension word attached to a 0xd4, if any.
func (in *Inst) Ext() (Inst, bool) {
	if !in.hasExt {
		return Inst{}, false
	}
	return Inst{Gen: in.Gen, def: opTable[OpPseudoExtension], w: in.ext}, true
}

// SetExt attaches (or, with ok false, removes) a 0xda extension on a 0xd4.
func (in *Inst) SetExt(x Inst, ok bool) error {
	if !ok {
		in.hasExt = false
		return nil
	}
	if in.def == nil || in.Opcode() != OpPseudoDMADirect2D || x.def == nil || x.Opcode() != OpPseudoExtension {
		return fmt.Errorf("an extension word (0xda) can only follow a PSEUDO_DMA_DIRECT2D (0xd4)")
	}
	in.ext = x.w
	in.hasExt = true
	return nil
}

// Decode decodes the instruction at the start of b: one 64-byte word, or a
// 0xd4 followed by its 0xda extension. Unknown opcodes decode by the Raw
// layout. Decode does not allocate.
func Decode(gen Gen, b []byte) (Inst, error) {
	var in Inst
	err := in.decodeAt(gen, b, 0)
	return in, err
}

func (in *Inst) decodeAt(gen Gen, b []byte, off int) error {
	if len(b) < WordSize {
		op := -1
		if len(b) > 0 {
			op = int(b[0])
		}
		return &DecodeError{Offset: off, Opcode: op, Have: len(b), Err: ErrTruncated}
	}
	in.Gen = gen
	in.def = opTable[b[0]]
	in.hasExt = false
	in.w = [WordSize]byte(b)
	if b[0] == byte(OpPseudoDMADirect2D) && len(b) > WordSize && b[WordSize] == byte(OpPseudoExtension) {
		if len(b) < 2*WordSize {
			return &DecodeError{Offset: off + WordSize, Opcode: int(OpPseudoExtension), Have: len(b) - WordSize, Err: ErrTruncated}
		}
		in.ext = [WordSize]byte(b[WordSize:])
		in.hasExt = true
	}
	return nil
}

// Encode packs the instruction's main word. Decode(Encode(x)) == x for every
// decoded x, reserved bits included.
func Encode(in Inst) ([WordSize]byte, error) {
	var w [WordSize]byte
	if in.def == nil {
		return w, errors.New("encode: empty instruction (no opcode)")
	}
	return in.w, nil
}

func (in *Inst) encodeTo(w []byte) { copy(w, in.w[:]) }

// EncodeTo packs the main word into w[:64].
func (in *Inst) EncodeTo(w []byte) error {
	if in.def == nil {
		return errors.New("encode: empty instruction (no opcode)")
	}
	in.encodeTo(w[:WordSize])
	return nil
}

// Reset makes in a zero instruction of opcode op, as New does, in place.
func (in *Inst) Reset(gen Gen, op Opcode) {
	in.Gen, in.def, in.hasExt = gen, opTable[op], false
	in.w = [WordSize]byte{0: byte(op)}
	if op != OpPseudoExtension {
		in.putLeaf(1, 0x10)
	}
}

// AppendEncoded appends the instruction's stream bytes (64, or 128 with an
// extension) to dst.
func AppendEncoded(dst []byte, in Inst) ([]byte, error) {
	if in.def == nil {
		return dst, errors.New("encode: empty instruction (no opcode)")
	}
	dst = append(dst, in.w[:]...)
	if in.hasExt {
		dst = append(dst, in.ext[:]...)
	}
	return dst, nil
}

// Decoder walks a stream of words.
type Decoder struct {
	gen  Gen
	b    []byte
	off  int
	next int
	inst Inst
	err  error
}

// NewDecoder returns a decoder over b for generation gen.
func NewDecoder(gen Gen, b []byte) *Decoder { return &Decoder{gen: gen, b: b} }

// Next decodes the next instruction; it returns false at the end of the
// stream or on an error (see Err).
func (d *Decoder) Next() bool {
	if d.err != nil || d.next >= len(d.b) {
		return false
	}
	d.off = d.next
	if err := d.inst.decodeAt(d.gen, d.b[d.off:], d.off); err != nil {
		d.err = err
		return false
	}
	d.next = d.off + d.inst.Size()
	return true
}

// Inst is the instruction Next decoded; it is overwritten by the next call.
func (d *Decoder) Inst() *Inst { return &d.inst }

// Offset is the stream byte offset of the current instruction.
func (d *Decoder) Offset() int { return d.off }

// Err is the error that stopped the decoder, if any.
func (d *Decoder) Err() error { return d.err }

// DecodeAll decodes a whole stream.
func DecodeAll(gen Gen, b []byte) ([]Inst, error) {
	var out []Inst
	d := NewDecoder(gen, b)
	for d.Next() {
		out = append(out, *d.Inst())
	}
	return out, d.Err()
}

// Field access by spec path. Arrays are indexed ("src_num_elem[1]") and
// sub-structs dotted ("events.wait_mode").

func (in *Inst) leaf(path string) (*Leaf, int, error) {
	if in.def == nil {
		return nil, 0, errors.New("empty instruction (no opcode)")
	}
	lay := in.layout()
	i, ok := lay.byPath[path]
	if !ok {
		return nil, 0, fmt.Errorf("%s has no field %q: %w", lay.Name, path, ErrNoField)
	}
	return &lay.leaves[i], i, nil
}

// Leaf returns leaf i's raw value (the layout's Leaves() order).
func (in *Inst) Leaf(i int) uint64 {
	if in.def == nil {
		return 0
	}
	return in.leafAt(i)
}

// SetLeaf stores the raw value of leaf i, refusing bits beyond its width.
func (in *Inst) SetLeaf(i int, v uint64) error {
	l := &in.layout().leaves[i]
	if !l.bf.Fits(v) {
		return fmt.Errorf("%s = %#x does not fit %d bits: %w", l.Path, v, l.Bits, ErrRange)
	}
	in.putLeaf(i, v)
	return nil
}

// Uint returns a field's raw value (zero-extended).
func (in *Inst) Uint(path string) (uint64, error) {
	_, i, err := in.leaf(path)
	if err != nil {
		return 0, err
	}
	return in.leafAt(i), nil
}

// Int returns a field's value, sign-extended for signed fields.
func (in *Inst) Int(path string) (int64, error) {
	l, i, err := in.leaf(path)
	if err != nil {
		return 0, err
	}
	if l.signed {
		s := 64 - uint(l.Bits)
		return int64(in.leafAt(i)<<s) >> s, nil
	}
	return int64(in.leafAt(i)), nil
}

// Set stores v into a field, refusing values that do not fit: a signed field
// takes its two's-complement range, an unsigned field 0..2^width-1.
func (in *Inst) Set(path string, v int64) error {
	_, i, err := in.leaf(path)
	if err != nil {
		return err
	}
	return in.setAt(i, v)
}

// setAt is Set of leaf i (the typed setters of typed_gen.go share it, and so its messages).
func (in *Inst) setAt(i int, v int64) error {
	l := &in.layout().leaves[i]
	if l.signed {
		if !l.bf.FitsSigned(v) {
			return fmt.Errorf("%s = %d does not fit i%d: %w", l.Path, v, l.Bits, ErrRange)
		}
		l.bf.Put(in.w[:], uint64(v))
		return nil
	}
	if v < 0 || !l.bf.Fits(uint64(v)) {
		return fmt.Errorf("%s = %d does not fit u%d: %w", l.Path, v, l.Bits, ErrRange)
	}
	l.bf.Put(in.w[:], uint64(v))
	return nil
}

// SetUint stores an unsigned (or raw two's-complement) value of the field's width.
func (in *Inst) SetUint(path string, v uint64) error {
	l, _, err := in.leaf(path)
	if err != nil {
		return err
	}
	if !l.bf.Fits(v) {
		return fmt.Errorf("%s = %#x does not fit %d bits: %w", path, v, l.Bits, ErrRange)
	}
	l.bf.Put(in.w[:], v)
	return nil
}

// MustSet is Set for values known to fit (demo and example code); it panics
// on a programming error.
func (in *Inst) MustSet(path string, v int64) *Inst {
	if err := in.Set(path, v); err != nil {
		panic(err)
	}
	return in
}

// Addr8 returns an ADDR8 / PSEUDO_ADDR8 field.
func (in *Inst) Addr8(path string) (Addr8, error) {
	l, i, err := in.leaf(path)
	if err != nil {
		return Addr8{}, err
	}
	if l.Field.Kind != KAddr8 && l.Field.Kind != KPseudoAddr8 {
		return Addr8{}, fmt.Errorf("%s is %s, not an ADDR8", path, l.Field.TypeName())
	}
	return Addr8{Raw: in.leafAt(i), Pseudo: l.Field.Kind == KPseudoAddr8}, nil
}

// CCInst returns slot k (0..14) of a COMPACT_CONTROL_INST word.
func (in *Inst) CCInst(k int) (CCInst, error) {
	v, err := in.Uint(fmt.Sprintf("insts[%d]", k))
	return CCInst(v), err
}

// Equal reports whether two instructions decode to the same values.
func (in *Inst) Equal(o *Inst) bool {
	if in.def != o.def || in.hasExt != o.hasExt {
		return false
	}
	return in.w == o.w && (!in.hasExt || in.ext == o.ext)
}

// Bytes returns a byte-range field (KBytes, e.g. dma_queue_name) in memory order.
func (in *Inst) Bytes(path string) ([]byte, error) {
	l, i, err := in.leaf(path + "#0")
	if err != nil {
		if l, i, err = in.leaf(path); err != nil {
			return nil, err
		}
	}
	f := l.Field
	if f.Kind != KBytes {
		return nil, fmt.Errorf("%s is not a byte range", path)
	}
	b := make([]byte, f.Size)
	in.leafBytes(i, b)
	return b, nil
}
