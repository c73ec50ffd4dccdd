package cli

// WriteFile writes b to path as every ndma output is written: staged beside
// it and renamed into place whole (a symlink written through, a
// write-protected file refused), so a failure leaves no half-written file.
// Python's ndma writes its files (a report, a timeline) through it.
func WriteFile(path string, b []byte) error { return writeFileAtomic(path, b) }
