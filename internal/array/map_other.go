//go:build !linux

package array

import "os"

// Map is not available here: ok is false and the caller reads the file.
func (f *File) Map() (data []byte, ok bool, err error) { return nil, false, nil }

// CopyRange copies nothing here: the caller writes the bytes.
func (f *File) CopyRange(dst *os.File, off, n int64) (int64, error) { return 0, nil }

// CopyRangeAt copies nothing here: the caller writes the bytes.
func (f *File) CopyRangeAt(dst *os.File, off, n, at int64) (int64, error) { return 0, nil }
