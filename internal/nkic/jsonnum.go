package nkic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// jnum is one of a call's numbers in JSON: a number, or — JSON has no
// infinity or NaN — the string "inf", "-inf" or "nan" (docs/nki.md "Program
// form": a -inf fill value, nc_match_replace8's usual imm, travels so).
type jnum float64

func (n *jnum) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "inf", "+inf":
			*n = jnum(math.Inf(1))
		case "-inf":
			*n = jnum(math.Inf(-1))
		case "nan":
			*n = jnum(math.NaN())
		default:
			return progErr("number %q: want a JSON number, \"inf\", \"-inf\" or \"nan\"", s)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil { // its offset counts from the number: the call's reader locates the call instead
		return fmt.Errorf("%s: want a JSON number, \"inf\", \"-inf\" or \"nan\"", bytes.TrimSpace(b))
	}
	*n = jnum(f)
	return nil
}

func (n jnum) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"nan"`), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// callNums are a Call with its number fields read and written as jnum.
type callNums struct {
	*plainCall
	Operand0   *jnum `json:"operand0,omitempty"`
	Operand1   *jnum `json:"operand1,omitempty"`
	Scale      *jnum `json:"scale,omitempty"`
	Bias       *jnum `json:"bias,omitempty"`
	Value      *jnum `json:"value,omitempty"`
	Initial    *jnum `json:"initial,omitempty"`
	RangeStart *jnum `json:"range_start,omitempty"`
}

type plainCall Call

// nums are the call's number fields, in callNums' order.
func (c *Call) nums() []**float64 {
	return []**float64{&c.Operand0, &c.Operand1, &c.Scale, &c.Bias, &c.Value, &c.Initial, &c.RangeStart}
}

func (v *callNums) fields() []**jnum {
	return []**jnum{&v.Operand0, &v.Operand1, &v.Scale, &v.Bias, &v.Value, &v.Initial, &v.RangeStart}
}

// NumCall is a Call as JSON with non-finite numbers reads it: its numbers
// as jnum, unknown fields refused. Parse takes this slower path only for a
// program holding such a string (nonFinite); the bridge for its JSON calls.
type NumCall Call

// UnmarshalJSON reads the call.
func (n *NumCall) UnmarshalJSON(b []byte) error {
	c := (*Call)(n)
	v := callNums{plainCall: (*plainCall)(c)}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return err
	}
	for k, f := range v.fields() {
		if *f != nil {
			x := float64(**f)
			*c.nums()[k] = &x
		}
	}
	return nil
}

// Calls are the calls read as NumCall.
func Calls(ns []*NumCall) []*Call {
	out := make([]*Call, len(ns))
	for k, n := range ns {
		out[k] = (*Call)(n)
	}
	return out
}

// DecodeCalls reads a JSON array of calls, their numbers as NumCall reads
// them where the text holds such a string, else by the plain decoder;
// unknown fields refused.
func DecodeCalls(b []byte) ([]*Call, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if nonFinite(b) {
		var ns []*NumCall
		err := d.Decode(&ns)
		return Calls(ns), err
	}
	var cs []*Call
	err := d.Decode(&cs)
	return cs, err
}

// nonFinite tells whether JSON text holds a string jnum reads as a number
// (the slow path's cue; a name spelled so only costs the slow path).
func nonFinite(b []byte) bool {
	for _, s := range []string{`"inf"`, `"+inf"`, `"-inf"`, `"nan"`} {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// MarshalJSON writes a call, its numbers as jnum.
func (c *Call) MarshalJSON() ([]byte, error) {
	cp := *c
	v := callNums{plainCall: (*plainCall)(&cp)}
	for k, f := range cp.nums() {
		if *f != nil {
			x := jnum(**f)
			*v.fields()[k] = &x
			*f = nil
		}
	}
	return json.Marshal(&v)
}
