package pybridge

import (
	"errors"
	"io/fs"

	"ndma/asm"
	"ndma/check"
	"ndma/device"
	"ndma/internal/control"
	"ndma/internal/nkic"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/kernel"
	"ndma/mem"
)

// ValidationError is words that break their generation's rules: every
// problem (check.Problem) or, for assembled text, every diagnostic.
type ValidationError struct {
	Problems    []check.Problem
	Diagnostics asm.ErrorList
}

func (e *ValidationError) Error() string {
	if len(e.Diagnostics) > 0 {
		return e.Diagnostics.Error()
	}
	s := ""
	for i, p := range e.Problems {
		if i > 0 {
			s += "\n"
		}
		s += p.String()
	}
	return s
}

// Classify is an error as the Python side raises it: a kind (one per
// exception class of python/ndma/_errors.py), the message and the fields
// that locate it.
func Classify(err error) map[string]any {
	out := map[string]any{"kind": "error", "message": err.Error()}
	if p, ok := errAs[*PanicError](err); ok {
		out["kind"], out["stack"] = "panic", p.Stack
		return out
	}
	if v, ok := errAs[*ValidationError](err); ok {
		out["kind"] = "validation"
		out["problems"] = problemsJSON(v.Problems)
		var diags []map[string]any
		for _, d := range v.Diagnostics {
			diags = append(diags, map[string]any{"file": d.File, "line": d.Line, "col": d.Col, "message": d.Msg})
		}
		out["diagnostics"] = diags
		return out
	}
	if l, ok := errAs[asm.ErrorList](err); ok {
		var diags []map[string]any
		for _, d := range l {
			diags = append(diags, map[string]any{"file": d.File, "line": d.Line, "col": d.Col, "message": d.Msg})
		}
		out["kind"], out["diagnostics"] = "syntax", diags
		return out
	}
	if o, ok := errAs[*nkic.OOBError](err); ok { // ndma.nki: NKI's legacy wording, located by the call
		out["kind"], out["lane"], out["rule"], out["mnemonic"] = "oob", o.Lane, "", ""
		out["index"], out["bound"], out["axis"] = o.Index, o.Bound, o.Axis
		return out
	}
	if errors.Is(err, nkic.ErrIllegal) || errors.Is(err, nkic.ErrProgram) {
		out["kind"] = "nki"
		if ce, ok := errAs[*nkic.CallError](err); ok {
			out["call"], out["file"], out["line"] = ce.Call.Op, ce.Call.File, ce.Call.Line
		}
		return out
	}
	if d, ok := errAs[*sched.Deadlock](err); ok {
		out["kind"], out["blocked"] = "deadlock", d.Blocked
		return out
	}
	if errors.Is(err, device.ErrDiffer) {
		out["kind"] = "divergence"
		return out
	}
	if f, ok := errAs[*control.Fault](err); ok && errors.Is(err, isa.ErrBounds) {
		out["kind"], out["lane"], out["rule"], out["mnemonic"] = "oob", f.Lane, f.Rule, f.Mnemonic
		if m, ok := errAs[*mem.Fault](err); ok {
			out["address"], out["where"] = m.Addr, m.Where
		}
		return out
	}
	if m, ok := errAs[*mem.Fault](err); ok {
		out["kind"], out["lane"], out["address"], out["where"] = "oob", -1, m.Addr, m.Where
		if f, ok := errAs[*control.Fault](err); ok {
			out["lane"], out["rule"], out["mnemonic"] = f.Lane, f.Rule, f.Mnemonic
		}
		return out
	}
	if a, ok := errAs[*ArgError](err); ok {
		out["kind"], out["name"] = "input", a.Name
		return out
	}
	if ie, ok := errAs[*device.InputError](err); ok {
		out["kind"], out["name"] = "input", ie.Name
		return out
	}
	if errors.Is(err, kernel.ErrInput) {
		out["kind"] = "input"
		return out
	}
	if errors.Is(err, fs.ErrNotExist) {
		out["kind"] = "notfound"
	}
	return out
}

// problemsJSON are check problems with every field present.
func problemsJSON(ps []check.Problem) []map[string]any {
	out := make([]map[string]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, map[string]any{"index": p.Index, "offset": p.Offset, "mnemonic": p.Mnemonic,
			"predicate": p.Predicate, "prov": p.Prov, "field": p.Field, "value": p.Value, "want": p.Want,
			"severity": p.Severity.String(), "text": p.String()})
	}
	return out
}
