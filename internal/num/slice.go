package num

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// hostLE: the host stores scalars little-endian, so a run's bytes may be
// viewed as its float32s (addF32).
var hostLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// The run-at-a-time value path (issue 17): the same rules as Apply, scalar
// for scalar, in loops over whole runs — the float casts by bit arithmetic
// and tables, fp32 compute in a plain loop the compiler keeps in registers.

// ApplySlice is Apply over a run of scalars, the hot path of casts and
// in-flight compute in both executors: src holds n little-endian scalars of
// in, dst n of out — with op ≠ NONE the destination's current values — and
// receives the results. Every result equals Apply's for the same scalars;
// dst's length fixes n (a partial trailing scalar is left alone).
func ApplySlice(op, in, out uint8, dst, src []byte) error {
	return ApplySliceFrom(op, in, out, dst, dst, src)
}

// ApplySliceFrom is ApplySlice with the destination's current values read
// from old, not dst: dst = op(old, src), scalar for scalar. old is dst
// itself or a run apart from it, at least as long; with op = NONE it is not
// read. A compute then writes each result once, straight into storage of
// its own, reading old once (issue 17: an attached page moved to memory of
// its own in the same pass as the ADD into it, mem.Combine).
func ApplySliceFrom(op, in, out uint8, dst, old, src []byte) error {
	ii, oi := info(in), info(out)
	if ii.kind == kNone {
		return UnsupportedDtypeError(in)
	}
	if oi.kind == kNone {
		return UnsupportedDtypeError(out)
	}
	si, so := int(ii.size), int(oi.size)
	n := len(dst) / so
	if len(src) < n*si {
		return fmt.Errorf("num: %d source bytes for %d scalars of %d bytes", len(src), n, si)
	}
	src, dst = src[:n*si], dst[:n*so]
	apart := false
	if op != OpNone && n > 0 {
		if len(old) < len(dst) {
			return fmt.Errorf("num: %d old bytes for %d scalars of %d bytes", len(old), n, so)
		}
		apart = &old[0] != &dst[0]
	}
	switch {
	case op == OpNone && (in == out || ii.kind == kFP32 && oi.kind == kFP32):
		copy(dst, src) // no cast: the bits as they are (Convert)
		return nil
	case op == OpNone && ii.kind >= kFP32 && oi.kind >= kFP32:
		castFloats(ii, oi, dst, src, n)
		return nil
	case op >= OpAdd && op <= OpMin && oi.kind >= kFP32 && ii.kind >= kFP32:
		computeFloats(op, ii, oi, dst, old[:len(dst)], src, n)
		return nil
	}
	if apart {
		copy(dst, old) // then in place
	}
	for k := 0; k < n; k++ {
		v, err := Apply(op, in, out, GetLE(src[k*si:], si), GetLE(dst[k*so:], so))
		if err != nil {
			return err
		}
		PutLE(dst[k*so:], so, v)
	}
	return nil
}

// f16Dec[h] is the float32 bit pattern of binary16 h (built on first use).
var (
	f16Dec     *[1 << 16]uint32
	f16DecOnce sync.Once
)

// F16sToF32 widens the len(dst) binary16 scalars of src (little-endian,
// 2·len(dst) bytes) to float32: exact, a signalling NaN's payload quieted
// where the CPU's F16C converts (arithmetic reads it as a NaN either way).
func F16sToF32(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	done := 0
	if hasF16C && len(dst) >= 16 {
		done = f16ToF32F16C(&dst[0], &src[0], len(dst))
	}
	t := f16Table()
	for i := done; i < len(dst); i++ {
		dst[i] = math.Float32frombits(t[uint16(src[2*i])|uint16(src[2*i+1])<<8])
	}
}

// F16Table is the float32 bit pattern of every binary16 value, by its
// bits: a bulk decode is a table read (exact, as F16ToF32).
func F16Table() *[1 << 16]uint32 { return f16Table() }

