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

// `ndma run --exec both` says that the two agree, and on what: the words
// run and the bytes written, counted from the programs' own shapes — the
// transpose moves 128 × 64 BF16 elements (16,384 bytes) in one word; the
// memcpy pair moves 128 FP32 elements in and out (512 + 512 bytes) in two.
// Only `both` prints it, and --json keeps stdout JSON alone.
func TestExecBothAgreeLine(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--exec", "both", "examples/transpose.s"},
			"ref and sim agree: 1 word, 16384 bytes written (loads included); their memories, semaphores and events end identical\n"},
		{[]string{"run", "--exec", "both", "examples/memcpy.s"},
			"ref and sim agree: 2 words, 1024 bytes written (loads included); their memories, semaphores and events end identical\n"},
		{[]string{"run", "--exec", "sim", "examples/memcpy.s"}, ""},
		{[]string{"run", "--exec", "ref", "examples/memcpy.s"}, ""},
	} {
		args := append([]string{}, c.args...)
		args[len(args)-1] = filepath.Join(root, args[len(args)-1])
		code, out, errs := runCLI(args...)
		if code != 0 || out != c.want {
			t.Errorf("ndma %s: exit %d, stdout %q (stderr %q), want %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
	code, out, _ := runCLI("run", "--exec", "both", "--json", filepath.Join(root, "examples", "memcpy.s"))
	if code != 0 || strings.Contains(out, "agree") || !strings.HasPrefix(out, "{") {
		t.Errorf("--json: exit %d, stdout %q: want the JSON alone", code, out)
	}
}
