//go:build !linux

package cli

import "os"

// replace puts tmp in path's place (os.Rename, atomic where the system's
// rename is).
func replace(tmp, path string) error { return os.Rename(tmp, path) }
