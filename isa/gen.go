package isa

import (
	"fmt"
	"strings"
)

// Gen is a NeuronCore hardware generation (field-tables §0).
type Gen uint8

// The generations. GenAny means "not stated": decoding does not depend on it.
const (
	GenAny Gen = iota
	Sunda
	Cayman
	Mariana
	MarianaPlus
	Maverick
)

// allGens lists the concrete generations in order.
var allGens = []Gen{Sunda, Cayman, Mariana, MarianaPlus, Maverick}

var genNames = [...]struct{ name, version string }{
	GenAny:      {"ANY", "any"},
	Sunda:       {"SUNDA", "v2"},
	Cayman:      {"CAYMAN", "v3"},
	Mariana:     {"MARIANA", "v4"},
	MarianaPlus: {"MARIANA_PLUS", "v4+"},
	Maverick:    {"MAVERICK", "v5"},
}

// String is the spec name, e.g. "CAYMAN".
func (g Gen) String() string {
	if int(g) < len(genNames) {
		return genNames[g].name
	}
	return fmt.Sprintf("Gen(%d)", uint8(g))
}

// Version is the NeuronCore version, e.g. "v3".
func (g Gen) Version() string {
	if int(g) < len(genNames) {
		return genNames[g].version
	}
	return "?"
}

// ParseGen accepts a generation by name or version, case-insensitively:
// "cayman", "CAYMAN", "v3", "nc-v3", "mariana_plus", "mariana+", "v4+".
func ParseGen(s string) (Gen, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "nc-")
	t = strings.TrimPrefix(t, "nc")
	for _, g := range allGens {
		if t == strings.ToLower(g.String()) || t == g.Version() {
			return g, nil
		}
	}
	switch t {
	case "mariana+", "marianaplus", "mariana-plus", "v4plus":
		return MarianaPlus, nil
	}
	return GenAny, fmt.Errorf("unknown generation %q (want one of sunda/v2, cayman/v3, mariana/v4, mariana_plus/v4+, maverick/v5)", s)
}

// GenSet is a set of generations.
type GenSet uint8

// The sets the spec uses.
const (
	AllGens   GenSet = 1<<Sunda | 1<<Cayman | 1<<Mariana | 1<<MarianaPlus | 1<<Maverick
	FromV3    GenSet = AllGens &^ (1 << Sunda)
	FromV4    GenSet = FromV3 &^ (1 << Cayman)
	OnlyV5    GenSet = 1 << Maverick
	NoGens    GenSet = 0
	v2ToV4    GenSet = AllGens &^ OnlyV5
	cayMarOnl GenSet = 1<<Cayman | 1<<Mariana
)

// Has reports whether g is in the set. GenAny is in every non-empty set.
func (s GenSet) Has(g Gen) bool {
	if g == GenAny {
		return s != 0
	}
	return s&(1<<g) != 0
}

// String lists the versions, e.g. "v3 v4 v4+ v5".
func (s GenSet) String() string {
	var parts []string
	for _, g := range allGens {
		if s.Has(g) {
			parts = append(parts, g.Version())
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
