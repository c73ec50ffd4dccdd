// Package cli implements the `ndma` command: data on stdout, one-line
// diagnostics on stderr; exit 0 on success, 1 on bad input, 2 on bad usage.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"ndma/internal/control"
	"ndma/ref"
	"os"
	"strconv"
	"strings"

	"ndma/internal/sched"
	"ndma/internal/suggest"
	"ndma/isa"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the input was bad (undecodable, unreadable)
	exitUsage = 2 // the command line was bad
)

// usageError marks an error as the caller's command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// troubleError is an error of a command whose status 1 says "they differ"
// (neff diff): status 2, as cmp and diff give trouble.
type troubleError struct{ err error }

func (e troubleError) Error() string { return e.err.Error() }
func (e troubleError) Unwrap() error { return e.err }

// env is what a command runs with. stdout is buffered (a failing command
// prints nothing); a command whose listing may be hundreds of megabytes
// streams it instead (stream).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	out            *bytes.Buffer   // the buffer behind stdout, while buffered
	real           io.Writer       // the process's stdout
	maxInput       int64           // --max-input: the most bytes a file argument may hold
	ctx            context.Context // cancels a run (an interrupt)
}

// DefaultMaxInput is the default --max-input: a program, NEFF or JSON file
// read whole may hold at most this many bytes (the largest sample NEFF is
// 1.5 MB, 256 MiB of words is four million; a mistaken /dev/zero stops
// here, not at the machine's memory — within a 2 GiB address space).
const DefaultMaxInput = 256 << 20

// stream writes what is buffered and sends the rest of stdout straight
// out: memory then follows the listing's current word, not its length.
func (e *env) stream() {
	if e.out != nil && e.real != nil {
		e.real.Write(e.out.Bytes())
		e.out, e.stdout = nil, e.real
	}
}

// keepsPartial are the commands whose output so far stays when they fail:
// a run's trace and schedule show where it stopped.
var keepsPartial = map[string]bool{"run": true, "neff": true}

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

func commands() []command {
	return []command{
		{"demo", "build the source documents' worked examples and prove they round-trip", runDemo},
		{"catalog", "list the opcodes × generations (--gen G, --json)", runCatalog},
		{"describe", "draw the 64-byte field map of an opcode (OPCODE|NAME, --json)", runDescribe},
		{"enums", "list the enums of the ISA tables: code, name, generations, provenance ([NAME], --json)", runEnums},
		{"asm", "assemble text into 64-byte words (FILE.s [-o FILE.bin], docs/asm.md)", runAsm},
		{"disasm", "print words as canonical text, or --json (FILE|-, --gen G, --list)", runDisasm},
		{"lower", "relocate, lower to DGE micro-ops and SDMA descriptors (--gen G, --var, --table, --backend, --json, --stats)", runLower},
		{"nki", "an NKI kernel's traced calls: nki run|lower PROGRAM.json (--in/--out NAME=FILE.npy, --trace; docs/nki.md)", runNKI},
		{"neff", "a Neuron executable: neff info|disasm|check|lower|lint|diff|report|run FILE (docs/neff.md)", runNEFF},
		{"cci", "assemble, list and run one COMPACT_CONTROL_INST block (--step, --reg, --sem, --max-steps)", runCCI},
		{"run", "execute words or streams on emulated memory (--exec sim|ref|both, --load, --dump, --reg, --sem, --trace, --stats, --timeline)", runRun},
		{"validate", "check every word against a generation (--gen G, --json, --all-gens, --strict)", runValidate},
	}
}

// Main runs ndma with args (without the program name) and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return MainContext(context.Background(), args, stdin, stdout, stderr)
}

