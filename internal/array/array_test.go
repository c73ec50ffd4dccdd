package array

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"codeberg.org/sbinet/npyio"
)

// What Write writes, npyio reads back (an independent decoder), and Read
// returns the same bytes and shape.
func TestRoundTripThroughNpyio(t *testing.T) {
	a := &Array{Descr: "<u2", Shape: []int{2, 3}, Data: []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xff, 0xff}}
	var buf bytes.Buffer
	if err := Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	if (buf.Len()-len(a.Data))%64 != 0 {
		t.Fatalf("header not padded to 64 bytes: %d", buf.Len()-len(a.Data))
	}
	var got []uint16
	if err := npyio.Read(bytes.NewReader(buf.Bytes()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got[0] != 1 || got[5] != 0xffff {
		t.Fatalf("npyio read %v", got)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()), "x.npy")
	if err != nil || !bytes.Equal(back.Data, a.Data) || len(back.Shape) != 2 || back.Shape[1] != 3 {
		t.Fatalf("Read: %v %+v", err, back)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, []byte("not numpy"), 0o644)
	if _, err := Load(bad); err == nil {
		t.Error("garbage accepted")
	}
	var buf bytes.Buffer
	Write(&buf, &Array{Descr: "<f4", Shape: []int{2}, Data: make([]byte, 8)})
	fortran := bytes.Replace(buf.Bytes(), []byte("'fortran_order': False"), []byte("'fortran_order': True "), 1)
	if _, err := Read(bytes.NewReader(fortran), "f.npy"); err == nil {
		t.Error("Fortran order accepted")
	}
	if _, err := Load(filepath.Join(dir, "missing.npy")); err == nil {
		t.Error("missing file accepted")
	}
}

// float16, which npyio does not know, reads as its raw bits; a .npy written
// by hand (NumPy's v1.0 header, '<f2', 1.0 and -2.0) is the expectation.
func TestFloat16(t *testing.T) {
	hdr := "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }"
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	file := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), 0)
	file = append(append(file, hdr...), 0x00, 0x3c, 0x00, 0xc0)
	a, err := Read(bytes.NewReader(file), "h.npy")
	if err != nil || a.Descr != "<f2" || !bytes.Equal(a.Data, []byte{0x00, 0x3c, 0x00, 0xc0}) || len(a.Shape) != 1 || a.Shape[0] != 2 {
		t.Fatalf("%v %+v", err, a)
	}
	if _, err := Read(bytes.NewReader(file[:len(file)-1]), "h.npy"); err == nil {
		t.Fatal("a truncated float16 array read")
	}
}
