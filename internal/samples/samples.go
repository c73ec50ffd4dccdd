// Package samples finds the real compiler-built NEFFs of
// ../shared/neff-samples for tests and benchmarks. They are read in place,
// never copied into the project: NDMA_NEFF_SAMPLES names their folder
// (default: the shared folder beside the module); a missing sample skips
// the test, or fails it when NDMA_REQUIRE_SAMPLES=1 (.ci/run sets it when the
// folder exists). Walk and Permute are the tests' own reading of neff.md
// §4.7's descriptors, independent of package neff.
package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/tools/txtar"
)

// Dir is the samples folder.
func Dir() string {
	if dir := os.Getenv("NDMA_NEFF_SAMPLES"); dir != "" {
		return dir
	}
	_, file, _, _ := runtime.Caller(0) // …/internal/samples/samples.go: the module is two up
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "neff-samples")
}

// Path is the sample name's path, or a skip (a failure where samples are required).
func Path(tb testing.TB, name string) string {
	tb.Helper()
	path := filepath.Join(Dir(), name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("NDMA_REQUIRE_SAMPLES") == "1" {
			tb.Fatalf("sample NEFF: %v", err)
		}
		tb.Skipf("sample NEFF not available (%v); set NDMA_NEFF_SAMPLES", err)
	}
	return path
}

// Read is the sample's bytes (a skip or failure as Path).
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Walk is every byte offset one side of a descriptor touches, in walk order
// (neff.md §4.7): sizes[0] contiguous bytes, the higher dims repeat counts
// at byte steps, innermost first, from off.
func Walk(off int64, sizes, steps []int64) []int64 {
	var out []int64
	var rec func(d int, base int64)
	rec = func(d int, base int64) {
		if d == 0 {
			for b := int64(0); b < sizes[0]; b++ {
				out = append(out, base+b)
			}
			return
		}
		for i := int64(0); i < sizes[d]; i++ {
			rec(d-1, base+i*steps[d])
		}
	}
	rec(len(sizes)-1, off)
	return out
}

// Permute writes src's tiles of shape sh = [W, Z, Y, X] (es-byte
// elements) with their dims in the order the letters of op name, the last
// fastest (neff.md §4.7's transpose_op).
func Permute(src []byte, op string, sh []int64, es int64) []byte {
	pos := map[byte]int{'W': 0, 'Z': 1, 'Y': 2, 'X': 3}
	var out []byte
	tile := sh[0] * sh[1] * sh[2] * sh[3] * es
	for base := int64(0); base < int64(len(src)); base += tile {
		var n [4]int64
		var rec func(k int)
		rec = func(k int) {
			if k == 4 {
				var in [4]int64 // w z y x
				for j := 0; j < 4; j++ {
					in[pos[op[j]]] = n[j]
				}
				e := ((in[0]*sh[1]+in[1])*sh[2]+in[2])*sh[3] + in[3]
				out = append(out, src[base+e*es:base+(e+1)*es]...)
				return
			}
			for n[k] = 0; n[k] < sh[pos[op[k]]]; n[k]++ {
				rec(k + 1)
			}
		}
		rec(0)
	}
	return out
}

// Archive is one txtar corpus file of a test: its members in order and by
// name.
type Archive struct {
	File  string
	Names []string
	Parts map[string][]byte
}

// Archives parses every txtar file glob matches; none is a failure (a
// corpus that vanished must not pass by testing nothing).
func Archives(tb testing.TB, glob string) []Archive {
	tb.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus files %s: %v", glob, err)
	}
	var out []Archive
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		a := Archive{File: file, Parts: map[string][]byte{}}
		for _, f := range ar.Files {
			a.Names = append(a.Names, f.Name)
			a.Parts[f.Name] = f.Data
		}
		out = append(out, a)
	}
	return out
}
