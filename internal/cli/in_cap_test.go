package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/samples"
)

// npyHeader is a version 1.0 .npy header for descr and shape, padded so
// the data starts at a multiple of 64 (the format's rule), written here
// by hand rather than by ndma's writer.
func npyHeader(descr, shape string) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	pad := 64 - (10+len(dict)+1)%64
	h := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)+pad+1), byte((len(dict)+pad+1)>>8))
	return append(append(h, dict+strings.Repeat(" ", pad)...), '\n')
}

// sparseNPY writes a .npy whose header declares n bytes of int8 and whose
// data is a hole: reading it would take minutes, refusing it takes none.
func sparseNPY(t *testing.T, n int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.npy")
	h := npyHeader("|i1", fmt.Sprintf("(%d,)", n))
	if err := os.WriteFile(path, h, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(h))+n); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every --in has a cap checked before its data is read: `neff run` and
// `neff check`'s is the NEFF variable's size (the header's declared bytes
// must be the file's and the variable's), `nki run`'s is --max-input. A
// 64 GiB file is refused at once with the sizes named, and nothing is
// written.
func TestInputCaps(t *testing.T) {
	huge := sparseNPY(t, 64<<30)
	hugeBytes := int64(64<<30) + int64(len(npyHeader("|i1", fmt.Sprintf("(%d,)", int64(64<<30)))))
	prog := filepath.Join(t.TempDir(), "copy.json") // a: 128 bytes of float32 [4 8] in, b out
	if err := os.WriteFile(prog, []byte(`{"target": "trn2", "tensors": [
  {"name": "a", "buffer": "hbm", "dtype": "float32", "shape": [4, 8], "kind": "input"},
  {"name": "b", "buffer": "hbm", "dtype": "float32", "shape": [4, 8], "kind": "output"}],
 "calls": [{"op": "dma_copy", "dst": {"tensor": "b"}, "src": {"tensor": "a"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	small := samples.Path(t, "matmul_small.neff") // x: 65,536 bytes of float16 [128 256]
	out := filepath.Join(t.TempDir(), "o.npy")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"neff", "run", "--in", "x=" + huge, "--out", "output0=" + out, small},
			[]string{"--in x=" + huge, "|i1 [68719476736] data", "x is float16 [128 256]"}},
		{[]string{"neff", "check", "--in", "x=" + huge, small},
			[]string{"x=" + huge, "68719476736"}},
		{[]string{"nki", "run", "--in", "a=" + huge, "--out", "b=" + out, prog},
			[]string{"--in a=" + huge, fmt.Sprintf("%d bytes, more than --max-input 268435456", hugeBytes)}},
	} {
		code, so, se := runCLI(c.args...)
		if code == 0 {
			t.Errorf("ndma %s: exit 0, want a refusal\n%s", strings.Join(c.args, " "), so)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(se, w) {
				t.Errorf("ndma %s: %q not in the error %q", strings.Join(c.args[:2], " "), w, se)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s (%v)", out, err)
	}
}
