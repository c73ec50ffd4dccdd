package isa

import (
	"fmt"
	"slices"
	"strings"

	"ndma/internal/suggest"
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

// genNames are the spec's names, the NeuronCore versions and the AWS instance
// families each is in (docs/neff.md §4.2: sunda/v2 → Trn1/Inf2, cayman/v3 →
// Trn2, mariana/v4 → Trn3; no instance is stated for v4+ and v5).
var genNames = [...]struct {
	name, version string
	instances     []string
}{
	GenAny:      {"ANY", "any", nil},
	Sunda:       {"SUNDA", "v2", []string{"trn1", "inf2"}},
	Cayman:      {"CAYMAN", "v3", []string{"trn2"}},
	Mariana:     {"MARIANA", "v4", []string{"trn3"}},
	MarianaPlus: {"MARIANA_PLUS", "v4+", nil},
	Maverick:    {"MAVERICK", "v5", nil},
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

// Instances are the AWS instance families of the generation ("trn1", "inf2"
// for SUNDA), none where the sources name none.
func (g Gen) Instances() []string {
	if int(g) < len(genNames) {
		return genNames[g].instances
	}
	return nil
}

// Label is the name with its version and instance families, e.g.
// "CAYMAN v3 (trn2)": how help and messages name a generation.
func (g Gen) Label() string {
	s := g.String() + " " + g.Version()
	if in := g.Instances(); len(in) > 0 {
		s += " (" + strings.Join(in, "/") + ")"
	}
	return s
}

// GenNames lists every spelling ParseGen accepts in its canonical form, by
// generation: name, version, instance families.
func GenNames() []string {
	var out []string
	for _, g := range allGens {
		out = append(out, strings.ToLower(g.String()), g.Version())
		out = append(out, g.Instances()...)
	}
	return out
}

// ParseGen accepts a generation by name, version or instance family,
// case-insensitively: "cayman", "CAYMAN", "v3", "nc-v3", "trn2", "trn1",
// "inf2", "mariana_plus", "mariana+", "v4+".
func ParseGen(s string) (Gen, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "nc-")
	t = strings.TrimPrefix(t, "nc")
	for _, g := range allGens {
		if t == strings.ToLower(g.String()) || t == g.Version() || slices.Contains(g.Instances(), t) {
			return g, nil
		}
	}
	switch t {
	case "mariana+", "marianaplus", "mariana-plus", "v4plus":
		return MarianaPlus, nil
	}
	return GenAny, suggest.Unknown("generation", s, GenNames())
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
