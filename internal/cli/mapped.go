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
	noCopy bool // the kernel refused a file-to-file copy: dumps write from memory
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
	if w.ms.noCopy || len(b) == 0 {
		return 0, nil
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, m := range w.ms.files {
		if lo < m.lo || lo+uintptr(len(b)) > m.hi || m.src == nil {
			continue
		}
		if err := w.Flush(); err != nil { // what the buffer holds comes first
			return 0, err
		}
		n, err := m.src.CopyRange(w.f, int64(lo-m.lo), int64(len(b)))
		if n == 0 || err != nil {
			w.ms.noCopy = true // another filesystem, an old kernel: the bytes go the usual way from here on
		}
		return int(n), nil
	}
	return 0, nil
}

// guard runs f with faults on non-nil addresses made panics (this
// goroutine only, restored after), and a fault inside a mapped file
// returned as an error; any other panic goes on.
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
		}
		panic(r)
	}()
	return f()
}
