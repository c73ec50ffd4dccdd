package isa

import (
	"fmt"
	"ndma/internal/suggest"
	"strings"
)

// Enum is a named set of values (field-tables §5). Values without a name are
// legal to decode and print as numbers.
type Enum struct {
	Name   string // spec name, e.g. "DTYPE"
	Values []EnumValue
	Prov   Prov

	byValue map[uint64]int
	byName  map[string]int
}

// EnumValue is one named value.
type EnumValue struct {
	Value uint64
	Name  string
	Gens  GenSet // generations that define it; AllGens when not stated
	Prov  Prov
	Note  string
}

// NewEnum declares an enum (for tables outside this package).
func NewEnum(name string, prov Prov, vals ...EnumValue) *Enum { return newEnum(name, prov, vals...) }

func newEnum(name string, prov Prov, vals ...EnumValue) *Enum {
	e := &Enum{Name: name, Values: vals, Prov: prov, byValue: map[uint64]int{}, byName: map[string]int{}}
	for i := range e.Values {
		v := &e.Values[i]
		if v.Gens == 0 {
			v.Gens = AllGens
		}
		e.byValue[v.Value] = i
		e.byName[strings.ToUpper(v.Name)] = i
		e.byName[strings.ToLower(v.Name)] = i
	}
	return e
}

// ev is a terse EnumValue constructor for the tables below.
func ev(v uint64, name string, p Prov) EnumValue { return EnumValue{Value: v, Name: name, Prov: p} }

func (v EnumValue) gens(s GenSet) EnumValue { v.Gens = s; return v }
func (v EnumValue) note(s string) EnumValue { v.Note = s; return v }

// Lookup returns the named value v, if it has a name.
func (e *Enum) Lookup(v uint64) (EnumValue, bool) {
	i, ok := e.byValue[v]
	if !ok {
		return EnumValue{}, false
	}
	return e.Values[i], true
}

// NameOf is the value's spec name, or "" when it has none.
func (e *Enum) NameOf(v uint64) string {
	if i, ok := e.byValue[v]; ok {
		return e.Values[i].Name
	}
	return ""
}

// NameFor is the value's spec name on generation g, or "" when the value has
// no name there (a DTYPE code the generation lacks prints as a number);
// GenAny accepts a name from any generation.
func (e *Enum) NameFor(v uint64, g Gen) string {
	if i, ok := e.byValue[v]; ok && e.Values[i].Gens.Has(g) {
		return e.Values[i].Name
	}
	return ""
}

// ParseFor resolves a spec name (case-insensitively) that generation g defines.
func (e *Enum) ParseFor(name string, g Gen) (uint64, error) {
	i, ok := e.byName[strings.ToUpper(name)]
	if !ok {
		return 0, suggest.Unknown(e.Name+" value", name, e.Names())
	}
	if v := e.Values[i]; !v.Gens.Has(g) {
		return 0, fmt.Errorf("%s %s is not defined on %s (only %s)", e.Name, v.Name, g, v.Gens)
	}
	return e.Values[i].Value, nil
}

// Parse resolves a spec name (case-insensitively).
func (e *Enum) Parse(name string) (uint64, bool) {
	i, ok := e.byName[name]
	if !ok {
		i, ok = e.byName[strings.ToUpper(name)]
	}
	if !ok {
		return 0, false
	}
	return e.Values[i].Value, true
}

// Names lists the value names in table order (for error messages).
func (e *Enum) Names() []string {
	out := make([]string, len(e.Values))
	for i, v := range e.Values {
		out[i] = v.Name
	}
	return out
}

// Format prints a value as NAME or, unnamed, as a hex number.
func (e *Enum) Format(v uint64) string {
	if n := e.NameOf(v); n != "" {
		return n
	}
	return fmt.Sprintf("%#x", v)
}
