package asm

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"ndma/internal/suggest"
	"ndma/isa"
)

// Short spellings of enum values (docs/asm.md "Short enum spellings"). The
// spec names are always accepted; these are extra, and disassembly prints the
// spec name.

var dtypeShort = map[string]string{
	"U8": "UINT8", "I8": "INT8", "U16": "UINT16", "I16": "INT16", "U32": "UINT32", "I32": "INT32",
	"U64": "UINT64", "I64": "INT64", "BF16": "BFLOAT16", "F16": "FP16", "F32": "FP32",
	"FP8_E3M4": "FP8_EXP3", "FP8_E4M3": "FP8_EXP4", "FP8_E5M2": "FP8_EXP5", "FP8_E2M5": "FP8_EXP2",
	"FP4": "FP4_EXP2", "FP4_E2M1": "FP4_EXP2", "I4": "INT4",
}

var aliasTables sync.Map // *isa.Enum → map[string]uint64

func aliases(e *isa.Enum) map[string]uint64 {
	if m, ok := aliasTables.Load(e); ok {
		return m.(map[string]uint64)
	}
	m := map[string]uint64{}
	add := func(short string, v uint64) {
		if _, taken := m[short]; !taken {
			m[short] = v
			m[strings.ToLower(short)] = v
		}
	}
	for _, v := range e.Values {
		add(v.Name, v.Value)
	}
	for _, v := range e.Values {
		switch e {
		case isa.WaitMode():
			if s, ok := strings.CutPrefix(v.Name, "WAIT_FOR_SEM_"); ok {
				add(s, v.Value)
				add("WAIT_"+s, v.Value)
			} else if s, ok := strings.CutPrefix(v.Name, "WAIT_FOR_"); ok {
				add(s, v.Value)
				add("WAIT_"+s, v.Value)
			}
		case isa.UpdateMode():
			if s, ok := strings.CutPrefix(v.Name, "SEM_"); ok {
				add(s, v.Value)
			}
		}
	}
	if e == isa.DMAAddrMode() {
		for alias, v := range isa.DMAAddrModeAliases() {
			add(alias, v)
		}
	}
	if e == isa.DType() {
		for short, name := range dtypeShort {
			if v, ok := e.Parse(name); ok {
				add(short, v)
			}
		}
	}
	aliasTables.Store(e, m)
	return m
}

// enumValue resolves a name or spelling of e that generation g defines.
func enumValue(e *isa.Enum, s string, g isa.Gen) (uint64, error) {
	return enumValueAlso(e, s, g, nil)
}

// enumValueAlso is enumValue with more spellings (lower-case keys) taken
// and listed beside the assembler's own.
func enumValueAlso(e *isa.Enum, s string, g isa.Gen, more map[string]uint64) (uint64, error) {
	m := aliases(e)
	v, ok := m[s]
	if !ok {
		v, ok = m[strings.ToUpper(s)]
	}
	if !ok {
		v, ok = more[strings.ToLower(s)]
	}
	if !ok {
		return 0, unknownValue(e, s, more)
	}
	if n := e.NameFor(v, g); n == "" {
		ev, _ := e.Lookup(v)
		return 0, fmt.Errorf("%s %s is not defined on %s (only %s)", e.Name, ev.Name, g, ev.Gens)
	}
	return v, nil
}

// unknownValue is the error for a name e does not have: the nearest
// spellings, and every value with its spellings ("FP32|f32|float32").
func unknownValue(e *isa.Enum, s string, more map[string]uint64) error {
	m := maps.Clone(aliases(e))
	for name, v := range more {
		if _, taken := m[name]; !taken {
			m[name] = v
		}
	}
	byValue := map[uint64][]string{}
	var names []string
	for name, v := range m {
		if name == strings.ToLower(name) && m[strings.ToUpper(name)] == v && name != strings.ToUpper(name) {
			continue // the lower-case twin of an upper-case spelling
		}
		byValue[v] = append(byValue[v], name)
		names = append(names, name)
	}
	sort.Strings(names)
	var list []string
	for _, ev := range e.Values {
		sp := byValue[ev.Value]
		sort.Slice(sp, func(i, j int) bool {
			if (sp[i] == ev.Name) != (sp[j] == ev.Name) {
				return sp[i] == ev.Name // the spec name first
			}
			return len(sp[i]) < len(sp[j]) || len(sp[i]) == len(sp[j]) && sp[i] < sp[j]
		})
		if len(sp) > 0 {
			list = append(list, strings.Join(sp, "|"))
		}
	}
	return suggest.UnknownAmong(e.Name+" value", s, list, names)
}

// EnumValue resolves a spec name or short spelling of e (docs/asm.md) that
// generation g defines — for command-line flags that take the same names.
func EnumValue(e *isa.Enum, s string, g isa.Gen) (uint64, error) { return enumValue(e, s, g) }

// EnumValueAlso is EnumValue taking more spellings (lower-case name →
// value): a flag's DTYPE also as NumPy and a NEFF spell it ("float32",
// package dtype's names), which asm text does not take.
func EnumValueAlso(e *isa.Enum, s string, g isa.Gen, more map[string]uint64) (uint64, error) {
	return enumValueAlso(e, s, g, more)
}
