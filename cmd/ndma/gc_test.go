package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets a test run this command's main in a child process (the
// collector pacing is process state main sets).
func TestMain(m *testing.M) {
	if os.Getenv("NDMA_TEST_MAIN") == "1" {
		os.Args = append([]string{"ndma"}, strings.Fields(os.Getenv("NDMA_TEST_ARGS"))...)
		main()
	}
	os.Exit(m.Run())
}

// `ndma run` keeps the collector on (issue 30 M5): with it off below a
// 4 GiB heap, 16,000 64-byte copies under --exec both peaked at 4.0 GB;
// paced at GOGC 400 they peak near 80 MB. The child's peak resident set
// must stay under 1 GiB.
func TestRunMemoryPaced(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 16,000 copies on both executors in a child process (-short)")
	}
	var b strings.Builder
	b.WriteString(".gen cayman\n")
	for k := range 16000 {
		fmt.Fprintf(&b, "dmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:%#x, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:%#x, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n", 128*k, 0x1000000+128*k)
	}
	prog := filepath.Join(t.TempDir(), "copies.s")
	if err := os.WriteFile(prog, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NDMA_TEST_MAIN=1", "NDMA_TEST_ARGS=run --exec both "+prog, "GOGC=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if peak := ru.Maxrss << 10; peak > 1<<30 {
		t.Errorf("ndma run --exec both of 16,000 copies peaked at %d MB", peak>>20)
	} else {
		t.Logf("peak resident set %d MB", peak>>20)
	}
}
