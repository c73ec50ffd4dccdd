package nkic

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Placement refusals of a tensor's own partition and offset (docs/nki.md
// "Program form"): an SBUF has 128 partitions (docs/field-tables.md, "SBUF
// partitions"), so a 4-partition tile may start at partitions 0..124 only;
// an HBM tensor must end inside the HBM window. The partition near 2^63
// once wrapped partition+4 negative, passed the check and was refused only
// at relocation, as an address nobody wrote.
func TestPlacementRefused(t *testing.T) {
	prog := func(tensor string) string {
		return `{"target":"trn2","tensors":[` + tensor + `],"calls":[]}`
	}
	sbuf := func(part int64) string {
		return prog(fmt.Sprintf(`{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,4],"partition":%d}`, part))
	}
	for _, tc := range []struct {
		name, src, want string // want "": placed
	}{
		{"first partition", sbuf(0), ""},
		{"last four partitions", sbuf(124), ""},
		{"one partition past", sbuf(125), `tensor "t": 4 partitions from partition 125: the buffer has 128`},
		{"negative partition", sbuf(-1), `tensor "t": 4 partitions from partition -1: the buffer has 128`},
		{"partition wrapping int64", sbuf(math.MaxInt64), fmt.Sprintf(`tensor "t": 4 partitions from partition %d: the buffer has 128`, int64(math.MaxInt64))},
		{"partition wrapping to 0", sbuf(math.MaxInt64 - 3), fmt.Sprintf(`4 partitions from partition %d`, int64(math.MaxInt64-3))},
		{"hbm offset at 2^63", prog(fmt.Sprintf(`{"name":"a","buffer":"hbm","dtype":"float32","shape":[4,4],"offset":%d}`, int64(math.MaxInt64))), "pass the HBM window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.src))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrProgram) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrProgram with %q", err, tc.want)
			}
		})
	}
}
