package cli

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ndma": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// The CLI scripts in testdata/script: commands, expected output, errors.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// unhex IN OUT: writes the bytes of a hex text file ('#' comments).
			"unhex": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: unhex IN OUT")
				}
				var b []byte
				for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
					line, _, _ = strings.Cut(line, "#")
					x, err := hex.DecodeString(strings.Join(strings.Fields(line), ""))
					ts.Check(err)
					b = append(b, x...)
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
			},
		},
	})
}

// Exit statuses and the one-line-error contract: bad input or usage prints one
// line on stderr, nothing on stdout, and exits 1 (input) or 2 (usage).
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	word := make([]byte, 64)
	word[0], word[1] = 0xb8, 0x10
	good := write("good.bin", word)
	trunc := write("trunc.bin", append(word, 0xbb, 0x10, 0, 0))
	empty := write("empty.bin", nil)
	cases := []struct {
		args   []string
		status int
		stderr string // substring of the single line
	}{
		{[]string{"disasm", "--json", good}, 0, ""},
		{[]string{"disasm", "--json", trunc}, 1, "offset 0x40 (DMA_INDIRECT): truncated word: 4 of 64 bytes"},
		{[]string{"disasm", "--json", empty}, 1, "empty input"},
		{[]string{"disasm", "--json", filepath.Join(dir, "missing.bin")}, 1, "no such file or directory"},
		{[]string{"disasm", "--json", dir}, 1, "is a directory"},
		{[]string{"disasm", "--gen", "v9", good}, 2, `unknown generation "v9"`},
		{[]string{"catalog", "--gen", "tonga"}, 2, `unknown generation "tonga"`},
		{[]string{"catalog", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"describe", "NOT_AN_OPCODE"}, 2, "unknown opcode"},
		{[]string{"describe"}, 2, "want one OPCODE or NAME"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"demo", "--gen", "maverick"}, 0, ""},
		{[]string{}, 2, "usage"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		got := Main(c.args, strings.NewReader(""), &out, &errb)
		if got != c.status {
			t.Errorf("ndma %v: status %d, want %d (stderr %q)", c.args, got, c.status, errb.String())
			continue
		}
		if c.status == 0 {
			if out.Len() == 0 || errb.Len() != 0 {
				t.Errorf("ndma %v: stdout %d bytes, stderr %q", c.args, out.Len(), errb.String())
			}
			continue
		}
		if len(c.args) == 0 { // bare `ndma` prints the usage text on stderr
			continue
		}
		if out.Len() != 0 {
			t.Errorf("ndma %v: wrote %d bytes to stdout on failure", c.args, out.Len())
		}
		lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
		if !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("ndma %v: stderr %q, want it to contain %q", c.args, errb.String(), c.stderr)
		}
		if len(lines) != 1 && !strings.Contains(errb.String(), "flag provided") {
			t.Errorf("ndma %v: %d lines on stderr, want 1: %q", c.args, len(lines), errb.String())
		}
	}
}
