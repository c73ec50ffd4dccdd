package isa

import (
	"math/rand/v2"
	"testing"
)

// mixedStream holds n words of every decoded struct in turn (0xd4 words with
// and without their 0xda extension), random field values.
func mixedStream(n int) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	ops := decodedOpcodes()
	var b []byte
	for len(b) < n*WordSize {
		op := ops[r.IntN(len(ops))]
		if op == OpPseudoExtension {
			continue
		}
		b = append(b, randomWord(r, op)...)
		if op == OpPseudoDMADirect2D && r.IntN(2) == 0 {
			b = append(b, randomWord(r, OpPseudoExtension)...)
		}
	}
	return b[:n*WordSize]
}

func words(b []byte) float64 { return float64(len(b) / WordSize) }

// BenchmarkDecode reports words/s decoding a mixed stream into Inst values.
func BenchmarkDecode(b *testing.B) {
	stream := mixedStream(4096)
	b.SetBytes(WordSize)
	b.ReportAllocs()
	d := Decoder{gen: Cayman, b: stream}
	n := 0
	for b.Loop() {
		if d.next >= len(stream) || d.err != nil {
			d = Decoder{gen: Cayman, b: stream}
		}
		if !d.Next() {
			continue
		}
		n += d.inst.Size() / WordSize
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mwords/s")
}

// BenchmarkEncode reports words/s packing decoded instructions back to bytes.
func BenchmarkEncode(b *testing.B) {
	insts, err := DecodeAll(Cayman, mixedStream(256)) // a batch that stays in cache, as an assembler's does
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(WordSize)
	b.ReportAllocs()
	var w [WordSize]byte
	i, n := 0, 0
	for b.Loop() {
		insts[i].encodeTo(w[:])
		if i++; i == len(insts) {
			i = 0
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mwords/s")
}

// direct2DRef is what a hand-written decoder of one struct looks like: fixed
// offsets, no table. BenchmarkDecodeReference is the same-run reference that
// bench/decode.sh divides by (field-tables §3.2).
type direct2DRef struct {
	op, wordLen, dbgCmd, dbgHint          uint8
	waitMode, waitIdx, updMode, updIdx    uint8
	semValue                              uint32
	configs, sem, semInc, computeOp       uint8
	src, dst                              uint64
	srcStep, dstStep                      [2]int32
	srcNum, dstNum                        [2]uint16
	srcElem, dstElem                      uint16
	srcBound, dstBound, inDtype, outDtype uint8
}

func decodeDirect2DRef(b []byte, d *direct2DRef) {
	b = b[:64]
	le := func(o int) uint32 { return uint32(b[o]) | uint32(b[o+1])<<8 | uint32(b[o+2])<<16 | uint32(b[o+3])<<24 }
	d.op, d.wordLen, d.dbgCmd, d.dbgHint = b[0], b[1], b[2], b[3]
	d.waitMode, d.waitIdx, d.updMode, d.updIdx = b[4], b[5], b[6], b[7]
	d.semValue = le(8)
	d.configs, d.sem, d.semInc, d.computeOp = b[12], b[13], b[14], b[15]
	d.src = uint64(le(16)) | uint64(le(20))<<32
	d.srcStep = [2]int32{int32(le(24)), int32(le(28))}
	d.srcNum = [2]uint16{uint16(le(32)), uint16(le(32) >> 16)}
	d.srcElem = uint16(b[36]) | uint16(b[37])<<8
	d.srcBound, d.dstBound = b[38], b[39]
	d.dst = uint64(le(40)) | uint64(le(44))<<32
	d.dstStep = [2]int32{int32(le(48)), int32(le(52))}
	d.dstNum = [2]uint16{uint16(le(56)), uint16(le(56) >> 16)}
	d.dstElem = uint16(b[60]) | uint16(b[61])<<8
	d.inDtype, d.outDtype = b[62], b[63]
}

// BenchmarkDecodeReference decodes the same number of words with the
// hand-written fixed-offset DIRECT2D decoder (whole bytes only: no bit-fields,
// no unions, no table).
func BenchmarkDecodeReference(b *testing.B) {
	stream := mixedStream(4096)
	b.SetBytes(WordSize)
	b.ReportAllocs()
	var d direct2DRef
	off, n := 0, 0
	for b.Loop() {
		decodeDirect2DRef(stream[off:], &d)
		if off += WordSize; off == len(stream) {
			off = 0
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mwords/s")
}
