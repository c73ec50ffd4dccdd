package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"ndma/asm"
	"ndma/check"
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
	obj, err := asm.Assemble(name, src, asm.Options{Gen: gen, Partial: true})
	if err != nil {
		var list asm.ErrorList
		if errors.As(err, &list) {
			// the words that did assemble are held to their rules too: a
			// syntax error does not hide an illegal word (issue 34)
			if obj != nil && !*noValidate {
				var more diagnostics
				if errors.As(validateObject(name, obj), &more) {
					list = mergeDiagnostics(list, more.list)
				}
			}
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

// mergeDiagnostics is a and b in source order (line, then column), at most
// asm.MaxErrors of them.
func mergeDiagnostics(a, b asm.ErrorList) asm.ErrorList {
	out := make(asm.ErrorList, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out[:min(len(out), asm.MaxErrors)]
}

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
// symlink is written through (its target is replaced, the link stays); an
// existing file no one may write (no write bit, or not writable by us) is
// refused, as a shell's redirection would be; a character device or FIFO
// is never replaced: it is opened once, when reserved (a FIFO waits for its
// reader there, as a redirection does), and written once, at commit, before
// the files are renamed (a failed write leaves them as they were). It is
// closed unwritten when the command fails, but what it was given cannot be
// taken back should a rename then fail. Any other non-regular file (a
// directory, socket, block device) is refused. Files get 0666 less the umask.
type staged struct {
	tmps, paths []string   // a direct output has tmp ""
	direct      [][]byte   // its bytes, written at commit
	files       []*os.File // a direct output's file, open from reserve to commit
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
			if err := writable(path, target, m); err != nil {
				return 0, err
			}
		case m&os.ModeCharDevice != 0 || m&os.ModeNamedPipe != 0: // opened now, written once at commit
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(err))
			}
			s.tmps, s.paths, s.direct, s.files = append(s.tmps, ""), append(s.paths, target), append(s.direct, nil), append(s.files, f)
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
	s.tmps, s.paths, s.direct, s.files = append(s.tmps, tmp.Name()), append(s.paths, target), append(s.direct, nil), append(s.files, nil)
	if cerr != nil {
		return 0, fmt.Errorf("writing %s: %w", path, unwrapPathError(cerr))
	}
	return len(s.tmps) - 1, nil
}

// writable refuses the existing regular file target (path, or what the
// symlink path names) when it is write-protected: no write bit at all (even
// for root, who may write anything), or not openable for writing by us.
// Opening without O_TRUNC changes nothing.
func writable(path, target string, m os.FileMode) error {
	if m.Perm()&0o222 == 0 {
		return fmt.Errorf("writing %s: the file is write-protected (mode %v): ndma does not replace it (chmod u+w it, or remove it)", path, m.Perm())
	}
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w: ndma does not replace a file it may not write", path, unwrapPathError(err))
	}
	return f.Close()
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

// commit writes the direct outputs, each once into the file opened at
// reserve, then renames every staged file to its target: a device or FIFO
// that fails (/dev/full, a reader gone) leaves every file as it was.
func (s *staged) commit() error {
	for i, f := range s.files {
		if f == nil {
			continue
		}
		_, err := f.Write(s.direct[i])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		s.files[i] = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
		}
	}
	for i, tmp := range s.tmps {
		if tmp == "" {
			continue
		}
		if err := replace(tmp, s.paths[i]); err != nil {
			return fmt.Errorf("writing %s: %w", s.paths[i], unwrapPathError(err))
		}
		s.tmps[i] = ""
	}
	s.tmps, s.paths, s.direct, s.files = nil, nil, nil, nil
	return nil
}

// adopt makes t's outputs s's, committed with them (t is left empty).
func (s *staged) adopt(t *staged) {
	s.tmps, s.paths = append(s.tmps, t.tmps...), append(s.paths, t.paths...)
	s.direct, s.files = append(s.direct, t.direct...), append(s.files, t.files...)
	t.tmps, t.paths, t.direct, t.files = nil, nil, nil, nil
}

// abort removes what was staged and not committed, and closes the direct
// outputs unwritten.
func (s *staged) abort() {
	for _, tmp := range s.tmps {
		if tmp != "" {
			os.Remove(tmp)
		}
	}
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
	s.tmps, s.paths, s.direct, s.files = nil, nil, nil, nil
}

// validateObject is check.Object as the CLI reports it: the errors as
// diagnostics, one per line.
func validateObject(name string, obj *asm.Object) error {
	list, err := check.Object(name, obj)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		return diagnostics{list}
	}
	return nil
}
