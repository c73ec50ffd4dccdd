//go:build linux

package array

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Map maps the file copy-on-write and returns its data bytes: reading
// them reads the page cache in place, writing them changes a private copy
// of the page, never the file (MAP_PRIVATE). The mapping lives until the
// process ends. A file that shrinks while mapped makes a read of the lost
// pages fault: the caller runs under debug.SetPanicOnFault and reports it
// (internal/cli run). ok is false, with no error, where the data cannot be
// mapped (empty, or larger than the address space takes).
func (f *File) Map() (data []byte, ok bool, err error) {
	end := f.Offset + f.Size
	if f.Size == 0 || end > 1<<46 {
		return nil, false, nil
	}
	st, err := f.f.Stat()
	if err != nil {
		return nil, false, err
	}
	if st.Size() < end {
		return nil, false, fmt.Errorf("%s: %d bytes, its header declares %d: it has shrunk since it was opened", f.name, st.Size(), end)
	}
	b, err := syscall.Mmap(int(f.f.Fd()), 0, int(end), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false, nil // not mappable here (a filesystem without mmap): the caller reads
	}
	return b[f.Offset:end:end], true, nil
}

// CopyRange copies n bytes of the file's data from data offset off to the
// end of dst (its current offset) inside the kernel (copy_file_range: page
// cache to page cache, no copy through user memory) and returns the bytes
// copied; fewer than n, with or without an error, where the kernel stops
// (another filesystem, a file that shrank): the caller writes the rest.
func (f *File) CopyRange(dst *os.File, off, n int64) (int64, error) {
	return f.copyRange(dst, off, n, nil)
}

// CopyRangeAt is CopyRange to dst's byte at on (pwrite's offset: dst's
// own offset neither used nor moved), for an output written in place
// through a mapping of it (internal/cli's --dump).
func (f *File) CopyRangeAt(dst *os.File, off, n, at int64) (int64, error) {
	return f.copyRange(dst, off, n, &at)
}

// copyRange is CopyRange to dst's offset, or to *at (moved on) where at is not nil.
func (f *File) copyRange(dst *os.File, off, n int64, at *int64) (int64, error) {
	src := f.Offset + off
	var done int64
	for done < n {
		c, err := unix.CopyFileRange(int(f.f.Fd()), &src, int(dst.Fd()), at, int(min(n-done, 1<<30)), 0)
		if c <= 0 || err != nil {
			return done, err
		}
		done += int64(c)
	}
	return done, nil
}
