package check

import (
	"ndma/asm"
	"ndma/isa"
)

// Object holds an assembled object's words to the rules of its generation
// (docs/validate.md): every error is an asm.Error naming the source line of
// the word, at most asm.MaxErrors of them (nil: none). Warnings — pseudo
// words among them, which are what an assembler is for — are not errors.
// `ndma asm` and Python's ndma.asm refuse such an object.
func Object(name string, obj *asm.Object) (asm.ErrorList, error) {
	ps, err := Stream(obj.Gen, obj.Code)
	if err != nil {
		return nil, err
	}
	var list asm.ErrorList
	for _, p := range ps {
		if p.Severity != Error {
			continue
		}
		msg := p.Predicate + ": "
		if p.Field != "" {
			msg += p.Field + " = " + p.Value + ", "
		}
		msg += p.Want
		if obj.Gen != isa.GenAny {
			msg += " (on " + obj.Gen.String() + ")"
		}
		list = append(list, &asm.Error{File: name, Line: obj.Lines[p.Index], Col: 1, Msg: msg})
		if len(list) == asm.MaxErrors {
			break
		}
	}
	return list, nil
}
