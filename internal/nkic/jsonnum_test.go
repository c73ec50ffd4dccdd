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

// DecodeCalls (the bridge's JSON calls) reads both paths alike and refuses
// unknown fields on both.
func TestDecodeCalls(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want float64
	}{{`[{"op":"memset","value":2.5}]`, 2.5}, {`[{"op":"memset","value":"-inf"}]`, math.Inf(-1)}} {
		cs, err := DecodeCalls([]byte(tc.src))
		if err != nil || len(cs) != 1 || *cs[0].Value != tc.want {
			t.Errorf("%s: %v %v", tc.src, cs, err)
		}
	}
	for _, bad := range []string{`[{"op":"memset","valu":1}]`, `[{"op":"memset","valu":"inf"}]`, `[{"op":"memset","value":"infinite"}]`} {
		if _, err := DecodeCalls([]byte(bad)); err == nil {
			t.Errorf("%s: read", bad)
		}
	}
	if cs, err := DecodeCalls(nil); err != nil || cs != nil {
		t.Errorf("no calls: %v %v", cs, err)
	}
}
