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
