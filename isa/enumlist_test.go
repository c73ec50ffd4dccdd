//go:build !gentyped

package isa

import "testing"

// Enums() is what `ndma enums` lists: every enum a layout of the catalog
// reaches (field, sub-struct, CCINST member) is in it, once, under a unique
// name.
func TestEnumsCoverTables(t *testing.T) {
	in := map[*Enum]bool{}
	names := map[string]bool{}
	for _, e := range Enums() {
		if in[e] {
			t.Errorf("Enums lists %s twice", e.Name)
		}
		if names[e.Name] {
			t.Errorf("two enums are named %s", e.Name)
		}
		in[e], names[e.Name] = true, true
	}
	seen := map[*Struct]bool{}
	var walk func(s *Struct)
	walk = func(s *Struct) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, f := range s.Fields {
			if f.Enum != nil && !in[f.Enum] {
				t.Errorf("%s.%s: enum %s is not in Enums()", s.Name, f.Name, f.Enum.Name)
			}
			walk(f.Sub)
		}
	}
	for i := range catalog {
		walk(catalog[i].Layout)
		for _, r := range catalog[i].ByGen {
			walk(r.Layout)
		}
	}
	for _, m := range ccMembers {
		for _, f := range m.Fields {
			if f.Enum != nil && !in[f.Enum] {
				t.Errorf("CCINST %s.%s: enum %s is not in Enums()", m.Name, f.Name, f.Enum.Name)
			}
		}
	}
	if !in[WaitMode()] || !in[CCOp()] || !in[ALUOp()] {
		t.Error("Enums lacks WAIT_MODE, CCOP or ALU_OP")
	}
}
