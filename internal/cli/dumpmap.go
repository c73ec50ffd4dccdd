package cli

import (
	"bytes"
	"fmt"
	"os"
	"unsafe"

	"ndma/device"
	"ndma/internal/array"
	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// outMap is a --dump's staged file mapped shared (mapOutput): data is the
// whole file, its .npy header, then the array's bytes.
type outMap struct {
	f    *os.File
	data []byte
	hdr  int // the array's byte k is data[hdr+k]
}

// provideDump maps dump p's staged file tmp (mapOutput) and gives the
// absent whole HBM pages of its range to m as their storage (mem.Provide):
// the run then writes them in the file's page cache. nil where p is not in
// HBM, covers no whole page, is refused (its dump reports why), or the
// file cannot be mapped.
func provideDump(p dumpPlan, tmp string, m *mem.Memory, ms *mappings) *outMap {
	size, ok := num.Size(p.dtype)
	if r, _, _ := m.Map.Split(p.addr); !ok || r != isa.HBM || device.CheckArray(m, p.addr, p.shape, size) != nil {
		return nil
	}
	n := size
	for _, d := range p.shape {
		n *= d // CheckArray held it to device.MaxReadBytes
	}
	lo := (p.addr + mem.PageSize - 1) &^ (mem.PageSize - 1)
	end := p.addr + uint64(n)
	if lo+mem.PageSize > end {
		return nil
	}
	descr, _ := array.Descr(p.dtype)
	var h bytes.Buffer
	if array.WriteHeader(&h, descr, p.shape) != nil {
		return nil
	}
	o := mapOutput(tmp, h.Bytes(), n)
	if o == nil {
		return nil
	}
	ms.addOut(p.file, o.data)
	arr := o.data[o.hdr:]
	for a := lo; a+mem.PageSize <= end; {
		k := m.Provide(a, arr[a-p.addr:n]) // the whole pages from a
		if k == 0 {
			a += mem.PageSize // present already (a --load, another dump's page): the dump copies it
			continue
		}
		a += uint64(k)
	}
	return o
}

// mapWriter writes a dump's array into its mapped file (provideDump),
// from the file's byte at on: a chunk that is the mapping's own bytes
// there (a provided page the run wrote or left) or all zeros is skipped,
// one of a loaded file's pages the run left as they were is copied file to
// file (dumpWriter), any other is written (pwrite) — right however the run
// changed the memory's pages.
type mapWriter struct {
	o  *outMap
	at int64
	ms *mappings
}

func (w *mapWriter) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if w.at+int64(len(b)) > int64(len(w.o.data)) {
		return 0, fmt.Errorf("%d bytes past the file's %d", w.at+int64(len(b))-int64(len(w.o.data)), len(w.o.data)) // cannot happen: the file is the array's size
	}
	// a chunk of zeros (memory the run never wrote) is not written: the
	// staged file is fresh and fallocate'd, and nothing but this writer
	// writes its bytes outside the provided pages, so they read as zero
	if unsafe.SliceData(b) != &w.o.data[w.at] && !allZero(b) {
		if _, err := w.o.f.WriteAt(b, w.at); err != nil {
			return 0, err
		}
	}
	w.at += int64(len(b))
	return len(b), nil
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	var z [4096]byte
	for len(b) > 0 {
		c := min(len(b), len(z))
		if !bytes.Equal(b[:c], z[:c]) {
			return false
		}
		b = b[c:]
	}
	return true
}

// WriteAttached is dumpWriter's, at the writer's offset.
func (w *mapWriter) WriteAttached(b []byte) (int, error) {
	src, off, ok := w.ms.loaded(b)
	if !ok {
		return 0, nil
	}
	n, err := src.CopyRangeAt(w.o.f, off, int64(len(b)), w.at)
	if n == 0 || err != nil {
		w.ms.noCopy = true
	}
	w.at += n
	return int(n), nil
}
