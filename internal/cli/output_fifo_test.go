//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// M1: a FIFO given as an output is opened once, when the outputs are
// reserved, and written once at the end: its reader gets exactly the bytes
// a regular file gets, and ndma exits. Before, it was opened twice (a probe
// at reserve, then the write): the reader got 0 bytes at the probe's close
// and ndma blocked forever on the second open.
func TestOutputFIFOWrittenOnce(t *testing.T) {
	dir := t.TempDir()
	prog, src, nf := outFixtures(t, dir)
	for _, tc := range outCommands(prog, src, nf) {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			want := filepath.Join(d, "want")
			var so, se bytes.Buffer
			if code := Main(tc.args(want, filepath.Join(d, "tl1.json")), nil, &so, &se); code != 0 {
				t.Fatalf("to a file: exit %d: %s", code, se.String())
			}
			wb, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(d, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip(err)
			}
			got := readFIFO(fifo)
			code, se2, ok := mainWithin(t, tc.args(fifo, filepath.Join(d, "tl2.json")), 10*time.Second)
			if !ok {
				t.Errorf("ndma blocked on the FIFO")
				drainFIFO(fifo)
				code, se2, _ = mainWithin(t, nil, 0)
			}
			if code != 0 {
				t.Errorf("to the FIFO: exit %d: %s", code, se2)
			}
			select {
			case b := <-got:
				if !bytes.Equal(b, wb) {
					t.Errorf("the reader got %d bytes, a file gets %d", len(b), len(wb))
				}
			case <-time.After(10 * time.Second):
				t.Errorf("the reader got no end of file")
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v", err)
			}
		})
	}
}

// A command that fails after its FIFO output is reserved closes it
// unwritten: the reader gets end of file, ndma exits with the error, and
// no regular output beside it is written.
func TestOutputFIFOFailedRunClosesIt(t *testing.T) {
	dir := t.TempDir()
	_, _, nf := outFixtures(t, dir)
	fifo, other := filepath.Join(dir, "fifo"), filepath.Join(dir, "other.npy")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := readFIFO(fifo)
	// --in is read after the outputs are reserved: a missing one fails the run there
	args := []string{"neff", "run", "--out", "output=" + fifo, "--dump", "input=" + other, "--in", "input=" + filepath.Join(dir, "nosuch.npy"), nf}
	code, se, ok := mainWithin(t, args, 10*time.Second)
	if !ok {
		drainFIFO(fifo)
		t.Fatalf("ndma blocked on the FIFO")
	}
	if code == 0 || !strings.Contains(se, "nosuch.npy") {
		t.Errorf("exit %d, stderr %q", code, se)
	}
	select {
	case b := <-got:
		if len(b) != 0 {
			t.Errorf("the reader got %d bytes of a failed run", len(b))
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the reader got no end of file")
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("%s written by a failed run", other)
	}
}

// readFIFO reads the FIFO at path to its end, in the background.
func readFIFO(path string) <-chan []byte {
	c := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(path)
		c <- b
	}()
	return c
}

// drainFIFO opens a reader on a FIFO a blocked writer waits for, so that
// it finishes.
func drainFIFO(path string) { readFIFO(path) }

var mainDone = make(chan [2]any, 1)

// mainWithin runs Main(args) and waits for it up to d; with args nil it
// waits, without limit, for the one left running.
func mainWithin(t *testing.T, args []string, d time.Duration) (code int, stderr string, ok bool) {
	t.Helper()
	if args != nil {
		go func() {
			var so, se bytes.Buffer
			code := Main(args, nil, &so, &se)
			mainDone <- [2]any{code, se.String()}
		}()
	}
	var wait <-chan time.Time
	if d > 0 {
		wait = time.After(d)
	}
	select {
	case r := <-mainDone:
		return r[0].(int), r[1].(string), true
	case <-wait:
		return 0, "", false
	}
}