func f16Table() *[1 << 16]uint32 {
	f16DecOnce.Do(func() {
		t := new([1 << 16]uint32)
		for h := range t {
			t[h] = decode(uint32(h), fmtF16)
		}
		f16Dec = t
	})
	return f16Dec
}

// f32ToF16 is encode(x, fmtF16): in binary16's normal range a rebias and
// a round half to even on the 13 dropped bits (small enough to inline in
// the loops); the rest in f32ToF16Edge.
func f32ToF16(x uint32) uint16 {
	if ax := x & 0x7FFFFFFF; ax-0x38800000 < 0x477FF000-0x38800000 { // 2^-14 ≤ |x| < 65520
		r := ax - 0x38000000 // exponent bias 127 → 15
		return uint16(x>>16)&0x8000 | uint16((r+0xFFF+(r>>13)&1)>>13)
	}
	return f32ToF16Edge(x)
}

// f32ToF16Edge: overflow and NaN, and the subnormal range, where adding 0.5
// makes the FPU's own round to nearest even drop exactly the bits binary16
// cannot hold (ulp(0.5) = 2^-24, the binary16 subnormal step).
func f32ToF16Edge(x uint32) uint16 {
	sign := uint16(x>>16) & 0x8000
	switch ax := x & 0x7FFFFFFF; {
	case ax > 0x7F800000: // NaN: the codec's payload rule
		return uint16(encode(x, fmtF16))
	case ax >= 0x477FF000: // ≥ 65520 rounds past 65504: Inf
		return sign | 0x7C00
	default:
		f := math.Float32frombits(ax) + 0.5
		return sign | uint16(math.Float32bits(f)-0x3F000000)
	}
}

// f32ToBF16 is F32ToBF16 on bits.
func f32ToBF16(x uint32) uint16 {
	if x&0x7FFFFFFF > 0x7F800000 {
		return uint16(x>>16) | 0x0040
	}
	return uint16((x + 0x7FFF + (x>>16)&1) >> 16)
}

// narrowBlocks casts the whole 32-scalar blocks of the n fp32 scalars of
// src into 2-byte dst through kernel (f32ToF16F16C, f32ToBF16AVX2), a block
// it stops at — one with a NaN — through the codec enc, then the kernel
// again; it returns what is left of dst and src, the last partial block.
func narrowBlocks(kernel func(d, s *byte, n int) int, enc func(uint32) uint16, dst, src []byte, n int) ([]byte, []byte) {
	for n >= 32 {
		k := kernel(&dst[0], &src[0], min(n, len(src)/4, len(dst)/2))
		src, dst, n = src[4*k:], dst[2*k:], n-k
		if n < 32 {
			break
		}
		for range 32 {
			binary.LittleEndian.PutUint16(dst, enc(binary.LittleEndian.Uint32(src)))
			src, dst, n = src[4:], dst[2:], n-1
		}
	}
	return dst, src
}

// toF16 rounds n fp32 scalars of src into binary16 ones in dst (RNE):
// VCVTPS2PH where the CPU has it (the same rounding), the rest in Go.
func toF16(dst, src []byte, n int) {
	src, dst = src[:4*n], dst[:2*n]
	if hasF16C {
		dst, src = narrowBlocks(f32ToF16F16C, f32ToF16, dst, src, n)
	}
	for len(src) >= 4 && len(dst) >= 2 {
		x := binary.LittleEndian.Uint32(src)
		var h uint16
		if ax := x & 0x7FFFFFFF; ax-0x38800000 < 0x477FF000-0x38800000 { // f32ToF16's normal range, inline
			r := ax - 0x38000000
			h = uint16(x>>16)&0x8000 | uint16((r+0xFFF+(r>>13)&1)>>13)
		} else {
			h = f32ToF16Edge(x)
		}
		binary.LittleEndian.PutUint16(dst, h)
		src, dst = src[4:], dst[2:]
	}
}

