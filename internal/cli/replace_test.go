package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A staged output over an existing file: the target holds the new bytes
// whole, with 0666 less the umask, and nothing else is left in the
// directory (the old file, exchanged out under the temporary name, is gone).
func TestStagedReplacesExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.npy")
	if err := os.WriteFile(path, bytes.Repeat([]byte("old "), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	for round, want := range [][]byte{[]byte("new bytes"), bytes.Repeat([]byte{7}, 3<<20), nil} {
		if err := writeFileAtomic(path, want); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("round %d: read %d bytes (%v), want %d", round, len(got), err, len(want))
		}
		st, _ := os.Stat(path)
		if m := st.Mode().Perm(); m != 0o666&^umask() {
			t.Errorf("round %d: mode %v, want %v", round, m, os.FileMode(0o666&^umask()))
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("round %d: directory holds %d entries, want only out.npy", round, len(ents))
		}
	}
}

// replace onto a name not there yet is a rename.
func TestReplaceNewName(t *testing.T) {
	dir := t.TempDir()
	tmp, path := filepath.Join(dir, "t"), filepath.Join(dir, "p")
	if err := os.WriteFile(tmp, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replace(tmp, path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Fatalf("got %q, %v", b, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary name still there: %v", err)
	}
}
