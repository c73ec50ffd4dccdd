package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// SpecText is a document of ../shared/spec (the folder beside the samples'),
// read in place; a skip where it is missing (a failure where samples are
// required).
func SpecText(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(), "..", "spec", name))
	if err != nil {
		if os.Getenv("NDMA_REQUIRE_SAMPLES") == "1" {
			tb.Fatalf("spec document: %v", err)
		}
		tb.Skipf("spec document not available: %v", err)
	}
	return string(b)
}

// RationaleSection is RATIONALE.md's section under the heading that starts
// with heading ("## The software DGE path"), up to the next "## " heading.
func RationaleSection(tb testing.TB, heading string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0) // …/internal/samples/docs.go: the module is two up
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "RATIONALE.md"))
	if err != nil {
		tb.Fatal(err)
	}
	rat := string(b)
	i := strings.Index(rat, heading)
	if i < 0 {
		tb.Fatalf("RATIONALE.md has no %q section", heading)
	}
	section := rat[i:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	return section
}
