package array

import (
	"bytes"
	"strings"
	"testing"
)

// L7: a shape dimension too large for an int is named in part — its first
// digits and its length — not echoed whole (a header may hold thousands).
func TestHugeDimensionEchoedInPart(t *testing.T) {
	for _, digits := range []int{30, 5000} {
		dim := strings.Repeat("9", digits)
		dict := "{'descr': '|u1', 'fortran_order': False, 'shape': (" + dim + ",), }"
		_, err := Read(bytes.NewReader(npyWith(dict)), "x.npy")
		if err == nil {
			t.Fatalf("%d digits: no error", digits)
		}
		msg := err.Error()
		if strings.Contains(msg, strings.Repeat("9", 21)) || len(msg) > 200 || !strings.Contains(msg, "out of range") {
			t.Errorf("%d digits: %d-byte message %.300q", digits, len(msg), msg)
		}
	}
}

// npyWith is a version 1.0 .npy of the header dict, padded, with no data.
func npyWith(dict string) []byte {
	h := dict + " "
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(h)), byte(len(h)>>8))
	return append(b, h...)
}
