package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/array"
	"ndma/internal/neffgen"
	"ndma/neff"
)

// outProg is a one-word program for `ndma run`: 8 bytes hbm:0x0 → hbm:0x100.
const outProg = `.gen cayman
dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_num_elem=[1, 1], src_elem_size=8,
    dst_start_addr=hbm:0x100, dst_num_elem=[1, 1], dst_elem_size=8, in_dtype=u8, out_dtype=u8
`

// outFixtures writes outProg (t.s), its source for asm (a.s) and the
// synthetic style-A NEFF (a.neff, neffgen.Triggered, its 128-byte
// variable "output") with the neff.json members extra, into dir.
func outFixtures(t *testing.T, dir string, extra ...neff.Member) (prog, src, nf string) {
	t.Helper()
	p := neffgen.Triggered()
	p.Extra = extra
	raw, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	prog, src, nf = filepath.Join(dir, "t.s"), filepath.Join(dir, "a.s"), filepath.Join(dir, "a.neff")
	for f, b := range map[string][]byte{prog: []byte(outProg), src: []byte(outProg), nf: raw} {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prog, src, nf
}

// outCommands are the commands that write an output file, each given the
// output path o and a --timeline path tl where it takes one.
func outCommands(prog, src, nf string) []struct {
	name string
	args func(o, tl string) []string
} {
	return []struct {
		name string
		args func(o, tl string) []string
	}{
		{"run --dump", func(o, tl string) []string {
			return []string{"run", "--timeline", tl, "--dump", "hbm:0x100:u8:8=" + o, prog}
		}},
		{"asm -o", func(o, _ string) []string { return []string{"asm", "-o", o, src} }},
		{"neff run --out", func(o, tl string) []string {
			return []string{"neff", "run", "--timeline", tl, "--out", "output=" + o, nf}
		}},
		{"neff run --dump", func(o, tl string) []string {
			return []string{"neff", "run", "--timeline", tl, "--dump", "output=" + o, nf}
		}},
		{"neff report -o", func(o, _ string) []string { return []string{"neff", "report", "-o", o, nf} }},
	}
}

// M2: an existing file no one may write (0444) is refused by name before
// anything runs, as cp or a shell's redirection would refuse it (even for
// root): it keeps its bytes and mode, and the run's --timeline is not
// written either. Before, it was replaced and came back 0644.
func TestOutputWriteProtectedRefused(t *testing.T) {
	dir := t.TempDir()
	prog, src, nf := outFixtures(t, dir)
	for _, tc := range outCommands(prog, src, nf) {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			o, tl := filepath.Join(d, "ro.out"), filepath.Join(d, "tl.json")
			if err := os.WriteFile(o, []byte("old"), 0o444); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(o, 0o444); err != nil { // whatever the umask
				t.Fatal(err)
			}
			var so, se bytes.Buffer
			code := Main(tc.args(o, tl), nil, &so, &se)
			if code == 0 || !strings.Contains(se.String(), o) || !strings.Contains(se.String(), "write-protected") {
				t.Errorf("exit %d, stderr %q: want a refusal naming %s as write-protected", code, se.String(), o)
			}
			if so.Len() != 0 {
				t.Errorf("stdout %q: something ran", so.String())
			}
			if b, err := os.ReadFile(o); err != nil || string(b) != "old" {
				t.Errorf("%s now holds %.40q (%v), want old", o, b, err)
			}
			if st, err := os.Stat(o); err != nil || st.Mode().Perm() != 0o444 {
				t.Errorf("%s: mode %v (%v), want 0444", o, st.Mode().Perm(), err)
			}
			if _, err := os.Stat(tl); err == nil {
				t.Errorf("--timeline written by a refused run")
			}
			if ents, _ := os.ReadDir(d); len(ents) != 1 {
				t.Errorf("%d entries left in the directory, want only the file", len(ents))
			}
		})
	}
}

