package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ndma"
)

// `ndma run --exec both` on every example program: the engines and ref
// agree on every word — they run it alike, or they refuse it alike. (The
// semaphores the examples wait on are preset, as --sem does.)
func TestExecBothOnExamples(t *testing.T) {
	files, err := fs.Glob(ndma.Examples, "examples/*.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	dir := t.TempDir()
	ran := 0
	for _, f := range files {
		text, _ := fs.ReadFile(ndma.Examples, f)
		path := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--exec", "both"}
		for s := 0; s < 16; s++ {
			args = append(args, "--sem", strconv.Itoa(s)+"=2")
		}
		var out, errb bytes.Buffer
		code := Main(append(args, path), nil, &out, &errb)
		msg := errb.String()
		if strings.Contains(msg, "ref and sim differ") || strings.Contains(msg, "faults, ref does not") || strings.Contains(msg, "faults, sim does not") {
			t.Errorf("%s: %s", f, msg)
		}
		if code == 0 {
			ran++
		} else {
			t.Logf("%s: both refuse it: %s", f, strings.TrimSpace(msg))
		}
	}
	if ran < 7 {
		t.Fatalf("only %d of %d examples ran through on both", ran, len(files))
	}
}
