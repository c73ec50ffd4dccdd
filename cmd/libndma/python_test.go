package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPython builds the library into a temporary directory and runs the
// pytest suite of python/tests against it with Debian's python3 (issue 31).
// Without python3-numpy and python3-pytest it skips, unless
// NDMA_REQUIRE_PYTHON=1 (CI), which makes their absence a failure.
func TestPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the c-shared build and the pytest suite take minutes")
	}
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy, pytest").CombinedOutput(); err != nil {
		msg := "python3-numpy and python3-pytest are needed (apt-get install python3-numpy python3-pytest): " + strings.TrimSpace(string(out))
		if os.Getenv("NDMA_REQUIRE_PYTHON") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "libndma.so")
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "./cmd/libndma")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NDMA_LIB="+lib, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("pytest: %v", err)
	}
}