// A symlink to a write-protected file is refused the same, the link and
// its target kept.
func TestOutputWriteProtectedThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	prog, _, _ := outFixtures(t, dir)
	real, link := filepath.Join(dir, "real.npy"), filepath.Join(dir, "link.npy")
	if err := os.WriteFile(real, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(real, 0o444)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	var so, se bytes.Buffer
	if code := Main([]string{"run", "--dump", "hbm:0x100:u8:8=" + link, prog}, nil, &so, &se); code == 0 || !strings.Contains(se.String(), "write-protected") {
		t.Errorf("exit %d, stderr %q", code, se.String())
	}
	if b, _ := os.ReadFile(real); string(b) != "old" {
		t.Errorf("target now %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
}

// M3, L5: `neff run --out` (and --dump VAR=) writes a variable in
// neff.json's dtype and shape only when the shape has no negative
// dimension and covers exactly the variable's bytes; else as its bytes
// (|u1), with a warning naming the variable. Before, shape [-8, -16] of
// int8 was written as an .npy of shape (-8, -16), exit 0, and a shape that
// disagreed fell back to |u1 silently.
func TestNEFFOutShapeChecked(t *testing.T) {
	for _, tc := range []struct {
		name, tensor string
		descr        string
		shape        []int
		warn         string // "": none
	}{
		{"fits", `{"dtype": "int8", "shape": [8, 16]}`, "|i1", []int{8, 16}, ""},
		{"fits uint16", `{"dtype": "uint16", "shape": [4, 16]}`, "<u2", []int{4, 16}, ""},
		{"negative", `{"dtype": "int8", "shape": [-8, -16]}`, "|u1", []int{128}, "a negative dimension (-8)"},
		{"negative even count", `{"dtype": "int8", "shape": [2, -8, -8]}`, "|u1", []int{128}, "a negative dimension (-8)"},
		{"too few", `{"dtype": "int8", "shape": [4, 4]}`, "|u1", []int{128}, "16 bytes, not the variable's 128"},
		{"dtype size", `{"dtype": "float32", "shape": [8, 16]}`, "|u1", []int{128}, "more bytes than the variable's 128"},
		{"huge", `{"dtype": "int8", "shape": [4611686018427387904, 4]}`, "|u1", []int{128}, "more bytes than the variable's 128"},
		{"zero", `{"dtype": "int8", "shape": [0, 16]}`, "|u1", []int{128}, "0 bytes, not the variable's 128"},
		{"unknown dtype", `{"dtype": "complex64", "shape": [16]}`, "|u1", []int{128}, "a dtype ndma does not know"},
		{"raw", `{"dtype": "", "shape": [3]}`, "|u1", []int{128}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			js := `{"metadata": {"signatures": {"serving_default": {"outputs": {"output": ` + tc.tensor + `}}}}}`
			_, _, nf := outFixtures(t, dir, neff.Member{Name: "neff.json", Data: []byte(js)})
			for _, flag := range []string{"--out", "--dump"} {
				o := filepath.Join(dir, "o.npy")
				var so, se bytes.Buffer
				if code := Main([]string{"neff", "run", flag, "output=" + o, nf}, nil, &so, &se); code != 0 {
					t.Fatalf("%s: exit %d: %s", flag, code, se.String())
				}
				a, err := array.Load(o)
				if err != nil {
					t.Fatalf("%s: %v", flag, err)
				}
				if a.Descr != tc.descr || !equalInts(a.Shape, tc.shape) || len(a.Data) != 128 {
					t.Errorf("%s: wrote %s %v (%d bytes), want %s %v", flag, a.Descr, a.Shape, len(a.Data), tc.descr, tc.shape)
				}
				warned := strings.Contains(so.String(), "warning: "+flag+" ")
				switch {
				case tc.warn == "" && warned:
					t.Errorf("%s: a warning for a fitting type:\n%s", flag, so.String())
				case tc.warn != "" && (!strings.Contains(so.String(), "neff.json gives output the dtype") || !strings.Contains(so.String(), tc.warn)):
					t.Errorf("%s: stdout lacks the warning %q naming output:\n%s", flag, tc.warn, so.String())
				}
				os.Remove(o)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// L3: the --timeline is committed with the outputs: when an output cannot
// be written (a device that fails every write: /dev/full) no timeline
// appears; after a good run it is there with them; after a failed run it
// is written alone (it shows where the run stopped). Before, the timeline
// was renamed into place before the outputs were written.
func TestTimelineWithOutputs(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	prog, src, nf := outFixtures(t, dir)
	for _, tc := range outCommands(prog, src, nf) {
		if !strings.Contains(strings.Join(tc.args("O", "TL"), " "), "TL") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			tl := filepath.Join(t.TempDir(), "tl.json")
			var so, se bytes.Buffer
			if code := Main(tc.args("/dev/full", tl), nil, &so, &se); code == 0 || !strings.Contains(se.String(), "/dev/full") {
				t.Errorf("exit %d, stderr %q", code, se.String())
			}
			if _, err := os.Stat(tl); err == nil {
				t.Errorf("--timeline written though an output failed")
			}
			o := filepath.Join(t.TempDir(), "o.npy")
			if code := Main(tc.args(o, tl), nil, &so, &se); code != 0 {
				t.Fatalf("exit %d: %s", code, se.String())
			}
			for _, f := range []string{o, tl} {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("a good run: %v", err)
				}
			}
		})
	}
}
