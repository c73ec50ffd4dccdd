// Package samples finds the real compiler-built NEFFs of
// ../shared/neff-samples for tests and benchmarks. They are read in place,
// never copied into the project: NDMA_NEFF_SAMPLES names their folder
// (default: the shared folder beside the module); a missing sample skips
// the test, or fails it when NDMA_REQUIRE_SAMPLES=1 (.ci/run sets it when the
// folder exists).
package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