// toBF16 is toF16 to bfloat16 (AVX2 where the CPU has it).
func toBF16(dst, src []byte, n int) {
	src, dst = src[:4*n], dst[:2*n]
	if hasBF16AVX2 {
		dst, src = narrowBlocks(f32ToBF16AVX2, f32ToBF16, dst, src, n)
	}
	for len(src) >= 4 && len(dst) >= 2 {
		binary.LittleEndian.PutUint16(dst, f32ToBF16(binary.LittleEndian.Uint32(src)))
		src, dst = src[4:], dst[2:]
	}
}

// decoder returns scalar k of a run of kind i as float32 bits (exact).
func decoder(i dtInfo) func(b []byte, k int) uint32 {
	switch i.kind {
	case kFP32:
		return func(b []byte, k int) uint32 { return binary.LittleEndian.Uint32(b[4*k:]) }
	case kBF16:
		return func(b []byte, k int) uint32 { return uint32(binary.LittleEndian.Uint16(b[2*k:])) << 16 }
	case kFP16:
		t := f16Table()
		return func(b []byte, k int) uint32 { return t[binary.LittleEndian.Uint16(b[2*k:])] }
	}
	t := &fp8Dec[i.fp8]
	return func(b []byte, k int) uint32 { return t[b[k]] }
}

// encoder stores float32 bits x as scalar k of a run of kind i (RNE).
func encoder(i dtInfo) func(b []byte, k int, x uint32) {
	switch i.kind {
	case kFP32:
		return func(b []byte, k int, x uint32) { binary.LittleEndian.PutUint32(b[4*k:], x) }
	case kBF16:
		return func(b []byte, k int, x uint32) { binary.LittleEndian.PutUint16(b[2*k:], f32ToBF16(x)) }
	case kFP16:
		return func(b []byte, k int, x uint32) { binary.LittleEndian.PutUint16(b[2*k:], f32ToF16(x)) }
	}
	ft := fp8Formats[i.fp8]
	return func(b []byte, k int, x uint32) { b[k] = byte(encode(x, ft)) }
}

// castFloats converts n scalars between two float kinds (through fp32, as
// Convert); the common pairs have loops of their own.
func castFloats(ii, oi dtInfo, dst, src []byte, n int) {
	switch {
	case ii.kind == kFP32 && oi.kind == kFP16:
		toF16(dst, src, n)
		return
	case ii.kind == kFP32 && oi.kind == kBF16:
		toBF16(dst, src, n)
		return
	case ii.kind == kFP16 && oi.kind == kFP32:
		t := f16Table()
		for len(src) >= 8 && len(dst) >= 16 {
			s, d := src[:8], dst[:16]
			binary.LittleEndian.PutUint32(d[0:], t[binary.LittleEndian.Uint16(s[0:])])
			binary.LittleEndian.PutUint32(d[4:], t[binary.LittleEndian.Uint16(s[2:])])
			binary.LittleEndian.PutUint32(d[8:], t[binary.LittleEndian.Uint16(s[4:])])
			binary.LittleEndian.PutUint32(d[12:], t[binary.LittleEndian.Uint16(s[6:])])
			src, dst = src[8:], dst[16:]
		}
		for len(src) >= 2 && len(dst) >= 4 {
			binary.LittleEndian.PutUint32(dst, t[binary.LittleEndian.Uint16(src)])
			src, dst = src[2:], dst[4:]
		}
		return
	case ii.kind == kBF16 && oi.kind == kFP32:
		for len(src) >= 2 && len(dst) >= 4 {
			binary.LittleEndian.PutUint32(dst, uint32(binary.LittleEndian.Uint16(src))<<16)
			src, dst = src[2:], dst[4:]
		}
		return
	}
	if hostLE && n >= castBlock/4 { // long enough to pay for an FP8 format's table, built once
		castViaF32(ii, oi, dst, src, n)
		return
	}
	dec, enc := decoder(ii), encoder(oi)
	for k := 0; k < n; k++ {
		enc(dst, k, dec(src, k))
	}
}

