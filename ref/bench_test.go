package ref

import (
	"testing"

	"ndma/internal/benchcase"
	"ndma/isa"
)

func benchWord(b *testing.B, x *Machine, src string, bytes int64) {
	in := asmWord(b, isa.Cayman, src)
	if err := x.Exec(in); err != nil { // once untimed: the destination's pages exist, as NumPy's out arrays do (bench/numpy_ref.py)
		b.Fatal(err)
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Exec(in); err != nil {
			b.Fatal(err)
		}
	}
}

const mib64 = 64 << 20

// BenchmarkGoCopy64MiB is the reference the copy path is measured against in
// the same run (bench/compare.sh prints the ratio).
func BenchmarkGoCopy64MiB(b *testing.B) {
	src, dst := make([]byte, mib64), make([]byte, mib64)
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(mib64)
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkRef measures each data path of the reference (internal/benchcase).
func BenchmarkRef(b *testing.B) {
	for _, c := range benchcase.Cases {
		b.Run(c.Name, func(b *testing.B) {
			x := New(isa.Cayman)
			if err := c.Setup(x.Mem); err != nil {
				b.Fatal(err)
			}
			benchWord(b, x, c.Word, c.Bytes)
		})
	}
}

// BenchmarkScale: the time-vs-size cases (internal/benchcase.Scale;
// bench/scale.sh turns them into docs/performance.md's table).
func BenchmarkScale(b *testing.B) {
	benchcase.BenchScale(b, func(maxBytes int64) (benchcase.Machine, benchcase.Writer) {
		x := New(isa.Cayman)
		x.MaxBytes = maxBytes
		return x, x.Mem
	}, asmWord)
}
