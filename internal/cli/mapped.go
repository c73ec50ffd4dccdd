package cli

import (
	"fmt"
	"runtime/debug"
	"unsafe"
)

// mappings are the --load files a run's memory reads in place (array
// File.Map). A file that shrinks under the run makes a read of its lost
// pages fault; guard turns that fault into an error naming the file.
type mappings struct {
	files []mapped
}

type mapped struct {
	lo, hi uintptr
	file   string
}

func (ms *mappings) add(file string, data []byte) {
	if len(data) > 0 {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		ms.files = append(ms.files, mapped{lo, lo + uintptr(len(data)), file})
	}
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