// addF32 is d += s, eight independent adds a step with no bounds check in
// the loop (the in-flight fp32 ADD in Go, issue 17: where the vector kernel
// is not, and its NaN blocks and tails); on a little-endian host the
// float32 views hold exactly the bytes' scalars. A block with a NaN result
// is redone by Compute's rule (addRule): the CPU's own NaN (which operand's,
// the default one's sign) is not the documented one.
func addF32(d, s []float32) {
	s = s[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		dd, ss := d[i:i+8:i+8], s[i:i+8:i+8]
		r0, r1, r2, r3 := dd[0]+ss[0], dd[1]+ss[1], dd[2]+ss[2], dd[3]+ss[3]
		r4, r5, r6, r7 := dd[4]+ss[4], dd[5]+ss[5], dd[6]+ss[6], dd[7]+ss[7]
		if r0 != r0 || r1 != r1 || r2 != r2 || r3 != r3 || r4 != r4 || r5 != r5 || r6 != r6 || r7 != r7 {
			for k := range dd {
				dd[k] = addRule(dd[k], ss[k])
			}
			continue
		}
		dd[0], dd[1], dd[2], dd[3], dd[4], dd[5], dd[6], dd[7] = r0, r1, r2, r3, r4, r5, r6, r7
	}
	for ; i < len(d); i++ {
		d[i] = addRule(d[i], s[i])
	}
}

// addRule is Compute's fp32 ADD of dst a and src b: a NaN operand comes back
// quiet (dst's first), a NaN the add creates (Inf − Inf) is +qNaN 0x7FC00000.
func addRule(a, b float32) float32 {
	switch r := a + b; {
	case r == r:
		return r
	case a != a:
		return math.Float32frombits(math.Float32bits(a) | 0x00400000)
	case b != b:
		return math.Float32frombits(math.Float32bits(b) | 0x00400000)
	default:
		return math.Float32frombits(0x7FC00000)
	}
}

// computeFloats is dst = op(old, src) over n scalars, in fp32 (Apply: old
// decoded as out, src as in, the result rounded to out); old is dst or apart
// from it, of its length. fp32 ADD, MULTIPLY, MAX and MIN go through the
// vector kernels where the CPU has them (simd_amd64.s), a long run on every
// CPU (kernelPar): a block the kernel leaves — a NaN among its results or
// operands, or the partial last one — is done by computeFloatsGo, so every
// NaN result is still the Go rule's and every other one the same IEEE RNE
// operation (MAX, MIN: Go's max and min).
func computeFloats(op uint8, ii, oi dtInfo, dst, old, src []byte, n int) {
	apart := n > 0 && &old[0] != &dst[0]
	switch {
	case !hasF32Kernels || ii.kind != kFP32 || oi.kind != kFP32:
		if apart {
			copy(dst, old)
		}
		computeFloatsGo(op, ii, oi, dst, src, n)
	case n >= parMin && runtime.GOMAXPROCS(0) > 1:
		kernelPar(op, ii, oi, dst, old, src, n, apart)
	default:
		kernelRange(op, ii, oi, dst, old, src, n, apart)
	}
}

// kernelPar is kernelRange on the caller and the helpers that are free
// (crew), parChunk scalars at a time handed out in order to whichever is
// free (a busy CPU delays only the chunk it took, a helper still parked
// joins late or not at all); it returns when all are done. A worker runs
// with the caller's debug.SetPanicOnFault and hands a panic back — a fault in a
// mapped file among them — to be raised again on the caller's goroutine,
// where the caller's guard sees it (not a fatal error in a goroutine no
// one recovers).
func kernelPar(op uint8, ii, oi dtInfo, dst, old, src []byte, n int, apart bool) {
	onFault := debug.SetPanicOnFault(true) // the caller's setting, read
	debug.SetPanicOnFault(onFault)         // and put back
	var next atomic.Int64
	var failed atomic.Pointer[any]
	work := func() {
		for failed.Load() == nil {
			i := int(next.Add(parChunk)) - parChunk
			if i >= n {
				return
			}
			m := min(i+parChunk, n)
			kernelRange(op, ii, oi, dst[4*i:4*m], old[4*i:4*m], src[4*i:4*m], m-i, apart)
		}
	}
	worker := func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(onFault))
		defer func() {
			if r := recover(); r != nil {
				failed.CompareAndSwap(nil, &r)
			}
		}()
		work()
	}
	helpers.run((n+parChunk-1)/parChunk-1, worker) // the caller takes a share too: a panic in it waits for the others to stop
	if r := failed.Load(); r != nil {
		panic(*r)
	}
}

