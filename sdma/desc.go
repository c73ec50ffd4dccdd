// Package sdma is the al_udma side of data movement: the 16-byte SDMA buffer
// descriptor (declared once, as a layout table like the instruction words),
// the expansion of a DGE program into M2S and S2M descriptor lists per
// channel, rings in the DGE_MEMORY carveout, and the doorbells.
package sdma

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"ndma/internal/bitfield"
	"ndma/isa"
)

// The SDMA buffer descriptor — field-tables §6.1 (CARRIED) and §11.7: where
// they differ, the open-source driver's `union udma_desc` layout wins (first,
// last, int_en at bits 26–28 of word0). Neither source document gives a bit
// of word0 (000 §5 names only "{buf_ptr, elem_size, completion sem}"), so
// ring_phase, first, last, int_en and dmb are CARRIED from field-tables.

func bit(word, b, w int, name string, p isa.Prov, note string) isa.Field {
	return isa.Field{Name: name, Off: 4 * word, Size: 4, Bit: b, Bits: w, Kind: isa.KUint, Prov: p, Note: note}
}

// Layout is the descriptor's table.
var Layout = func() *isa.Struct {
	s, err := isa.NewLayout("SDMA_BD", 16, isa.Inferred, []isa.Field{
		bit(0, 0, 16, "length", isa.Observed, "bytes; 0 = 64 KiB"),
		bit(0, 16, 1, "md", isa.Carried, ""),
		bit(0, 17, 1, "rsvd_dummy", isa.Carried, ""),
		bit(0, 18, 5, "netag0_meta", isa.Carried, ""),
		bit(0, 23, 1, "has_meta_ctrl", isa.Carried, "set on CCE descriptors"),
		bit(0, 24, 2, "ring_phase", isa.Carried, "the ring's generation tag, toggled on wrap (docs/field-tables.md §11.7)"),
		bit(0, 26, 1, "first", isa.Carried, "driver layout (docs/field-tables.md §11.7)"),
		bit(0, 27, 1, "last", isa.Carried, "driver layout (docs/field-tables.md §11.7)"),
		bit(0, 28, 1, "int_en", isa.Carried, "ndma marks the completion descriptor with it"),
		bit(0, 29, 1, "reserved_29", isa.Inferred, "").Resv(),
		bit(0, 30, 1, "dmb", isa.Carried, "driver layout (docs/field-tables.md §11.7)"),
		bit(0, 31, 1, "reserved_31", isa.Inferred, "").Resv(),
		bit(1, 0, 5, "netag0_rsvd", isa.Carried, ""),
		bit(1, 5, 1, "write_barrier", isa.Carried, ""),
		bit(1, 6, 3, "op", isa.Carried, "SDMAOP: DRE 1, CME 2, CCE 4").WithEnum(SDMAOp),
		bit(1, 9, 3, "optype", isa.Carried, "SDMA_CMETYPE; on a CCE descriptor SDMA_CCETYPE (INFERRED)"),
		bit(1, 12, 1, "copy_src_data", isa.Carried, ""),
		bit(1, 13, 1, "store_source_crc", isa.Carried, ""),
		bit(1, 14, 1, "store_crc_result", isa.Carried, ""),
		bit(1, 15, 1, "send_crc", isa.Carried, ""),
		bit(1, 16, 1, "use_stored_crc_iv", isa.Carried, ""),
		bit(1, 17, 1, "validate_crc", isa.Carried, ""),
		bit(1, 18, 8, "endian_type", isa.Carried, "on a CCE descriptor: in dtype (low nibble), out dtype (high nibble) — INFERRED"),
		bit(1, 26, 3, "cached_crc_iv_index", isa.Carried, ""),
		bit(1, 29, 3, "block_attr", isa.Carried, ""),
		{Name: "buf_ptr", Off: 8, Size: 8, Kind: isa.KUint, Prov: isa.Observed, Note: "SoC address read (M2S) or written (S2M)"},
	})
	if err != nil {
		panic(err)
	}
	return s
}()

// SDMAOp is the descriptor's op (field-tables §6.1).
var SDMAOp = isa.NewEnum("SDMAOP", isa.Carried,
	isa.EnumValue{Value: 1, Name: "DRE", Prov: isa.Carried, Note: "strided / transpose"},
	isa.EnumValue{Value: 2, Name: "CME", Prov: isa.Carried, Note: "copy"},
	isa.EnumValue{Value: 4, Name: "CCE", Prov: isa.Carried, Note: "in-flight compute"},
)

// Ops.
const (
	OpDRE = 1
	OpCME = 2
	OpCCE = 4
)

// SDMA_CMETYPE COPY and the SDMA_CCETYPE values (field-tables §6.1, CARRIED).
const (
	CMECopy = 0
	CCEAdd  = 0
	CCEFMA  = 1
	CCEMax  = 2
	CCEMin  = 3
	CCEExt  = 4
)

// located fields, from the table
var (
	fLength   = field("length")
	fMetaCtrl = field("has_meta_ctrl")
	fPhase    = field("ring_phase")
	fFirst    = field("first")
	fLast     = field("last")
	fIntEn    = field("int_en")
	fOp       = field("op")
	fOpType   = field("optype")
	fEndian   = field("endian_type")
	fBufPtr   = field("buf_ptr")
)

func field(name string) bitfield.Field {
	i, ok := Layout.LeafIndex(name)
	if !ok {
		panic("sdma: no field " + name)
	}
	l := Layout.Leaves()[i]
	f, err := bitfield.Make(l.Off, l.Bit, l.Bits, Layout.Size)
	if err != nil {
		panic(err)
	}
	return f
}

