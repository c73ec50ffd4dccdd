package device

import (
	"fmt"
	"testing"

	"ndma/isa"
	"ndma/neff"
)

// The schedule note's address names are built without fmt; they must read
// as the fmt formats they replaced ("SB p%d+%#x", "%s+%#x", "%#x"), checked
// here against fmt itself over SBUF, variable and bare addresses.
func TestAddrNamesAsFmt(t *testing.T) {
	m := isa.Map(isa.Cayman)
	vars := []neff.Variable{{Name: "SB", ID: 0, Type: "state-buffer"}, {Name: "x", ID: 1, Type: "input", Size: 4096}, {Name: "y", ID: 2, Type: "output"}}
	n := &addrNames{gen: isa.Cayman, vars: vars, at: map[int]uint64{1: 0x1000_0000, 2: 0x2000_0000}}
	want := func(a uint64) string {
		if r, part, off := m.Split(a); r == isa.SBUF {
			return fmt.Sprintf("SB p%d+%#x", part, off)
		}
		for _, v := range vars {
			if b, ok := n.at[v.ID]; ok && v.Type != "state-buffer" && a >= b && a < b+uint64(max(v.Size, 1)) {
				return fmt.Sprintf("%s+%#x", v.Name, a-b)
			}
		}
		return fmt.Sprintf("%#x", a)
	}
	sb, err := m.Join(isa.SBUF, 5, 0x40)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []uint64{0, sb, sb - 0x40, 0x1000_0000, 0x1000_0fff, 0x1000_1000, 0x2000_0000, 0x2000_0001, 1<<57 - 1} {
		if got := n.name(a); got != want(a) {
			t.Errorf("name(%#x) = %q, fmt gives %q", a, got, want(a))
		}
	}
}
