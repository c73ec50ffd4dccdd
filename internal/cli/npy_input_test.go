package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npyWith is a .npy v1.0 file with header dict d and data (d padded as
// NumPy pads it).
func npyWith(d string, data []byte) []byte {
	d += strings.Repeat(" ", 63-(10+len(d))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), binary.LittleEndian.AppendUint16(nil, uint16(len(d)))...)
	return append(append(b, d...), data...)
}

// .npy inputs whose headers lie are refused by name before anything is
// allocated, and never panic (issue 15, H3 and H4): a 144-byte file
// claiming 2^30 u4 elements (it took 4.2 GB and 14 s to say "EOF"), a header
// length of 0, a negative dimension, a shape whose product overflows.
func TestNPYInputsChecked(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "t.s")
	os.WriteFile(prog, []byte(".gen cayman\ndmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_num_elem=[1, 1], src_elem_size=8, dst_start_addr=hbm:0x100, dst_num_elem=[1, 1], dst_elem_size=8, in_dtype=u8, out_dtype=u8\n"), 0o644)
	zeroLen := append([]byte("\x93NUMPY\x01\x00\x00\x00"), make([]byte, 16)...)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"huge", npyWith("{'descr': '<u4', 'fortran_order': False, 'shape': (1073741824,), }", make([]byte, 16)), "declares 1073741824 elements (4294967296 bytes) of data, the file holds 16 bytes"},
		{"zerolen", zeroLen, ".npy header"},
		{"negative", npyWith("{'descr': '<u4', 'fortran_order': False, 'shape': (-4,), }", make([]byte, 16)), "npy"},
		{"overflow", npyWith("{'descr': '<u4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", make([]byte, 16)), "more"},
	} {
		path := filepath.Join(dir, tc.name+".npy")
		if err := os.WriteFile(path, tc.file, 0o644); err != nil {
			t.Fatal(err)
		}
		var so, se bytes.Buffer
		if code := Main([]string{"run", "--load", "hbm:0x0=" + path, prog}, nil, &so, &se); code != 1 || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q (want %q)", tc.name, code, se.String(), tc.want)
		}
	}
}
