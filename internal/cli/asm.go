package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ndma/asm"
	"ndma/check"
	"ndma/isa"
)

func runAsm(e *env, args []string) error {
	cl := newCmdLine(e, "asm", "FILE.s|-", "", "default generation (the file's .gen wins)")
	out := cl.fs.String("o", "", "output file (default: FILE with .bin for .s; - for stdout)")
	noValidate := cl.fs.Bool("no-validate", false, "write words that break the generation's rules")
	pos, gen, err := cl.parse(args, 1, "want one FILE.s (or - for stdin)")
	if err != nil {
		return err
	}
	src, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	name := pos[0]
	if name == "-" {
		name = "stdin"
	}
	if !isText(pos[0], src) {
		return fmt.Errorf("%s: binary words, not assembly text (a .bin name, or NUL bytes / not UTF-8): `ndma disasm` reads words", name)
	}
	obj, err := asm.Assemble(name, src, asm.Options{Gen: gen})
	if err != nil {
		var list asm.ErrorList
		if errors.As(err, &list) {
			return diagnostics{list}
		}
		return err
	}
	if !*noValidate {
		if err := validateObject(name, obj); err != nil {
			return err
		}
	}
	dest := *out
	if dest == "" {
		if pos[0] == "-" {
			return usagef("reading stdin: give -o FILE (or -o - for stdout)")
		}
		dest = strings.TrimSuffix(pos[0], filepath.Ext(pos[0])) + ".bin"
	}
	if dest == "-" {
		_, err := e.stdout.Write(obj.Code)
		return err
	}
	return writeFileAtomic(dest, obj.Code)
}

// diagnostics are the assembler's errors: printed as they are, one per line,
// each already naming file:line:col.
type diagnostics struct{ list asm.ErrorList }

func (d diagnostics) Error() string { return d.list.Error() }

// writeFileAtomic writes via a temporary file in the same directory, so a
// failed run never leaves a half-written output.
func writeFileAtomic(path string, b []byte) error {
	var s staged
	defer s.abort()
	if err := s.add(path, b); err != nil {
		return err
	}
	return s.commit()
}

// staged are output files written beside their targets and renamed only
// when all of them are written: a command's outputs appear all or none. A
// symlink is written through (its target is replaced, the link stays); a
// device or FIFO is written directly, never replaced; any other non-regular
// file is refused. Files get 0666 less the umask.
type staged struct {
	tmps, paths []string // a direct output has tmp ""
	direct      [][]byte // its bytes, written at commit
}

// reserve prepares path's output now, so that one that cannot be written
// fails before the work that makes it; write fills it later.
func (s *staged) reserve(path string) (int, error) {
	target := path
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSymlink != 0 {
			if target, err = filepath.EvalSymlinks(path); err != nil {
				return 0, fmt.Errorf("writing %s: a symlink to nothing: %w", path, unwrapPathError(err))
			}
			st, err = os.Stat(target)
			if err != nil {
				return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(err))
			}
		}
		switch m := st.Mode(); {
		case m.IsRegular():
		case m&(os.ModeDevice|os.ModeCharDevice|os.ModeNamedPipe) != 0: // written as it is, at commit
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(err))
			}
			f.Close()
			s.tmps, s.paths, s.direct = append(s.tmps, ""), append(s.paths, target), append(s.direct, nil)
			return len(s.tmps) - 1, nil
		default:
			return 0, fmt.Errorf("writing %s: %s, not a regular file: ndma replaces only regular files", path, kindOf(m))
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), ".ndma-*")
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(err))
	}
	cerr := tmp.Chmod(0o666 &^ umask())
	if err := tmp.Close(); cerr == nil {
		cerr = err
	}
	s.tmps, s.paths, s.direct = append(s.tmps, tmp.Name()), append(s.paths, target), append(s.direct, nil)
	if cerr != nil {
		return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(cerr))
	}
	return len(s.tmps) - 1, nil
}

// kindOf names a file mode's type for a message.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (" + m.Type().String() + ")"
}

// temp is reserved output i's temporary file ("" for a direct one).
func (s *staged) temp(i int) string { return s.tmps[i] }

// write fills reserved output i with b.
func (s *staged) write(i int, b []byte) error {
	if s.tmps[i] == "" {
		s.direct[i] = b
		return nil
	}
	return s.writeWith(i, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeWith fills reserved output i with what fill writes, straight into
// its temporary file (a large array is not copied into a buffer first).
func (s *staged) writeWith(i int, fill func(w io.Writer) error) error {
	if s.tmps[i] == "" { // a device or FIFO: written at commit
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			return err
		}
		s.direct[i] = b.Bytes()
		return nil
	}
	// The temporary file is ours and empty: no O_TRUNC, which on ext4
	// would flush the whole file to disk at close (auto_da_alloc; issue 17).
	f, err := os.OpenFile(s.tmps[i], os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
	}
	w := &outFile{bufio.NewWriterSize(f, 1<<20), f}
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
	}
	return nil
}

// outFile is what writeWith's fill writes to: a buffer over the temporary
// file, the file at hand for a writer that copies into it in the kernel
// (dumpWriter).
type outFile struct {
	*bufio.Writer
	f *os.File
}

// add writes b to a temporary file in path's directory.
func (s *staged) add(path string, b []byte) error {
	i, err := s.reserve(path)
	if err != nil {
		return err
	}
	return s.write(i, b)
}

// commit renames every staged file to its target, then writes the direct ones.
func (s *staged) commit() error {
	for i, tmp := range s.tmps {
		if tmp == "" {
			continue
		}
		if err := replace(tmp, s.paths[i]); err != nil {
			return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
		}
		s.tmps[i] = ""
	}
	for i, b := range s.direct {
		if b == nil {
			continue
		}
		f, err := os.OpenFile(s.paths[i], os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(b)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
		}
	}
	s.tmps, s.paths, s.direct = nil, nil, nil
	return nil
}

// abort removes what was staged and not committed.
func (s *staged) abort() {
	for _, tmp := range s.tmps {
		if tmp != "" {
			os.Remove(tmp)
		}
	}
	s.tmps, s.paths, s.direct = nil, nil, nil
}

// validateObject holds the assembled words to the rules of the file's
// generation (docs/validate.md): every error is a diagnostic naming the
// source line; pseudo words are what an assembler is for, so their warning
// is not repeated.
func validateObject(name string, obj *asm.Object) error {
	ps, err := check.Stream(obj.Gen, obj.Code)
	if err != nil {
		return err
	}
	var list asm.ErrorList
	for _, p := range ps {
		if p.Severity != check.Error {
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
	if len(list) > 0 {
		return diagnostics{list}
	}
	return nil
}
