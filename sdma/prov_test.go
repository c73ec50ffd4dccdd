package sdma

import (
	"testing"

	"ndma/isa"
)

// Neither source document (000, 003) gives a bit of the descriptor's word0:
// ring_phase, first, last, int_en and dmb are field-tables §11.7's (the
// driver's `union udma_desc`), so CARRIED, not OBSERVED. 000 §5 names buf_ptr.
func TestDescriptorProvenance(t *testing.T) {
	want := map[string]isa.Prov{
		"ring_phase": isa.Carried, "first": isa.Carried, "last": isa.Carried,
		"int_en": isa.Carried, "dmb": isa.Carried, "buf_ptr": isa.Observed,
	}
	for _, f := range Layout.Fields {
		if p, ok := want[f.Name]; ok {
			if f.Prov != p {
				t.Errorf("SDMA_BD.%s: %s, want %s", f.Name, f.Prov, p)
			}
			delete(want, f.Name)
		}
	}
	for n := range want {
		t.Errorf("SDMA_BD has no field %s", n)
	}
}
