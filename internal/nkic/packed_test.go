package nkic

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// packRecord writes one record by the layout packed.go documents (an
// independent writer: field by field at the documented offsets).
func packRecord(op byte, index, line uint32, file, alu, fn uint16, flags byte, f [3]float64, aps [3][]int64) []byte {
	r := make([]byte, PackedRecord)
	le := binary.LittleEndian
	r[0] = op
	le.PutUint32(r[1:], index)
	le.PutUint32(r[5:], line)
	le.PutUint16(r[9:], file)
	le.PutUint16(r[11:], alu)
	le.PutUint16(r[13:], fn)
	r[15] = flags
	for i, v := range f {
		le.PutUint64(r[16+8*i:], math.Float64bits(v))
	}
	for j, a := range aps {
		o := 40 + j*77
		if a == nil {
			le.PutUint32(r[o:], math.MaxUint32) // −1: none
			continue
		}
		le.PutUint32(r[o:], uint32(a[0]))
		le.PutUint64(r[o+4:], uint64(a[1]))
		r[o+12] = byte(a[2])
		for d := range len(a) - 3 { // the pairs given (a bad record may claim more dims)
			le.PutUint64(r[o+13+8*d:], uint64(a[3+d]))
		}
	}
	return r
}

func TestDecodePacked(t *testing.T) {
	strs := []string{"k.py", "t1", "a", "add", "t2", "exp"}
	jsonCall := &Call{Op: "dma_copy", Dst: whole("t1"), Src: &AP{Tensor: "a", VectorOffset: whole("t2")}}
	var b []byte
	b = append(b, packRecord(1, 7, 12, 0, 0, 0, 8, [3]float64{}, [3][]int64{{1, 0, 2, 8, 128, 1, 8}, {2, 1024, 2, 8, 128, 1, 8}, nil})...)
	b = append(b, packRecord(0, 0, 0, 0, 0, 0, 0, [3]float64{}, [3][]int64{nil, nil, nil})...)
	b = append(b, packRecord(5, 9, 13, 0, 4, 0, 0, [3]float64{}, [3][]int64{{4, 0, 1, 1, 16}, {1, 0, 1, 1, 16}, {4, 3, 1, 0, 16}})...)
	b = append(b, packRecord(8, 10, 14, 0, 0, 6, 8|4|2|1, [3]float64{2, 0.5, -1.25}, [3][]int64{{4, 0, 0}, {1, 0, 1, 1, 16}, nil})...)
	got, err := DecodePacked(b, strs, []*Call{jsonCall})
	if err != nil {
		t.Fatal(err)
	}
	ip := func(v int) *int { return &v }
	want := []*Call{
		{Op: "load", File: "k.py", Line: 12, Index: ip(7), Dst: &AP{Tensor: "t1", Pattern: [][2]int64{{8, 128}, {1, 8}}}, Src: &AP{Tensor: "a", Offset: 1024, Pattern: [][2]int64{{8, 128}, {1, 8}}}},
		jsonCall,
		{Op: "tensor_tensor", File: "k.py", Line: 13, Index: ip(9), ALUOp: "add", Dst: &AP{Tensor: "t2", Pattern: [][2]int64{{1, 16}}},
			Srcs: []*AP{{Tensor: "t1", Pattern: [][2]int64{{1, 16}}}, {Tensor: "t2", Offset: 3, Pattern: [][2]int64{{0, 16}}}}},
		{Op: "activation", File: "k.py", Line: 14, Index: ip(10), Func: "exp", Operand0: f64p(2), Value: f64p(0.5), Scale: f64p(-1.25),
			Dst: &AP{Tensor: "t2", Pattern: [][2]int64{}}, Src: &AP{Tensor: "t1", Pattern: [][2]int64{{1, 16}}}},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if i < len(got) && !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("call %d: %+v, want %+v", i, *got[i], *want[i])
			}
		}
		t.Fatalf("%d calls, want %d", len(got), len(want))
	}
	for _, bad := range []struct {
		name string
		b    []byte
		strs []string
		js   []*Call
	}{
		{"short", b[:PackedRecord-1], strs, nil},
		{"string index", packRecord(1, 0, 0, 99, 0, 0, 0, [3]float64{}, [3][]int64{nil, nil, nil}), strs, nil},
		{"op", packRecord(200, 0, 0, 0, 0, 0, 0, [3]float64{}, [3][]int64{nil, nil, nil}), strs, nil},
		{"dims", packRecord(1, 0, 0, 0, 0, 0, 0, [3]float64{}, [3][]int64{{1, 0, 5}, nil, nil}), strs, nil},
		{"json missing", packRecord(0, 0, 0, 0, 0, 0, 0, [3]float64{}, [3][]int64{nil, nil, nil}), strs, nil},
		{"json extra", nil, strs, []*Call{jsonCall}},
	} {
		if _, err := DecodePacked(bad.b, bad.strs, bad.js); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

// FuzzDecodePacked: any bytes give calls or an error, never a panic.
func FuzzDecodePacked(f *testing.F) {
	f.Add(packRecord(1, 7, 12, 0, 0, 0, 8, [3]float64{}, [3][]int64{{1, 0, 2, 8, 128, 1, 8}, {0, 1024, 2, 8, 128, 1, 8}, nil}))
	f.Fuzz(func(t *testing.T, b []byte) {
		calls, err := DecodePacked(b, []string{"k.py", "t"}, nil)
		if err == nil && len(calls) != len(b)/PackedRecord {
			t.Fatalf("%d calls from %d bytes", len(calls), len(b))
		}
	})
}

// packTensor writes one tensor record by the documented layout.
func packTensor(name, buf, dt, kind uint16, placed bool, off int64, part int32, shape ...int64) []byte {
	r := make([]byte, PackedTensorRecord)
	le := binary.LittleEndian
	for i, v := range []uint16{name, buf, dt, kind} {
		le.PutUint16(r[2*i:], v)
	}
	if placed {
		r[8] = 1
	}
	r[9] = byte(len(shape))
	le.PutUint64(r[10:], uint64(off))
	le.PutUint32(r[18:], uint32(part))
	for d, v := range shape {
		le.PutUint64(r[22+8*d:], uint64(v))
	}
	return r
}

func TestDecodePackedTensors(t *testing.T) {
	strs := []string{"a", "hbm", "float32", "input", "t1", "sbuf"}
	js := &Tensor{Name: "big", Buffer: "hbm", DType: "float32", Shape: []int{1, 1, 1, 1, 1, 1, 1}}
	jsonRec := make([]byte, PackedTensorRecord)
	jsonRec[9] = 0xff
	var b []byte
	b = append(b, packTensor(0, 1, 2, 4, false, 0, 0, 640000, 8)...)
	b = append(b, jsonRec...)
	b = append(b, packTensor(4, 5, 2, 0, true, 128, 0, 128, 8)...)
	got, err := DecodePackedTensors(b, strs, []*Tensor{js})
	if err != nil {
		t.Fatal(err)
	}
	off, part := int64(128), 0
	want := []*Tensor{{Name: "a", Buffer: "hbm", DType: "float32", Kind: "input", Shape: []int{640000, 8}}, js,
		{Name: "t1", Buffer: "sbuf", DType: "float32", Shape: []int{128, 8}, Offset: &off, Partition: &part}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v %+v %+v", *got[0], *got[1], *got[2])
	}
	for name, bad := range map[string][]byte{
		"short": b[:PackedTensorRecord+3], "string": packTensor(9, 1, 2, 0, false, 0, 0, 4),
		"kind": packTensor(0, 1, 2, 99, false, 0, 0, 4), "dims": func() []byte { r := packTensor(0, 1, 2, 0, false, 0, 0, 1); r[9] = 7; return r }(),
		"axis": packTensor(0, 1, 2, 0, false, 0, 0, -1), "json": jsonRec,
	} {
		if _, err := DecodePackedTensors(bad, strs, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzDecodePackedTensors: any bytes give tensors or an error, never a panic.
func FuzzDecodePackedTensors(f *testing.F) {
	f.Add(packTensor(0, 1, 2, 4, false, 0, 0, 640000, 8))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := DecodePackedTensors(b, []string{"a", "hbm", "float32"}, nil)
		if err == nil && len(ts) != len(b)/PackedTensorRecord {
			t.Fatalf("%d tensors from %d bytes", len(ts), len(b))
		}
	})
}
