//go:build unix

package cli

import (
	"io/fs"
	"sync"
	"syscall"
)

// umask is the process's file-mode creation mask, read once (setting it is
// the only way to read it; the command has not started writing yet).
var umask = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
})
