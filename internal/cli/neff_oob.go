package cli

import (
	"errors"
	"fmt"
	"io"
	"ndma/internal/suggest"
	"strings"

	"ndma/device"
	"ndma/inspect"
	"ndma/internal/array"
	"ndma/isa"
	"ndma/neff"
)

// checkJSON is `neff check --json` (docs/json.md).
type checkJSON struct {
	Target    string             `json:"target"`
	Subgraphs int                `json:"subgraphs"`
	Words     int                `json:"words"`
	Problems  []problemJSON      `json:"problems"`
	Preflight *inspect.OOBReport `json:"preflight"` // null without --in
}

// problemJSON is one check problem, located.
type problemJSON struct {
	Subgraph string `json:"subgraph"`
	Engine   string `json:"engine"`
	Offset   int    `json:"offset"` // -1: not a word
	Message  string `json:"message"`
	Text     string `json:"text"` // as the text output prints it
}

// preflightNEFF is check's OOB pre-flight (inspect.Preflight) with the
// --in arrays, streamed into the device as `neff run --in` does.
func preflightNEFF(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, ins multi) (*inspect.OOBReport, error) {
	in := map[string]device.Input{}
	files := map[string]string{}
	for _, s := range ins {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, usagef("--in %q: want NAME=FILE.npy", s)
		}
		if _, twice := in[k]; twice {
			return nil, usagef("--in %q: %s is given twice", s, k)
		}
		known := false
		for _, sg := range sgs {
			if _, ok := sg.Var(k); ok {
				known = true
			}
		}
		if !known {
			return nil, usagef("--in %q: %w", s, suggest.Unknown("input", k, neff.InputNames(sgs)))
		}
		npy, err := array.Open(v)
		if err != nil {
			return nil, fmt.Errorf("--in %s=%s: %w", k, v, unwrapPathError(err))
		}
		defer npy.Close()
		in[k] = device.Input{Descr: npy.Descr, Shape: npy.Shape, Size: npy.Size, ReadInto: npy.ReadInto}
		files[k] = v
	}
	r, err := inspect.Preflight(gen, f, sgs, in)
	var ie *device.InputError
	if errors.As(err, &ie) {
		return nil, fmt.Errorf("--in %s=%s: %w", ie.Name, files[ie.Name], ie.Err)
	}
	return r, err
}

// printPreflight is the pre-flight as text: a line per indirect word, its
// bad lanes, what error and skip would do, the mixed groups.
func printPreflight(w io.Writer, r *inspect.OOBReport) {
	bad := 0
	for _, x := range r.Words {
		fmt.Fprintf(w, "preflight %s %s %#x %s: %d of %d lanes out of bounds (mode %s)\n", x.Subgraph, x.Engine, x.Offset, x.Mnemonic, x.Invalid, x.Lanes, x.Mode)
		if x.Invalid == 0 {
			continue
		}
		bad++
		for _, l := range x.BadLanes {
			fmt.Fprintf(w, "  lane %d %s index %d: %s\n", l.Lane, l.Leg, l.Index, l.Reason)
		}
		if more := x.Invalid - len(x.BadLanes); more > 0 {
			fmt.Fprintf(w, "  … %d more lanes\n", more)
		}
		fmt.Fprintf(w, "  with errors on (error): %s\n  with errors off (skip): %s\n", x.OnError, x.OnSkip)
		for _, g := range x.Mixed {
			fmt.Fprintf(w, "  mixed group: lanes %d..%d hold %d valid and %d invalid indices\n", g.First, g.Last, g.Valid, g.Invalid)
		}
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "preflight: the run stopped: %s\n", r.Stopped)
	}
	fmt.Fprintf(w, "preflight: %d indirect words, %d with out-of-bounds lanes (inputs: %s)\n", len(r.Words), bad, strings.Join(r.Inputs, ", "))
}
