package nkic

import (
	"encoding/binary"
	"math"
)

// The packed batch: the program form's calls as fixed-size little-endian
// records, the front end's fast path (ndma.nki's Session.flush; docs/nki.md
// "Python: how a kernel runs") — decoding JSON per call cost more than
// compiling it. A record holds the common call (a listed op; dst and at
// most two sources, each an access pattern of at most 4 dims with an
// offset; alu_op, func, operand0, value, scale); any other call travels
// as JSON and its record says only "the next JSON call". Strings (file,
// tensor and op names) are indices into the batch's string table.
//
//	u8 op (0: the next JSON call; else PackedOps[op-1])  u32 index  u32 line
//	u16 file  u16 alu_op+1  u16 func+1  u8 flags (1 operand0, 2 value, 4 scale, 8 src, not srcs)
//	f64 operand0  f64 value  f64 scale
//	3 × AP: i32 tensor (−1: none)  i64 offset  u8 dims  4 × (i64 step, i64 num)

// PackedOps are the ops a packed record names (op-1); the order is the
// wire format's (python/ndma/nki/_trace.py's _OPS).
var PackedOps = [...]string{"load", "store", "dma_copy", "tensor_copy", "tensor_tensor", "tensor_scalar", "memset", "activation"}

const (
	packedAP     = 4 + 8 + 1 + 4*16
	PackedRecord = 1 + 4 + 4 + 2 + 2 + 2 + 1 + 3*8 + 3*packedAP // bytes per record
	packedDims   = 4
)

// DecodePacked reads a packed batch: records, their strings, and the
// calls the records send as JSON (in order). Every index is checked: a
// malformed batch is an ErrProgram naming the record, never a panic.
func DecodePacked(b []byte, strs []string, jsonCalls []*Call) ([]*Call, error) {
	str := func(k, i int, what string) (string, error) {
		if i < 0 || i >= len(strs) {
			return "", progErr("packed call %d: %s string %d of %d", k, what, i, len(strs))
		}
		return strs[i], nil
	}
	isJSON := func(r []byte) bool { return r[0] == 0 }
	return unpack(b, PackedRecord, MaxCalls, "call", jsonCalls, isJSON, func(k int, r []byte) (*Call, error) {
		op := int(r[0])
		if op > len(PackedOps) {
			return nil, progErr("packed call %d: op %d of %d", k, op, len(PackedOps))
		}
		le := binary.LittleEndian
		idx := int(le.Uint32(r[1:]))
		c := &Call{Op: PackedOps[op-1], Line: int(le.Uint32(r[5:])), Index: &idx}
		var err error
		if c.File, err = str(k, int(le.Uint16(r[9:])), "file"); err != nil {
			return nil, err
		}
		if a := int(le.Uint16(r[11:])); a > 0 {
			if c.ALUOp, err = str(k, a-1, "alu_op"); err != nil {
				return nil, err
			}
		}
		if f := int(le.Uint16(r[13:])); f > 0 {
			if c.Func, err = str(k, f-1, "func"); err != nil {
				return nil, err
			}
		}
		flags := r[15]
		f64 := func(o int) *float64 { v := math.Float64frombits(le.Uint64(r[o:])); return &v }
		if flags&1 != 0 {
			c.Operand0 = f64(16)
		}
		if flags&2 != 0 {
			c.Value = f64(24)
		}
		if flags&4 != 0 {
			c.Scale = f64(32)
		}
		var aps [3]*AP
		for j := range aps {
			o := 40 + j*packedAP
			t := int32(le.Uint32(r[o:]))
			if t < 0 {
				continue
			}
			a := &AP{Offset: int64(le.Uint64(r[o+4:]))}
			if a.Tensor, err = str(k, int(t), "tensor"); err != nil {
				return nil, err
			}
			nd := int(r[o+12])
			if nd > packedDims {
				return nil, progErr("packed call %d: an access pattern of %d dims (at most %d)", k, nd, packedDims)
			}
			a.Pattern = make([][2]int64, nd)
			for d := range nd {
				a.Pattern[d] = [2]int64{int64(le.Uint64(r[o+13+16*d:])), int64(le.Uint64(r[o+21+16*d:]))}
			}
			aps[j] = a
		}
		c.Dst = aps[0]
		if flags&8 != 0 {
			c.Src = aps[1]
		} else {
			for _, a := range aps[1:] {
				if a != nil {
					c.Srcs = append(c.Srcs, a)
				}
			}
		}
		return c, nil
	})
}