// MainContext is Main whose runs stop when ctx is cancelled.
func MainContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) == 0 {
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		printVersion(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		// Buffer stdout so that a failing command prints nothing: no half-written results.
		var out bytes.Buffer
		e.stdout, e.out, e.real = &out, &out, stdout
		err := c.run(e, args[1:])
		if e.out == nil { // streamed: already written
			out.Reset()
		}
		var bad failed
		if errors.As(err, &bad) { // the command's output stands; it found problems
			stdout.Write(out.Bytes())
			fmt.Fprintf(stderr, "ndma %s: %s\n", c.name, bad.msg)
			return exitFail
		}
		if err == nil {
			if _, werr := stdout.Write(out.Bytes()); werr != nil {
				fmt.Fprintf(stderr, "ndma %s: writing output: %v\n", c.name, werr)
				return exitFail
			}
			return exitOK
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if keepsPartial[c.name] {
			stdout.Write(out.Bytes())
		}
		var diag diagnostics
		if errors.As(err, &diag) { // assembler diagnostics: one line each, file:line:col first
			fmt.Fprintln(stderr, diag.Error())
			return exitFail
		}
		msg := oneLine(err.Error())
		var dl *sched.Deadlock
		if errors.As(err, &dl) { // a line per blocked stream, indented under the first
			msg = strings.TrimSpace(err.Error())
		}
		fmt.Fprintf(stderr, "ndma %s: %s%s\n", c.name, msg, flagHint(err))
		var ue usageError
		var te troubleError
		if errors.As(err, &ue) || errors.As(err, &te) {
			return exitUsage
		}
		return exitFail
	}
	fmt.Fprintf(stderr, "ndma: unknown command %q (try `ndma help`)\n", args[0])
	return exitUsage
}

// flagHint names the flags that answer a library error (the library names
// its own terms, never a flag).
func flagHint(err error) string {
	switch {
	case errors.Is(err, control.ErrUnresolved):
		return " (give its variables' addresses: --var, --table or --vars)"
	case errors.Is(err, ref.ErrRawDescriptors):
		return " (run it with --exec sim)"
	}
	return ""
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ndma COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n`ndma COMMAND -h` lists a command's flags; `ndma --version` the release and commit.")
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }

// newFlags returns a flag set whose parse errors are usage errors and whose
// help goes to stderr.
func newFlags(e *env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet("ndma "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: ndma %s [flags] %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// cmdLine is a command's flag set with the --gen flag every command has.
type cmdLine struct {
	fs       *flag.FlagSet
	gen      *string
	maxInput *int64
}

func newCmdLine(e *env, name, args, genDefault, genHelp string) *cmdLine {
	fs := newFlags(e, name, args)
	fs.Int64Var(&e.maxInput, "max-input", DefaultMaxInput, "refuse a file argument (program, NEFF, --vars) larger than this many bytes")
	return &cmdLine{fs: fs, gen: fs.String("gen", genDefault, genHelp), maxInput: &e.maxInput}
}

// parse parses the flags, requires exactly npos positional arguments (wantPos
// says what they are) and resolves --gen.
func (c *cmdLine) parse(args []string, npos int, wantPos string) ([]string, isa.Gen, error) {
	pos, err := parse(c.fs, args)
	if err != nil {
		return nil, isa.GenAny, err
	}
	if *c.maxInput <= 0 {
		return nil, isa.GenAny, usagef("--max-input %d: want a positive byte count", *c.maxInput)
	}
	if len(pos) != npos {
		if npos == 0 {
			return nil, isa.GenAny, usagef("unexpected argument %q", pos[0])
		}
		return nil, isa.GenAny, usagef("%s", wantPos)
	}
	if *c.gen == "" {
		return pos, isa.GenAny, nil
	}
	g, err := isa.ParseGen(*c.gen)
	if err != nil {
		return nil, isa.GenAny, usageError{err}
	}
	return pos, g, nil
}

// parse parses flags, allowing them before and after the positional
// arguments. A flag of one value (not a repeatable list, not a switch)
// given twice is refused, not the last taken.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, list := f.Value.(*multi); list {
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		if _, done := f.Value.(*onceFlag); !done {
			f.Value = &onceFlag{Value: f.Value}
		}
	})
	var pos []string
	for {
		if err := quietParse(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.Usage()
				return nil, err
			}
			return nil, usageError{flagError(fs, err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if o, ok := f.Value.(*onceFlag); ok && len(o.given) > 1 && err == nil {
			err = usagef("--%s given %d times (%s): it takes one value", f.Name, len(o.given), strings.Join(o.given, ", "))
		}
	})
	return pos, err
}

// quietParse is fs.Parse without the flag package's own printing (its
// error, then the whole usage): the caller says the error once, on one line.
func quietParse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	return fs.Parse(args)
}

// flagError is a flag package error with what would help: the nearest flag
// names of an unknown flag, where to see the flags of a bad value.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		name = strings.TrimLeft(name, "-")
		if near := suggest.Nearest(name, names); len(near) > 0 {
			return fmt.Errorf("unknown flag --%s (did you mean --%s?)", name, strings.Join(near, " or --"))
		}
		return fmt.Errorf("unknown flag --%s (%s -h lists the flags)", name, fs.Name())
	}
	return fmt.Errorf("%s (%s -h lists the flags)", msg, fs.Name())
}

// onceFlag is a flag of one value, its every setting kept: parse refuses
// more than one.
type onceFlag struct {
	flag.Value
	given []string
}

// String is the value's; the flag package calls it on a zero onceFlag to
// learn the default (help), which has no value to ask.
func (o *onceFlag) String() string {
	if o == nil || o.Value == nil {
		return ""
	}
	return o.Value.String()
}

func (o *onceFlag) Set(s string) error {
	o.given = append(o.given, strconv.Quote(s))
	return o.Value.Set(s)
}

// readInput reads a file argument, "-" meaning stdin, refusing one larger
// than --max-input before holding more than the cap (a device or a pipe
// has no size to check first).
func readInput(e *env, path string) ([]byte, error) {
	limit := e.maxInput
	if limit <= 0 {
		limit = DefaultMaxInput
	}
	var r io.Reader = e.stdin
	name := path
	if path == "-" {
		name = "stdin"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, unwrapPathError(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
			return nil, fmt.Errorf("reading %s: %d bytes, more than --max-input %d", path, st.Size(), limit)
		}
		r = f
	}
	// in pieces, joined once at the end: a reader past the cap is refused
	// holding the cap, never twice it (a slice grown by doubling would)
	var pieces [][]byte
	total := int64(0)
	for {
		piece := make([]byte, min(1<<20, limit+1-total))
		n, err := io.ReadFull(r, piece)
		pieces, total = append(pieces, piece[:n]), total+int64(n)
		if total > limit {
			return nil, fmt.Errorf("reading %s: more than --max-input %d bytes", name, limit)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, unwrapPathError(err))
		}
	}
	b := make([]byte, 0, total)
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b, nil
}

// unwrapPathError drops os.PathError's repetition of the path.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// plural is noun for n of it: "1 transfer", "2 transfers".
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
