package device_test

import (
	"errors"
	"testing"

	"ndma/asm"
	"ndma/dge"
	"ndma/internal/control"
	"ndma/isa"
	"ndma/ref"
	"ndma/sdma"
	"ndma/sim"
)

// One sentinel per kind across packages: an unresolved pseudo word refused
// by either executor is isa.ErrUnsupported and control.ErrUnresolved, each
// still its executor's own ErrUnsupported; both faults are one type that
// names the word; an out-of-bounds lane of the DGE is isa.ErrBounds.
func TestErrorKinds(t *testing.T) {
	obj, err := asm.Assemble("p.s", []byte(".gen cayman\npseudo_tensor_load dtype=UINT8, num_elem=[1, 1], var_id=1, data=[3]\n"), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := isa.Decode(isa.Cayman, obj.StreamCode(0))
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]error{"ref": ref.New(isa.Cayman).Exec(&in), "sim": sim.New(isa.Cayman).Exec(&in)} {
		own := map[string]error{"ref": ref.ErrUnsupported, "sim": sim.ErrUnsupported}[name]
		if !errors.Is(e, isa.ErrUnsupported) || !errors.Is(e, control.ErrUnresolved) || !errors.Is(e, own) {
			t.Errorf("%s: %v: not isa.ErrUnsupported, control.ErrUnresolved and its own ErrUnsupported", name, e)
		}
		var f *sim.Fault // the reference's fault is the same type
		if !errors.As(e, &f) || f.Mnemonic != "PSEUDO_TENSOR_LOAD" {
			t.Errorf("%s: %v: no fault naming the word", name, e)
		}
	}
	if !errors.Is(sdma.ErrBounds, isa.ErrBounds) || sdma.ErrBounds.Error() != "S: DGE: Failed bounds check" || !errors.Is(ref.ErrBounds, isa.ErrBounds) {
		t.Error("the bounds errors are not one kind")
	}
	if errors.Is(dge.ErrNotLowered, isa.ErrUnsupported) {
		t.Error("a word the DGE does not lower is not an unsupported one")
	}
}