// unpack reads n records of size bytes (at most most): each decoded by
// one, or, where isJSON says so, the next of js — every JSON value named
// by exactly one record.
func unpack[T any](b []byte, size, most int, what string, js []T, isJSON func([]byte) bool, one func(k int, r []byte) (T, error)) ([]T, error) {
	if len(b)%size != 0 {
		return nil, progErr("packed %ss: %d bytes is not a whole number of %d-byte records", what, len(b), size)
	}
	n := len(b) / size
	if n > most {
		return nil, progErr("packed %ss: %d records, at most %d", what, n, most)
	}
	out := make([]T, 0, n)
	nj := 0
	for k := range n {
		r := b[k*size : (k+1)*size]
		if isJSON(r) {
			if nj >= len(js) {
				return nil, progErr("packed %s %d: JSON %s %d of %d", what, k, what, nj, len(js))
			}
			out = append(out, js[nj])
			nj++
			continue
		}
		v, err := one(k, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if nj != len(js) {
		return nil, progErr("packed %ss: %d JSON %ss sent, %d named", what, len(js), what, nj)
	}
	return out, nil
}

// A packed tensor record (the batch's new tensors, the same string table):
//
//	u16 name  u16 buffer  u16 dtype  u16 kind+1  u8 flags (1: placed)  u8 dims
//	i64 offset  i32 partition  6 × i64 shape
//
// A tensor of more than 6 dims travels as JSON, its record's dims 0xff.
const (
	PackedTensorRecord = 2*4 + 1 + 1 + 8 + 4 + 8*packedTensorDims // bytes per tensor record
	packedTensorDims   = 6
)

// DecodePackedTensors reads a batch's packed tensor records (and the
// tensors they send as JSON, in order), every index checked.
func DecodePackedTensors(b []byte, strs []string, jsonTensors []*Tensor) ([]*Tensor, error) {
	le := binary.LittleEndian
	isJSON := func(r []byte) bool { return r[9] == 0xff }
	return unpack(b, PackedTensorRecord, MaxTensors*16, "tensor", jsonTensors, isJSON, func(k int, r []byte) (*Tensor, error) {
		nd := int(r[9])
		if nd > packedTensorDims {
			return nil, progErr("packed tensor %d: %d dims (at most %d)", k, nd, packedTensorDims)
		}
		var s [4]string
		for j := range s {
			i := int(le.Uint16(r[2*j:]))
			if j == 3 {
				if i == 0 {
					continue
				}
				i--
			}
			if i >= len(strs) {
				return nil, progErr("packed tensor %d: string %d of %d", k, i, len(strs))
			}
			s[j] = strs[i]
		}
		t := &Tensor{Name: s[0], Buffer: s[1], DType: s[2], Kind: s[3], Shape: make([]int, nd)}
		if r[8]&1 != 0 {
			off, part := int64(le.Uint64(r[10:])), int(int32(le.Uint32(r[18:])))
			t.Offset, t.Partition = &off, &part
		}
		for d := range nd {
			v := int64(le.Uint64(r[22+8*d:]))
			if v < 0 || v > math.MaxInt32 {
				return nil, progErr("packed tensor %d: axis %d of %d elements", k, d, v)
			}
			t.Shape[d] = int(v)
		}
		return t, nil
	})
}
