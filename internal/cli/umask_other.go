//go:build !unix

package cli

import "io/fs"

// umask: no creation mask to honour off unix; outputs are 0644.
func umask() fs.FileMode { return 0o022 }
