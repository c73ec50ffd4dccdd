package nkic

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// A call's numbers may be "inf", "-inf" or "nan" in JSON (which has no
// such numbers): read as those values, written back as the same strings,
// finite ones as numbers; any other string and unknown fields refused.
func TestCallNonFiniteNumbers(t *testing.T) {
	const src = `{"tensors":[{"name":"t","buffer":"sbuf","dtype":"float32","shape":[2,2]}],"calls":[` +
		`{"op":"memset","dst":{"tensor":"t"},"value":"-inf"},{"op":"tensor_scalar","dst":{"tensor":"t"},"src":{"tensor":"t"},"alu_op":"add","operand0":"inf","operand1":"nan","alu_op1":"add"},` +
		`{"op":"memset","dst":{"tensor":"t"},"value":1.5}]}`
	p, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := p.Calls[0], p.Calls[1]
	if !math.IsInf(*c0.Value, -1) || !math.IsInf(*c1.Operand0, 1) || !math.IsNaN(*c1.Operand1) || *p.Calls[2].Value != 1.5 {
		t.Fatalf("read %v %v %v %v", *c0.Value, *c1.Operand0, *c1.Operand1, *p.Calls[2].Value)
	}
	b, err := json.Marshal(p.Calls)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"value":"-inf"`, `"operand0":"inf"`, `"operand1":"nan"`, `"value":1.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold %s", b, want)
		}
	}
	for _, bad := range []string{`"value":"infinity"`, `"value":true`, `"valeu":1`} {
		_, err := Parse(strings.NewReader(`{"tensors":[],"calls":[{"op":"memset",` + bad + `}]}`))
		if !errors.Is(err, ErrProgram) {
			t.Errorf("%s: %v, want ErrProgram", bad, err)
		}
	}
}
