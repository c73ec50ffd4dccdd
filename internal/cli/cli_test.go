package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"ndma/internal/array"
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
			// mknpy FILE DESCR SHAPE: an array whose element i holds i (u2, u4, i4 or f4)
			"mknpy": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: mknpy FILE DESCR AxB")
				}
				var shape []int
				n := 1
				for _, d := range strings.Split(args[2], "x") {
					v, err := strconv.Atoi(d)
					ts.Check(err)
					shape = append(shape, v)
					n *= v
				}
				size := map[string]int{"<u2": 2, "<u4": 4, "<i4": 4, "<f4": 4}[args[1]]
				data := make([]byte, n*size)
				for i := 0; i < n; i++ {
					switch args[1] {
					case "<u2":
						binary.LittleEndian.PutUint16(data[2*i:], uint16(i))
					case "<f4":
						binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)))
					default:
						binary.LittleEndian.PutUint32(data[4*i:], uint32(i))
					}
				}
				var b bytes.Buffer
				ts.Check(array.Write(&b, &array.Array{Descr: args[1], Shape: shape, Data: data}))
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
			},
			// npytransposed IN OUT R C: OUT, read as C × R, is the transpose of IN, read as R × C (2-byte elements)
			"npytransposed": func(ts *testscript.TestScript, neg bool, args []string) {
				in, err := array.Load(ts.MkAbs(args[0]))
				ts.Check(err)
				out, err := array.Load(ts.MkAbs(args[1]))
				ts.Check(err)
				r, err1 := strconv.Atoi(args[2])
				c, err2 := strconv.Atoi(args[3])
				if err1 != nil || err2 != nil || len(in.Data) != 2*r*c || len(out.Data) != 2*r*c {
					ts.Fatalf("npytransposed IN OUT R C: sizes %d, %d for %s × %s", len(in.Data), len(out.Data), args[2], args[3])
				}
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						a := binary.LittleEndian.Uint16(in.Data[2*(i*c+j):])
						b := binary.LittleEndian.Uint16(out.Data[2*(j*r+i):])
						if a != b {
							ts.Fatalf("out[%d][%d] = %d, want in[%d][%d] = %d", j, i, b, i, j, a)
						}
					}
				}
			},
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
		{[]string{"catalog", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"neff", "run", "--max-byte", "5", "x.neff"}, 2, "unknown flag --max-byte (did you mean --max-bytes?)"},
		{[]string{"neff", "run", "--max-bytes", "abc", "x.neff"}, 2, `invalid value "abc" for flag -max-bytes: parse error (ndma neff run -h lists the flags)`},
		{[]string{"describe", "NOT_AN_OPCODE"}, 2, "unknown opcode"},
		{[]string{"describe"}, 2, "want one OPCODE or NAME"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"demo", "--gen", "maverick"}, 0, ""},
		{[]string{"demo", "--gen", "sunda"}, 0, ""}, // no transposes there: those parts say they are skipped
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