// Desc is one 16-byte buffer descriptor, kept as its bytes.
type Desc [16]byte

// Length is the byte count (a 0 field means 64 KiB).
func (d *Desc) Length() int {
	if v := fLength.Get(d[:]); v != 0 {
		return int(v)
	}
	return 65536
}

// BufPtr is the SoC address.
func (d *Desc) BufPtr() uint64 { return fBufPtr.Get(d[:]) }

// Op is the SDMAOP.
func (d *Desc) Op() int { return int(fOp.Get(d[:])) }

// OpType is the CME / CCE type.
func (d *Desc) OpType() int { return int(fOpType.Get(d[:])) }

// Phase is the ring phase (generation tag).
func (d *Desc) Phase() int { return int(fPhase.Get(d[:])) }

// First, Last and IntEn are the flags.
func (d *Desc) First() bool { return fFirst.Get(d[:]) != 0 }
func (d *Desc) Last() bool  { return fLast.Get(d[:]) != 0 }
func (d *Desc) IntEn() bool { return fIntEn.Get(d[:]) != 0 }

// The fields Head decodes, where the table puts them (TestHeadIsTheLayout
// holds them to it): bits of the descriptor's first 8-byte word.
const (
	headLength = 0      // length, 16 bits
	headPhase  = 24     // ring_phase, 2 bits
	headOp     = 32 + 6 // op, 3 bits
	headOpType = 32 + 9 // optype, 3 bits
)

// Head is Length, Phase, Op, OpType and BufPtr at once, from the
// descriptor's two 8-byte words: what the engines read of every descriptor.
func (d *Desc) Head() (length, phase, op, optype int, buf uint64) {
	w := binary.LittleEndian.Uint64(d[0:8])
	if length = int(w >> headLength & 0xffff); length == 0 {
		length = 65536
	}
	return length, int(w >> headPhase & 3), int(w >> headOp & 7), int(w >> headOpType & 7), binary.LittleEndian.Uint64(d[8:16])
}

// Dtypes are the CCE descriptor's in and out DTYPE codes (INFERRED placement).
func (d *Desc) Dtypes() (in, out uint8) {
	v := fEndian.Get(d[:])
	return uint8(v & 0xf), uint8(v >> 4)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// newDesc builds a data descriptor of n bytes (1..65536) at a SoC address.
func newDesc(n int, ptr uint64, op, optype int) Desc {
	var d Desc
	fLength.Put(d[:], uint64(n)&0xffff)
	fOp.Put(d[:], uint64(op))
	fOpType.Put(d[:], uint64(optype))
	fBufPtr.Put(d[:], ptr)
	return d
}

func (d *Desc) setFlags(first, last, intEn bool) {
	fFirst.Put(d[:], b2u(first))
	fLast.Put(d[:], b2u(last))
	fIntEn.Put(d[:], b2u(intEn))
}

func (d *Desc) setCCE(in, out uint8) {
	fMetaCtrl.Put(d[:], 1)
	fEndian.Put(d[:], uint64(in&0xf)|uint64(out&0xf)<<4)
}

func (d *Desc) setPhase(p int) { fPhase.Put(d[:], uint64(p)) }

// String is one line: length, flags, op, buf_ptr.
func (d *Desc) String() string { return string(d.AppendText(nil)) }

// AppendText appends String's line, built without fmt: a NEFF's listing
// writes one per descriptor (millions).
func (d *Desc) AppendText(b []byte) []byte {
	b = append(b, "len="...)
	k := len(b)
	b = pad(strconv.AppendInt(b, int64(d.Length()), 10), k+5)
	b = append(b, " phase="...)
	b = strconv.AppendInt(b, int64(d.Phase()), 10)
	b = append(b, ' ')
	k = len(b)
	for _, f := range [...]struct {
		on   bool
		name string
	}{{d.First(), "FIRST"}, {d.Last(), "LAST"}, {d.IntEn(), "INT_EN"}} {
		if f.on {
			if len(b) > k {
				b = append(b, '|')
			}
			b = append(b, f.name...)
		}
	}
	if len(b) == k {
		b = append(b, '-')
	}
	b = pad(b, k+17)
	b = append(b, ' ')
	k = len(b)
	b = append(b, SDMAOp.Format(uint64(d.Op()))...)
	switch d.Op() {
	case OpCME:
		b = append(b, ":COPY"...)
	case OpCCE:
		in, out := d.Dtypes()
		b = append(append(append(append(append(append(b, ':'), cceName(d.OpType())...), ':'), isa.DType().Format(uint64(in))...), "->"...), isa.DType().Format(uint64(out))...)
	}
	b = pad(b, k+24)
	b = append(b, " buf_ptr=0x"...)
	return strconv.AppendUint(b, d.BufPtr(), 16)
}

// pad appends spaces up to length n (fmt's %-Nd, %-Ns).
func pad(b []byte, n int) []byte {
	for len(b) < n {
		b = append(b, ' ')
	}
	return b
}

func cceName(t int) string {
	switch t {
	case CCEAdd:
		return "ADD"
	case CCEFMA:
		return "FMA"
	case CCEMax:
		return "MAX"
	case CCEMin:
		return "MIN"
	case CCEExt:
		return "EXT"
	}
	return fmt.Sprint(t)
}

// CopyDesc is a CME COPY descriptor of n bytes (1..65536) at a SoC address
// with its flags and ring phase — for descriptors built outside Expand (the
// v5 inline words on the engines).
func CopyDesc(n int, soc uint64, first, last bool, phase int) Desc {
	d := newDesc(n, soc, OpCME, CMECopy)
	d.setFlags(first, last, false)
	d.setPhase(phase)
	return d
}
