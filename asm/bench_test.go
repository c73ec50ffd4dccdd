package asm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
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

// BenchmarkAssembleExamples assembles the hand-written examples (comments,
// continuation lines, CCI blocks: what people write), repeated to ~4000 lines.
func BenchmarkAssembleExamples(b *testing.B) {
	var src []byte
	names := []string{"memcpy", "reduce_add", "cast", "transpose", "gather_transpose", "scatter_add", "pseudo"}
	label := regexp.MustCompile(`(?m)^(\w+):`)
	for copyN := 0; len(src) < 200_000; copyN++ {
		for _, n := range names {
			s, err := os.ReadFile("../examples/" + n + ".s")
			if err != nil {
				b.Fatal(err)
			}
			s = bytes.ReplaceAll(s, []byte(".gen "), []byte("# .gen "))
			s = label.ReplaceAll(s, []byte(fmt.Sprintf("${1}_%d:", copyN))) // labels stay unique
			src = append(append(src, s...), '\n')
		}
	}
	src = append([]byte(".gen cayman\n"), src...)
	lines := bytes.Count(src, []byte("\n"))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assemble("examples.s", src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlines/s")
}

// BenchmarkAssembleContinued assembles one statement continued over 100,000
// lines (400 KB: a comma alone on each line): the joined text is built once,
// so the cost follows the bytes (issue 15, L1).
func BenchmarkAssembleContinued(b *testing.B) {
	src := []byte("dmamemcpy src_elem_size=4,\n" + strings.Repeat("  ,\n", 100_000) + "  dst_elem_size=4\n")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assemble("continued.s", src, Options{Gen: isa.Cayman}); err != nil {
			b.Fatal(err)
		}
	}
}
