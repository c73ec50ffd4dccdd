//go:build linux

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapOutput makes the empty staged file tmp a --dump's .npy of an n-byte
// array written in place: header at its start, the array's space reserved
// after it (fallocate: a write through the mapping can then not fault for
// want of space) and the whole file mapped shared, read-write — the run's
// bytes land in the file's page cache, and the dump needs no write(2) of
// them (issue 17). It returns nil, the file left empty, on a filesystem
// other than ext4 or where the kernel refuses any step: the dump is then
// written as usual.
func mapOutput(tmp string, header []byte, n int) *outMap {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	size := len(header) + n
	var fs unix.Statfs_t
	if unix.Fstatfs(int(f.Fd()), &fs) != nil || fs.Type != unix.EXT4_SUPER_MAGIC {
		// measured on ext4 only: on tmpfs fallocate zeroes every 4 KiB page
		// and the run then faults each one in (a 64 MiB gather 20 ms slower)
		f.Close()
		return nil
	}
	fail := func() *outMap {
		f.Truncate(0) // today's path writes from offset 0 without O_TRUNC
		f.Close()
		return nil
	}
	if unix.Fallocate(int(f.Fd()), 0, 0, int64(size)) != nil {
		return fail()
	}
	if _, err := f.WriteAt(header, 0); err != nil {
		return fail()
	}
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail()
	}
	// 2 MiB page-cache folios, mapped whole: the run's first writes fault
	// 32 times per 64 MiB, not per 4 KiB page (23–26 ms against 40–53 for a
	// 64 MiB copy into the mapping, 54–120 for a write(2) from anonymous
	// memory; issue 17). Advice only: a kernel without it faults smaller folios.
	unix.Madvise(data, unix.MADV_HUGEPAGE)
	return &outMap{f: f, data: data, hdr: len(header)}
}

// close unmaps and closes the file; its memory's pages must no longer be read.
func (o *outMap) close() error {
	err := unix.Munmap(o.data)
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.data = nil
	return err
}
