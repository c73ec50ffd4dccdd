package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"ndma/internal/suggest"
	"strings"
	"text/tabwriter"

	"ndma/isa"
)

// enumJSON is one enum of `ndma enums --json`.
type enumJSON struct {
	Name   string          `json:"name"`
	Prov   string          `json:"prov"`
	Values []enumValueJSON `json:"values"`
}

// enumValueJSON is one named value: its code, the generations that define
// it and the label of the source that gives it (OBSERVED, INFERRED, CARRIED).
type enumValueJSON struct {
	Code int      `json:"code"`
	Name string   `json:"name"`
	Prov string   `json:"prov"`
	Gens []string `json:"gens"`
	Note string   `json:"note"` // "" when the table gives none
}

// runEnums is `ndma enums [--json] [--gen G] [NAME]`: every enum of the ISA
// tables (isa.Enums) with each value's code, name, generations and
// provenance; NAME picks one enum, --gen the values a generation defines.
func runEnums(e *env, args []string) error {
	fs := newFlags(e, "enums", "[NAME]")
	asJSON := fs.Bool("json", false, "print JSON: [{name, prov, values: [{code, name, prov, gens, note}]}]")
	genFlag := fs.String("gen", "", "only the values this generation defines (name or version)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one enum NAME, got %d arguments", len(pos))
	}
	gen := isa.GenAny
	if *genFlag != "" {
		if gen, err = isa.ParseGen(*genFlag); err != nil {
			return usageError{err}
		}
	}
	enums := isa.Enums()
	if len(pos) == 1 {
		e, err := findEnum(enums, pos[0])
		if err != nil {
			return err
		}
		enums = []*isa.Enum{e}
	}
	values := func(en *isa.Enum) []isa.EnumValue {
		var out []isa.EnumValue
		for _, v := range en.Values {
			if gen == isa.GenAny || v.Gens.Has(gen) {
				out = append(out, v)
			}
		}
		return out
	}
	if *asJSON {
		out := make([]enumJSON, 0, len(enums))
		for _, en := range enums {
			j := enumJSON{Name: en.Name, Prov: en.Prov.String(), Values: []enumValueJSON{}}
			for _, v := range values(en) {
				j.Values = append(j.Values, enumValueJSON{Code: int(v.Value), Name: v.Name, Prov: v.Prov.String(), Gens: gensList(v.Gens), Note: v.Note})
			}
			out = append(out, j)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, en := range enums {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		vs := values(en)
		fmt.Fprintf(tw, "%s (%s, %d values)\n", en.Name, en.Prov, len(vs))
		for _, v := range vs {
			gens := "all"
			if v.Gens != isa.AllGens {
				gens = strings.ReplaceAll(v.Gens.String(), " ", ",")
			}
			fmt.Fprintf(tw, "  0x%02x\t%s\t%s\t%s\t%s\n", v.Value, v.Name, gens, v.Prov, v.Note)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(b.String()) { // a value without a note ends at its provenance
		if _, err := io.WriteString(e.stdout, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// findEnum resolves NAME case-insensitively, by the spec name (WAIT_MODE)
// or with the underscores left out (waitmode, WaitMode).
func findEnum(enums []*isa.Enum, name string) (*isa.Enum, error) {
	key := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, e := range enums {
		if strings.EqualFold(e.Name, name) {
			return e, nil
		}
	}
	for _, e := range enums {
		if key(e.Name) == key(name) {
			return e, nil
		}
	}
	names := make([]string, len(enums))
	for i, e := range enums {
		names[i] = e.Name
	}
	return nil, usageError{suggest.Unknown("enum", name, names)}
}

// gensList is a generation set as its versions: ["v2", "v3", …].
func gensList(s isa.GenSet) []string {
	out := []string{}
	for _, g := range isa.Gens() {
		if s.Has(g) {
			out = append(out, g.Version())
		}
	}
	return out
}
