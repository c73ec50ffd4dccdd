package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"ndma/isa"
)

type catalogRow struct {
	Opcode  int               `json:"opcode"`
	Hex     string            `json:"hex"`
	Name    string            `json:"name"`
	Aliases []string          `json:"aliases"`
	Struct  string            `json:"struct"` // "": no layout table
	Decoded bool              `json:"decoded"`
	DGEKind *int              `json:"dge_kind"` // null: not a DGE kind
	DGEProv string            `json:"dge_kind_prov"`
	Gens    map[string]string `json:"gens"`
	Pseudo  bool              `json:"pseudo"`
	Control bool              `json:"control"`
	Prov    string            `json:"prov"`
	Note    string            `json:"note"`
	// Dispatch is the surface per generation (000 §4), omitted where no
	// document states it.
	Dispatch []dispatchRow `json:"dispatch"`
}

type dispatchRow struct {
	Gens   []string `json:"gens"`
	Path   string   `json:"path"`
	Detail string   `json:"detail"`
	Conf   string   `json:"confidence"`
}

// presence is "Y", "-" or, where no source states it, "?".
func presence(d *isa.OpDef, g isa.Gen) string { return d.Presence(g) }

// dispatchText is the table's dispatch column: "v2 pool-kernel; v3-v4+ seq+dge…".
func dispatchText(d *isa.OpDef) string {
	if len(d.Dispatch) == 0 {
		return "-"
	}
	var parts []string
	for _, x := range d.Dispatch {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", strings.ReplaceAll(x.Gens.String(), " ", ","), x.Path, x.Conf))
	}
	return strings.Join(parts, "; ")
}

// runCatalog is `ndma catalog`: the opcode catalog as a table or JSON.
func runCatalog(e *env, args []string) error {
	cl := newCmdLine(e, "catalog", "", "", "only opcodes present on this generation (name or version)")
	asJSON := cl.fs.Bool("json", false, "print JSON")
	_, gen, err := cl.parse(args, 0, "")
	if err != nil {
		return err
	}
	rows := catalogRows(gen)
	if *asJSON {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	return printCatalog(e.stdout, rows)
}

// catalogRows is the catalog's opcodes present on gen (every one for GenAny).
func catalogRows(gen isa.Gen) []catalogRow {
	rows := []catalogRow{}
	cat := isa.Catalog()
	for i := range cat {
		d := &cat[i]
		if gen != isa.GenAny && presence(d, gen) == "-" {
			continue
		}
		rows = append(rows, newCatalogRow(d))
	}
	return rows
}

// newCatalogRow is one opcode's row: its names, DGE kind, presence per generation and dispatch.
func newCatalogRow(d *isa.OpDef) catalogRow {
	r := catalogRow{Opcode: int(d.Opcode), Hex: fmt.Sprintf("0x%02x", uint8(d.Opcode)), Name: d.Name,
		Aliases: ints(d.Aliases), Struct: d.StructName(), Decoded: d.Decoded(), Gens: map[string]string{}, Dispatch: []dispatchRow{},
		Pseudo: d.Pseudo, Control: d.Control, Prov: d.Prov.String(), Note: d.Note}
	if d.DGEKind >= 0 {
		k := d.DGEKind
		r.DGEKind, r.DGEProv = &k, d.DGEProv.String()
	}
	for _, g := range isa.Gens() {
		r.Gens[g.String()] = presence(d, g)
	}
	for _, x := range d.Dispatch {
		dr := dispatchRow{Gens: []string{}, Path: x.Path.String(), Detail: x.Detail, Conf: x.Conf}
		for _, g := range isa.Gens() {
			if x.Gens.Has(g) {
				dr.Gens = append(dr.Gens, g.String())
			}
		}
		r.Dispatch = append(r.Dispatch, dr)
	}
	return r
}

// printCatalog writes the rows as the catalog's table.
func printCatalog(w io.Writer, rows []catalogRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "opcode\tname\tstruct\tDGE")
	for _, g := range isa.Gens() {
		fmt.Fprintf(tw, "\t%s", g.Version())
	}
	fmt.Fprintln(tw, "\tkind\tdispatch")
	for _, r := range rows {
		d := isa.Lookup(isa.Opcode(r.Opcode))
		st := r.Struct
		if !r.Decoded {
			st = "(known, not decoded)"
		}
		dge := "-"
		if r.DGEKind != nil {
			dge = fmt.Sprint(*r.DGEKind)
			if d.DGEProv == isa.Inferred {
				dge += " (INF)"
			}
		}
		name := r.Name
		if len(r.Aliases) > 0 {
			name += " / " + r.Aliases[0]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", r.Hex, name, st, dge)
		for _, g := range isa.Gens() {
			fmt.Fprintf(tw, "\t%s", r.Gens[g.String()])
		}
		fmt.Fprintf(tw, "\t%s\t%s\n", catalogKind(d), dispatchText(d))
	}
	return tw.Flush()
}

// catalogKind is the table's kind column: pseudo, control, dma (a DGE kind) or other.
func catalogKind(d *isa.OpDef) string {
	switch {
	case d.Pseudo:
		return "pseudo"
	case d.Control:
		return "control"
	case d.DGEKind < 0 && !d.EngineDMA:
		return "other"
	}
	return "dma"
}
