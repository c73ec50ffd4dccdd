package dtype

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"ndma/internal/num"
)

// Float16 is an IEEE binary16 scalar (FP16), its bits as stored.
type Float16 uint16

// BFloat16 is a bfloat16 scalar (BF16): the top half of an fp32.
type BFloat16 uint16

// Float8E4M3 is an FP8_EXP4 scalar (E4M3, "e4m3fn": no Inf; max 448).
type Float8E4M3 uint8

// Float8E5M2 is an FP8_EXP5 scalar (E5M2, IEEE-like: Inf; max 57344).
type Float8E5M2 uint8

// Float8E3M4 is an FP8_EXP3 scalar (E3M4: no Inf; max 30).
type Float8E3M4 uint8

// ToFloat16 rounds f to binary16 (to nearest even; overflow → ±Inf; NaN
// keeps its sign and top payload bits, quiet).
func ToFloat16(f float32) Float16 { return Float16(num.F32ToF16(f)) }

// Float32 is h exactly.
func (h Float16) Float32() float32 { return num.F16ToF32(uint16(h)) }

// ToBFloat16 rounds f to bfloat16 (to nearest even; overflow → ±Inf).
func ToBFloat16(f float32) BFloat16 { return BFloat16(num.F32ToBF16(f)) }

// Float32 is b exactly.
func (b BFloat16) Float32() float32 { return num.BF16ToF32(uint16(b)) }

// ToFloat8E4M3 rounds f to E4M3 (to nearest even; past 448 → NaN).
func ToFloat8E4M3(f float32) Float8E4M3 { return Float8E4M3(num.F32ToFP8(f, num.E4M3)) }

// Float32 is e exactly.
func (e Float8E4M3) Float32() float32 { return num.FP8ToF32(uint8(e), num.E4M3) }

// ToFloat8E5M2 rounds f to E5M2 (to nearest even; past 57344 → ±Inf).
func ToFloat8E5M2(f float32) Float8E5M2 { return Float8E5M2(num.F32ToFP8(f, num.E5M2)) }

// Float32 is e exactly.
func (e Float8E5M2) Float32() float32 { return num.FP8ToF32(uint8(e), num.E5M2) }

// ToFloat8E3M4 rounds f to E3M4 (to nearest even; past 30 → NaN).
func ToFloat8E3M4(f float32) Float8E3M4 { return Float8E3M4(num.F32ToFP8(f, num.E3M4)) }

// Float32 is e exactly.
func (e Float8E3M4) Float32() float32 { return num.FP8ToF32(uint8(e), num.E3M4) }

// Elem is a Go element type with a DType of its own.
type Elem interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 |
		Float16 | BFloat16 | Float8E4M3 | Float8E5M2 | Float8E3M4
}

// Of is the DType of Go element type T.
func Of[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case int8:
		return I8
	case uint8:
		return U8
	case int16:
		return I16
	case uint16:
		return U16
	case int32:
		return I32
	case uint32:
		return U32
	case int64:
		return I64
	case uint64:
		return U64
	case float32:
		return FP32
	case Float16:
		return FP16
	case BFloat16:
		return BF16
	case Float8E4M3:
		return FP8E4
	case Float8E5M2:
		return FP8E5
	default: // Float8E3M4
		return FP8E3
	}
}

// littleEndian: the host's byte order is the device's, so a slice's memory
// is its scalars' bytes.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Bytes is s as little-endian bytes (the device's order): s's own memory
// on a little-endian host, a copy otherwise.
func Bytes[T Elem](s []T) []byte {
	size := int(unsafe.Sizeof(*new(T)))
	if len(s) == 0 {
		return []byte{}
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*size)
	}
	out := make([]byte, len(s)*size)
	for i := range s {
		putLE(out[i*size:], uint64(bitsOf(s[i])), size)
	}
	return out
}

// FromBytes is little-endian bytes as a new []T (a trailing partial scalar
// is an error).
func FromBytes[T Elem](b []byte) ([]T, error) {
	size := int(unsafe.Sizeof(*new(T)))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("%d bytes are not whole %s scalars of %d bytes", len(b), Of[T](), size)
	}
	out := make([]T, len(b)/size)
	if littleEndian {
		copy(Bytes(out), b)
		return out, nil
	}
	for i := range out {
		out[i] = fromBits[T](getLE(b[i*size:], size))
	}
	return out, nil
}

// Convert casts n = len(dst)/to.Size() scalars of type from in src to type
// to in dst, as a DMA cast does (field-tables §11.4: through fp32; floats
// round to nearest even, integers saturate).
func Convert(dst []byte, to DType, src []byte, from DType) error {
	return num.ApplySlice(num.OpNone, uint8(from), uint8(to), dst, src)
}

// bitsOf is v's bits, zero-extended.
func bitsOf[T Elem](v T) uint64 {
	switch unsafe.Sizeof(v) {
	case 1:
		return uint64(*(*uint8)(unsafe.Pointer(&v)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	}
	return *(*uint64)(unsafe.Pointer(&v))
}

// fromBits is the T whose bits are u's low ones.
func fromBits[T Elem](u uint64) T {
	var v T
	switch unsafe.Sizeof(v) {
	case 1:
		*(*uint8)(unsafe.Pointer(&v)) = uint8(u)
	case 2:
		*(*uint16)(unsafe.Pointer(&v)) = uint16(u)
	case 4:
		*(*uint32)(unsafe.Pointer(&v)) = uint32(u)
	default:
		*(*uint64)(unsafe.Pointer(&v)) = u
	}
	return v
}

func putLE(b []byte, u uint64, size int) {
	switch size {
	case 1:
		b[0] = byte(u)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(u))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(u))
	default:
		binary.LittleEndian.PutUint64(b, u)
	}
}

func getLE(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}
