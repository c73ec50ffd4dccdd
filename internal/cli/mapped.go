package cli

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"ndma/internal/array"
)

// mappings are the --load files a run's memory reads in place (array
// File.Map). A file that shrinks under the run makes a read of its lost
// pages fault; guard turns that fault into an error naming the file.
type mappings struct {
	files  []mapped
	outs   []mapped // the --dump files the run writes in place (provideDump)
	noCopy bool     // the kernel refused a file-to-file copy: dumps write from memory
	noOut  bool     // dumps are written, never mapped (a test's comparison)
}

type mapped struct {
	lo, hi uintptr
	file   string
	src    *array.File // the open file: its data byte k is the mapping's byte lo + k
}

func (ms *mappings) add(file string, data []byte, src *array.File) {
	if len(data) > 0 {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		ms.files = append(ms.files, mapped{lo, lo + uintptr(len(data)), file, src})
	}
}

// addOut notes --dump file's mapping data, written in place by the run.
func (ms *mappings) addOut(file string, data []byte) {
	if len(data) > 0 {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		ms.outs = append(ms.outs, mapped{lo, lo + uintptr(len(data)), file, nil})
	}
}

// loaded is the loaded file whose mapping holds all of b, and b's offset
// in its data; ok is false where b lies in none, or file-to-file copies
// have failed before.
func (ms *mappings) loaded(b []byte) (src *array.File, off int64, ok bool) {
	if ms.noCopy || len(b) == 0 {
		return nil, 0, false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, m := range ms.files {
		if lo >= m.lo && lo+uintptr(len(b)) <= m.hi && m.src != nil {
			return m.src, int64(lo - m.lo), true
		}
	}
	return nil, 0, false
}

// dumpWriter is a --dump's file, writing the bytes of a loaded file's pages
// the run left as they were (attached, or shared by a copy) file to file in
// the kernel (copy_file_range: no fault on the mapping, no copy through
// user memory; issue 17), the rest through its buffer.
type dumpWriter struct {
	*outFile
	ms *mappings
}

// WriteAttached writes b by its place in the loaded file it is mapped from
// (device.AttachedWriter); 0 where b lies in no mapping or the kernel
// copies none of it.
func (w *dumpWriter) WriteAttached(b []byte) (int, error) {
	src, off, ok := w.ms.loaded(b)
	if !ok {
		return 0, nil
	}
	if err := w.Flush(); err != nil { // what the buffer holds comes first
		return 0, err
	}
	n, err := src.CopyRange(w.f, off, int64(len(b)))
	if n == 0 || err != nil {
		w.ms.noCopy = true // another filesystem, an old kernel: the bytes go the usual way from here on
	}
	return int(n), nil
}

// guard runs f with faults on non-nil addresses made panics (this
// goroutine only, restored after), and a fault inside a mapped file — a
// loaded one, or a dump's written in place — returned as an error; any
// other panic goes on.
func (ms *mappings) guard(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fe, ok := r.(interface{ Addr() uintptr }); ok {
			a := fe.Addr()
			for _, m := range ms.files {
				if a >= m.lo && a < m.hi {
					err = fmt.Errorf("--load %s: the file shrank while the run read it in place (its byte %d is gone): nothing was written", m.file, a-m.lo)
					return
				}
			}
			for _, m := range ms.outs {
				if a >= m.lo && a < m.hi {
					err = fmt.Errorf("--dump %s: its staged file shrank while the run wrote it in place (its byte %d is gone): nothing was written", m.file, a-m.lo)
					return
				}
			}
		}
		panic(r)
	}()
	return f()
}