// kernelRange is computeFloats of fp32 through the vector kernels, on one
// goroutine: blocks the kernel leaves go to computeFloatsGo.
func kernelRange(op uint8, ii, oi dtInfo, dst, old, src []byte, n int, apart bool) {
	kernel := f32Kernels[op-OpAdd]
	for i := 0; i < n; {
		c := min(n-i, kernelRun)
		k := kernel(&dst[4*i], &old[4*i], &src[4*i], c)
		if i += k; k == c {
			continue
		}
		m := min(i+kernelBlock, n)
		if apart {
			copy(dst[4*i:4*m], old[4*i:4*m]) // the block the kernel left, then in place
		}
		computeFloatsGo(op, ii, oi, dst[4*i:4*m], src[4*i:4*m], m-i)
		i = m
	}
}

// From parMin scalars (1 MiB of fp32, some 40 µs of work in cache) the
// kernels run on the crew's helpers too, parChunk scalars (128 KiB) at a
// time: one core draws neither the last-level cache's bandwidth nor the
// memory's (1 M scalars in place, in cache: 0.14–0.16 ms on one core,
// 0.07–0.08 ms with a helper awake, 2026-12-02; 16 M: 4.1 ms on one core,
// 2.4–2.6 ms on two of a quiet machine), and a destination's fresh pages
// are faulted in (zeroed) on both. Each scalar's result is its own: the split changes no bit.
const (
	parMin   = 256 << 10
	parChunk = 32 << 10
)

// kernelBlock is the scalars of one kernel block (simd_amd64.s); a kernel
// call takes at most kernelRun (a multiple of it, ~20 µs of work) — an
// assembly loop is not preemptible.
const (
	kernelBlock = 32
	kernelRun   = 1 << 16
)

// f32Kernels, indexed by op − OpAdd (ApplySlice passes ADD to MIN alone).
var f32Kernels = [...]func(d, a, s *byte, n int) int{addF32AVX, mulF32AVX, maxF32AVX, minF32AVX}

// computeFloatsGo is computeFloats in Go alone.
func computeFloatsGo(op uint8, ii, oi dtInfo, dst, src []byte, n int) {
	if op == OpAdd && ii.kind == kFP32 && oi.kind == kFP32 {
		if hostLE && n > 0 && uintptr(unsafe.Pointer(&dst[0]))%4 == 0 && uintptr(unsafe.Pointer(&src[0]))%4 == 0 {
			addF32(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), n), unsafe.Slice((*float32)(unsafe.Pointer(&src[0])), n))
			return
		}
		for len(src) >= 4 && len(dst) >= 4 { // unaligned runs: a scalar at a time
			a, b := math.Float32frombits(binary.LittleEndian.Uint32(dst)), math.Float32frombits(binary.LittleEndian.Uint32(src))
			binary.LittleEndian.PutUint32(dst, math.Float32bits(addRule(a, b)))
			src, dst = src[4:], dst[4:]
		}
		return
	}
	dd, ds, enc := decoder(oi), decoder(ii), encoder(oi)
	var f func(a, b float32) float32
	switch op {
	case OpAdd:
		f = func(a, b float32) float32 { return a + b }
	case OpMultiply:
		f = func(a, b float32) float32 { return a * b }
	case OpMax:
		f = fmaxNaN
	default:
		f = fminNaN
	}
	for k := 0; k < n; k++ {
		enc(dst, k, math.Float32bits(f(math.Float32frombits(dd(dst, k)), math.Float32frombits(ds(src, k)))))
	}
}
