//go:build !linux

package array

// Map is not available here: ok is false and the caller reads the file.
func (f *File) Map() (data []byte, ok bool, err error) { return nil, false, nil }
