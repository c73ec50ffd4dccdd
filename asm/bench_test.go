package asm

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// benchProgram is n words of every struct, random fields, as binary and as
// its canonical text (one line per word, 16 per CCI word).
func benchProgram(b *testing.B, n int) ([]byte, []byte, int) {
	r := rand.New(rand.NewPCG(9, 9))
	ops := decodedOpcodes()
	var code []byte
	for len(code) < n*isa.WordSize {
		code = append(code, randomWord(r, ops[r.IntN(len(ops))])...)
	}
	text, err := Disassemble(isa.Cayman, code)
	if err != nil {
		b.Fatal(err)
	}
	return code, text, bytes.Count(text, []byte("\n"))
}

// BenchmarkAssemble reports source lines assembled per second.
func BenchmarkAssemble(b *testing.B) {
	_, text, lines := benchProgram(b, 2000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assemble("bench.s", text, Options{Gen: isa.Cayman}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlines/s")
}

// BenchmarkDisassemble reports lines of canonical text produced per second.
func BenchmarkDisassemble(b *testing.B) {
	code, _, lines := benchProgram(b, 2000)
	b.SetBytes(int64(len(code)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Disassemble(isa.Cayman, code); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlines/s")
}
