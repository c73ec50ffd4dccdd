package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/array"
)

// A --load read in place (an HBM array of whole pages) is the memory's
// private copy: a word that overwrites it changes the dump, never the file.
func TestLoadInPlaceLeavesFileAlone(t *testing.T) {
	dir := t.TempDir()
	const n = 3<<16 + 5 // three pages and a tail
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	in := filepath.Join(dir, "in.npy")
	file := npyWith("{'descr': '|u1', 'fortran_order': False, 'shape': (196613,), }", data)
	if err := os.WriteFile(in, file, 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "t.s")
	// 64 bytes from the loaded array's end over its bytes 0x10000..0x1003f, inside its second page
	os.WriteFile(prog, []byte(".gen cayman\ndmamemcpy src_start_addr=hbm:0x30000, src_num_elem=[1, 1], src_elem_size=5, dst_start_addr=hbm:0x10000, dst_num_elem=[1, 1], dst_elem_size=5, in_dtype=u8, out_dtype=u8\n"), 0o644)
	for _, ex := range []string{"ref", "sim", "both"} {
		out := filepath.Join(dir, ex+".npy")
		ndmaOut(t, 0, "run", "--exec", ex, "--load", "hbm:0x0="+in, "--dump", "hbm:0x0:u8:196613="+out, prog)
		if b, _ := os.ReadFile(in); !bytes.Equal(b, file) {
			t.Fatalf("%s: the --load file changed", ex)
		}
		a, err := array.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Clone(data)
		copy(want[0x10000:0x10005], data[0x30000:0x30005])
		if !bytes.Equal(a.Data, want) {
			t.Fatalf("%s: the dump is not the array with the 5 bytes copied", ex)
		}
	}
}

// A mapped file that shrinks under the run is an error naming it, not a
// crash: the guard turns the read's fault into it.
func TestMappedFileShrinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.npy")
	if err := os.WriteFile(path, npyWith("{'descr': '|u1', 'fortran_order': False, 'shape': (262144,), }", make([]byte, 1<<18)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := array.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, ok, err := f.Map()
	if err != nil || !ok {
		t.Skipf("not mapped here (%v)", err)
	}
	var ms mappings
	ms.add(path, data, nil)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum byte
	err = ms.guard(func() error {
		for i := 0; i < len(data); i += 4096 {
			sum += data[i]
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "a.npy: the file shrank while the run read it in place") {
		t.Fatalf("err = %v (sum %d)", err, sum)
	}
	// a fault elsewhere is not the guard's to turn into an error
	defer func() {
		if recover() == nil {
			t.Error("a panic outside the mappings was swallowed")
		}
	}()
	ms.guard(func() error { panic("other") })
}

// A dump's bytes that lie in a loaded file's mapping are copied file to
// file (copy_file_range), after what the buffer holds and in their order;
// bytes in no mapping are left to the buffer.
func TestDumpWriterCopiesMappedBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.npy")
	data := make([]byte, 1<<18)
	for i := range data {
		data[i] = byte(i*13 + i>>8)
	}
	if err := os.WriteFile(path, npyWith("{'descr': '|u1', 'fortran_order': False, 'shape': (262144,), }", data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := array.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mapped, ok, err := f.Map()
	if err != nil || !ok {
		t.Skipf("not mapped here (%v)", err)
	}
	var ms mappings
	ms.add(path, mapped, f)
	outPath := filepath.Join(dir, "out.bin")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := &dumpWriter{&outFile{bufio.NewWriter(out), out}, &ms}
	w.Write([]byte("head")) // buffered: must land before the copied bytes
	n, err := w.WriteAttached(mapped[1000:70000])
	if err != nil || n != 69000 {
		t.Fatalf("copied %d bytes (%v), want 69000", n, err)
	}
	if n, _ := w.WriteAttached(make([]byte, 10)); n != 0 {
		t.Fatalf("bytes in no mapping: %d copied", n)
	}
	w.Write([]byte("tail"))
	w.Flush()
	got, _ := os.ReadFile(outPath)
	want := append(append([]byte("head"), data[1000:70000]...), "tail"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("the file holds %d bytes, not head, the data's bytes 1000..70000 and tail", len(got))
	}
}
