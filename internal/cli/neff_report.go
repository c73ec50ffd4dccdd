package cli

import (
	"fmt"
	"io"

	"ndma/internal/report"
)

// runNEFFReport is `ndma neff report FILE -o report.html [--json]`: the
// one-page HTML report (package inspect/report), written as every output
// is — reserved before the work, staged, renamed into place at the end;
// --json prints the page's data instead.
func runNEFFReport(e *env, args []string) error {
	cl := newCmdLine(e, "neff report", "FILE", "", "generation (default: the kelf's target)")
	outPath := cl.fs.String("o", "", "the HTML file to write (required unless --json)")
	asJSON := cl.fs.Bool("json", false, "print the report's data as JSON (docs/json.md) instead of writing the page")
	var engineTimes multi
	cl.fs.Var(&engineTimes, "engine-time", engineTimeHelp)
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	times, err := parseEngineTimes(engineTimes)
	if err != nil {
		return err
	}
	if *outPath == "" && !*asJSON {
		return usagef("give -o FILE.html (or --json)")
	}
	var out staged
	defer out.abort()
	if *outPath != "" {
		if _, err := out.reserve(*outPath); err != nil {
			return fmt.Errorf("-o: %w", err)
		}
	}
	d, err := report.BuildWith(gen, f, sgs, path, times)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if *outPath != "" {
		if err := out.writeWith(0, func(w io.Writer) error { return report.Write(w, d) }); err != nil {
			return fmt.Errorf("-o %s: %w", *outPath, err)
		}
		if err := out.commit(); err != nil {
			return fmt.Errorf("-o %s: %w", *outPath, err)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, d)
	}
	n := 0
	for _, s := range d.Schedule {
		n += len(s.Transfers)
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d streams, %d transfers, %d waits, %d findings\n", *outPath, len(d.Streams), n, len(d.Waits), len(d.Lint.Findings))
	return nil
}
