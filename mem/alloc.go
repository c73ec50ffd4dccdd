package mem

import "ndma/internal/hugemem"

// allocExtent returns n zero bytes, cap n (an extent's pages run to its
// end), on huge pages from hugemem.Min up: a 64 MiB `--load` or copy
// faults 32 pages, not 16,384 (issue 17).
func allocExtent(n int) []byte { return hugemem.Bytes(n) }
