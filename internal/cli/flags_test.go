package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/internal/neffgen"
)

// L7: a flag of one value given twice is refused by name, both values
// quoted (before, the last was taken silently); a repeatable flag, a
// switch given twice and a --table whose entries do not overlap are
// accepted; a --table entry given twice is refused.
func TestFlagGivenTwiceRefused(t *testing.T) {
	dir := t.TempDir()
	prog, _, nf := outFixtures(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--exec", "sim", "--exec", "ref", prog}, 2, `--exec given 2 times ("sim", "ref"): it takes one value`},
		{[]string{"run", "--exec", "ref", prog, "--exec=both"}, 2, `--exec given 2 times ("ref", "both")`},
		{[]string{"neff", "run", "--engine", "pe", "--engine", "pool", nf}, 2, `--engine given 2 times ("pe", "pool")`},
		{[]string{"neff", "run", "--exec", "sim", "--exec", "ref", nf}, 2, `--exec given 2 times`},
		{[]string{"lower", "--gen", "cayman", "--gen", "sunda", prog}, 2, `--gen given 2 times`},
		{[]string{"lower", "--table", "0=1,2", "--table", "1=3", prog}, 2, `--table "1=3": entry 1 is given twice (--table "0=1,2" gives it too)`},
		{[]string{"lower", "--table", "0=1,2", "--table", "2=3", prog}, 0, ""},
		// a table index is 16 bits: 65535 is the last entry, 65536 none
		{[]string{"lower", "--table", "65535=1", prog}, 0, ""},
		{[]string{"lower", "--table", "65534=1,2,3", prog}, 2, `--table "65534=1,2,3": entry 65536 is past the last table index, 65535`},
		{[]string{"lower", "--table", "65536=1", prog}, 2, `--table "65536=1": want INDEX=VAR,VAR,…`},
		{[]string{"run", "--trace", "--trace", "--sem", "1=0", "--sem", "2=0", prog}, 0, ""},
	} {
		var so, se bytes.Buffer
		code := Main(tc.args, nil, &so, &se)
		if code != tc.code || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, se.String(), tc.code, tc.want)
		}
	}
}

// L6: `neff diff` exits 2 when it cannot read a file (as cmp and diff
// do), keeping 1 for "the DMA differs"; before, both were 1.
func TestNEFFDiffTroubleExit(t *testing.T) {
	dir := t.TempDir()
	a := writeNEFF(t, dir, "a.neff", neffgen.Weights("cayman", false))
	junk := filepath.Join(dir, "junk.neff")
	if err := os.WriteFile(junk, []byte("not a neff"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{filepath.Join(dir, "nosuch.neff"), junk} {
		var so, se bytes.Buffer
		if code := Main([]string{"neff", "diff", a, b}, nil, &so, &se); code != 2 || !strings.Contains(se.String(), b) {
			t.Errorf("diff %s: exit %d (want 2), stderr %q", b, code, se.String())
		}
	}
}

// A --vars file's table is indexed by 16 bits: 65,536 entries are the
// most it may hold (docs/json.md PSEUDO_ADDR8, bytes 4–5).
func TestVarsFileTableCapped(t *testing.T) {
	dir := t.TempDir()
	prog, _, _ := outFixtures(t, dir)
	for _, tc := range []struct {
		n    int
		code int
		want string
	}{
		{1 << 16, 0, ""},
		{1<<16 + 1, 2, "65537 table entries: at most 65536"},
	} {
		entries := strings.Repeat("1,", tc.n-1) + "1"
		vars := filepath.Join(dir, "vars.json")
		if err := os.WriteFile(vars, []byte(`{"vars": {}, "table": [`+entries+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		var so, se bytes.Buffer
		code := Main([]string{"lower", "--vars", vars, prog}, nil, &so, &se)
		if code != tc.code || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%d entries: exit %d, stderr %q; want exit %d and %q", tc.n, code, se.String(), tc.code, tc.want)
		}
	}
}

// A --dump the run could never write (too large, or not mapped) is a
// usage error before the run: nothing printed, nothing written (the size
// and the address come from the flag alone).
func TestDumpRefusedBeforeRun(t *testing.T) {
	dir := t.TempDir()
	prog, _, nf := outFixtures(t, dir)
	d := filepath.Join(dir, "d.npy")
	for _, args := range [][]string{
		{"neff", "run", "--dump", "sbuf:0:0:fp32:999999999999=" + d, nf},
		{"neff", "run", "--dump", "sg00:sbuf:0:0:u8:128x300000=" + d, nf}, // past a partition's bytes
		{"run", "--dump", "sbuf:0:0:fp32:999999999999=" + d, prog},
	} {
		var so, se bytes.Buffer
		code := Main(args, nil, &so, &se)
		if code != 2 || so.Len() != 0 || se.Len() == 0 {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing on stdout", args, code, so.Len(), se.String())
		}
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%v: %s written", args, d)
		}
	}
}

// A bad flag is one line on stderr (the flag package's own error and the
// whole usage are not printed too); -h prints the usage, exit 0.
func TestBadFlagOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"neff", "run", "--max-bytes", "abc", "x.neff"},
		{"neff", "run", "--nosuch", "x.neff"},
		{"run", "--cores", "x", "t.s"},
	} {
		var so, se bytes.Buffer
		if code := Main(args, nil, &so, &se); code != 2 || strings.Count(se.String(), "\n") != 1 || so.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, se.String())
		}
	}
	var so, se bytes.Buffer
	if code := Main([]string{"neff", "run", "-h"}, nil, &so, &se); code != 0 || !strings.Contains(se.String(), "usage: ndma neff run") || !strings.Contains(se.String(), "-max-bytes") {
		t.Errorf("-h: exit %d, stderr %q", code, se.String())
	}
}

// disasm without --gen prints a compute word (its layout per generation)
// as .word and says on stderr how to decode it; with --gen, no note.
func TestDisasmRawNote(t *testing.T) {
	src := ".gen cayman\nnop\n" + neffgen.Word("ldweights", neffgen.NoEv, neffgen.Row(0, 128).Arg("src_mem_pattern", 3), "in_dtype=FP32, fp32_mode=LOW",
		"num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15")
	obj, err := asm.Assemble("pe.s", []byte(src), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "pe.bin")
	if err := os.WriteFile(bin, obj.Code, 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if code := Main([]string{"disasm", bin}, nil, &so, &se); code != 0 || !strings.Contains(so.String(), "# LDWEIGHTS") ||
		se.String() != "note: 1 word (LDWEIGHTS, …) printed as .word: its layout is per generation; give --gen (e.g. --gen trn2)\n" {
		t.Errorf("no --gen: exit %d, stdout %q, stderr %q", code, so.String(), se.String())
	}
	so.Reset()
	se.Reset()
	if code := Main([]string{"disasm", "--gen", "trn2", bin}, nil, &so, &se); code != 0 || se.Len() != 0 || strings.Contains(so.String(), ".word") {
		t.Errorf("--gen trn2: exit %d, stdout %q, stderr %q", code, so.String(), se.String())
	}
}
