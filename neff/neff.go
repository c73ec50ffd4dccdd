// Package neff reads the Neuron executable container (neff.md §2–§3): the
// 1024-byte header, the payload (gzip or raw tar, sniffed), the integrity
// hash in either byte order, and the tar members — safely: duplicate and
// oversized members refused, the inflated size capped.
package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// HeaderSize is the header's byte count (neff.md §2.2).
const HeaderSize = 0x400

// DefaultMaxInflated caps the tar's total inflated size (zip-bomb safety):
// the payload is streamed, a member larger than what is left of the cap is
// refused from its tar header, before it is inflated or allocated.
const DefaultMaxInflated = 1 << 30

// Header is the 1024-byte header, every field (neff.md §2.2).
type Header struct {
	PkgVersion        uint64
	HeaderSize        uint64
	DataSize          uint64
	MajorVersion      uint64
	MinorVersion      uint64
	Build             string
	NumTPB            uint32
	Hash              [32]byte
	UUID              [16]byte
	Name              string
	RequestedTPBCount uint32
	TPBPerNode        [64]byte
	FeatureBits       uint64
	VNCSize           uint32
}

// File is an opened NEFF.
type File struct {
	Header   Header
	Gzip     bool     // the payload is a gzip member (else raw tar)
	Padding  int      // zero bytes after the gzip member
	HashKind string   // "md5", "md5 (4-byte words reversed)", "sha256", or "mismatch"
	Members  []Member // in tar order, directories skipped, "./" stripped
	Warnings []string
}

// Member is one tar member.
type Member struct {
	Name string
	Data []byte
}

// Member returns the named member's bytes.
func (f *File) Member(name string) ([]byte, bool) {
	for _, m := range f.Members {
		if m.Name == name {
			return m.Data, true
		}
	}
	return nil, false
}

// Options steer Parse.
type Options struct {
	Strict      bool  // a hash mismatch is an error, not a warning
	MaxInflated int64 // 0: DefaultMaxInflated
}

// Errors.
var (
	ErrNotNEFF   = errors.New("not a NEFF")
	ErrHash      = errors.New("hash mismatch")
	ErrTooLarge  = errors.New("inflated size over the cap")
	ErrDuplicate = errors.New("duplicate tar member")
	ErrTrailing  = errors.New("trailing bytes")
	ErrPath      = errors.New("path is empty, absolute or climbs out with ..")
	ErrLimit     = errors.New("over a limit of the format's reader")
	// ErrNewer is a NEFF of a later format than ndma reads (a newer
	// compiler's): said as such, and errors.Is(err, ErrNotNEFF) too.
	ErrNewer error = newerError{}
)

// newerError is ErrNewer: one of the ErrNotNEFF kind, said as what it is.
type newerError struct{}

func (newerError) Error() string        { return "a NEFF newer than ndma reads (a later compiler's format)" }
func (newerError) Is(target error) bool { return target == ErrNotNEFF }

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// ParseHeader decodes the header and applies the load-time gates of
// neff.md §2.3 that need nothing but the header and the file size.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < HeaderSize {
		return h, fmt.Errorf("%d bytes: a NEFF has a %d-byte header: %w", len(b), HeaderSize, ErrNotNEFF)
	}
	le := binary.LittleEndian
	h.PkgVersion, h.HeaderSize, h.DataSize = le.Uint64(b[0:]), le.Uint64(b[8:]), le.Uint64(b[0x10:])
	h.MajorVersion, h.MinorVersion = le.Uint64(b[0x18:]), le.Uint64(b[0x20:])
	h.Build = cstr(b[0x28:0xa8])
	h.NumTPB = le.Uint32(b[0xa8:])
	copy(h.Hash[:], b[0xac:0xcc])
	copy(h.UUID[:], b[0xcc:0xdc])
	h.Name = cstr(b[0xdc:0x1dc])
	h.RequestedTPBCount = le.Uint32(b[0x1dc:])
	copy(h.TPBPerNode[:], b[0x1e0:0x220])
	h.FeatureBits, h.VNCSize = le.Uint64(b[0x220:]), le.Uint32(b[0x228:])
	switch {
	case h.HeaderSize != HeaderSize:
		return h, fmt.Errorf("header_size (offset 0x8) = %#x, want 0x400: %w", h.HeaderSize, ErrNotNEFF)
	case h.PkgVersion != 1 && h.PkgVersion != 2:
		return h, fmt.Errorf("pkg_version (offset 0x0) = %d: unsupported NEFF packager (1 or 2): %w", h.PkgVersion, ErrNotNEFF)
	case h.MajorVersion > 2:
		return h, fmt.Errorf("neff_version_major (offset 0x18) = %d: at most 2: %w", h.MajorVersion, ErrNewer)
	case h.DataSize > uint64(len(b)-HeaderSize):
		return h, fmt.Errorf("data_size (offset 0x10) = %d but only %d payload bytes: invalid data size (a truncated file, or not a NEFF): %w", h.DataSize, len(b)-HeaderSize, ErrNotNEFF)
	case h.MajorVersion == 2 && h.FeatureBits&0x7FFFFFFFF8000000 != 0:
		return h, fmt.Errorf("feature_bits (offset 0x220) = %#x: bits 27..62 set: %w", h.FeatureBits, ErrNewer)
	}
	return h, nil
}

// UUIDString is the uuid in its canonical form.
func (h *Header) UUIDString() string {
	u := h.UUID
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// featureNames are the feature_bits names the sources give (neff.md §2.6, MED).
var featureNames = []struct {
	bit  uint64
	name string
}{
	{0x2, "collective offset"}, {0x4, "custom ops"}, {0x8, "coalesced CC ops"}, {0x10, "queue-set instances"},
	{0x20, "has functions"}, {0x40, "dynamic pwp"}, {0x80, "indirect memcpy 32-bit semaphore wait"},
	{0x100, "indirect memcpy bound check"}, {0x200, "DMA descriptor higher dims"}, {0x400, "vnc"},
	{0x800, "DVE perf mode"}, {0x4000, "remote semaphore"}, {0x2000000, "large tensor support"},
}

// Features names the set feature bits ("bit 12" where no source names one).
func Features(bits uint64) []string {
	var out []string
	for b := 0; b < 64; b++ {
		v := uint64(1) << b
		if bits&v == 0 {
			continue
		}
		name := fmt.Sprintf("bit %d", b)
		for _, f := range featureNames {
			if f.bit == v {
				name = f.name
			}
		}
		out = append(out, name)
	}
	return out
}

// Parse opens a NEFF. A payload that fails to parse and whose hash does
// not match it either is a damaged file: the error says both.
func Parse(b []byte, opt Options) (f *File, err error) {
	defer func() {
		if err == nil {
			return
		}
		if f != nil && f.HashKind == "mismatch" {
			err = fmt.Errorf("%w (and the hash at offset 0xac does not match the payload: the file is damaged)", err)
		}
		f = nil // all or nothing
	}()
	return parse(b, opt)
}

// parse is Parse: the File so far comes back with an error too (its HashKind).
func parse(b []byte, opt Options) (*File, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return nil, err
	}
	f := &File{Header: h}
	payload := b[HeaderSize : HeaderSize+h.DataSize]
	if end := HeaderSize + int(h.DataSize); end < len(b) {
		return nil, fmt.Errorf("%d bytes after the payload at file offset %#x (data_size %#x at offset 0x10 ends it there): %w", len(b)-end, end, h.DataSize, ErrTrailing)
	}
	// the hash: MD5 (pkg 2) in either byte order, or SHA-256 (neff.md §2.5)
	md := md5.Sum(payload)
	var swapped [16]byte
	for i := 0; i < 16; i += 4 {
		swapped[i], swapped[i+1], swapped[i+2], swapped[i+3] = md[i+3], md[i+2], md[i+1], md[i]
	}
	sha := sha256.Sum256(payload)
	switch {
	case bytes.Equal(h.Hash[:16], md[:]):
		f.HashKind = "md5"
	case bytes.Equal(h.Hash[:16], swapped[:]):
		f.HashKind = "md5 (4-byte words reversed)"
	case bytes.Equal(h.Hash[:], sha[:]):
		f.HashKind = "sha256"
	default:
		f.HashKind = "mismatch"
		if opt.Strict {
			return nil, fmt.Errorf("hash (offset 0xac) matches neither MD5 (either byte order) nor SHA-256 of the %d payload bytes: %w", len(payload), ErrHash)
		}
		f.Warnings = append(f.Warnings, "hash (offset 0xac) matches neither MD5 (either byte order) nor SHA-256 of the payload")
	}
	limit := opt.MaxInflated
	if limit <= 0 {
		limit = DefaultMaxInflated
	}
	var tarStream io.Reader
	var zr *gzip.Reader
	var br *bytes.Reader
	switch {
	case len(payload) >= 3 && payload[0] == 0x1f && payload[1] == 0x8b && payload[2] == 8:
		f.Gzip = true
		br = bytes.NewReader(payload)
		var err error
		if zr, err = gzip.NewReader(br); err != nil {
			return f, fmt.Errorf("payload (offset 0x400): %w", err)
		}
		zr.Multistream(false) // zero padding follows the member (neff.md §2.4)
		tarStream = zr        // streamed: nothing is inflated that the cap has not allowed
	case len(payload) >= 263 && string(payload[257:262]) == "ustar":
		tarStream = bytes.NewReader(payload)
	default:
		return f, fmt.Errorf("payload (offset 0x400) is neither gzip (1f 8b 08) nor tar (ustar at +257): %w", ErrNotNEFF)
	}
	cr := &capReader{r: tarStream, left: limit}
	tr := tar.NewReader(cr)
	seen := map[string]bool{}
	for {
		th, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return f, fmt.Errorf("tar: %w", gzipWhere(err, f.Gzip))
		}
		if th.Typeflag == tar.TypeDir {
			continue
		}
		if th.Typeflag != tar.TypeReg && th.Typeflag != tar.TypeRegA {
			f.Warnings = append(f.Warnings, fmt.Sprintf("tar member %q of type %q skipped", th.Name, th.Typeflag))
			continue
		}
		name := strings.TrimPrefix(th.Name, "./")
		if name == "" || strings.HasPrefix(name, "/") || slices.Contains(strings.Split(name, "/"), "..") {
			return f, fmt.Errorf("tar member %q: %w", th.Name, ErrPath)
		}
		if seen[name] {
			return f, fmt.Errorf("tar member %q: %w", name, ErrDuplicate)
		}
		seen[name] = true
		if th.Size < 0 || th.Size > cr.left { // refused before a byte of it is inflated
			return f, fmt.Errorf("tar member %q (%d bytes) passes the %d-byte inflation cap: %w", name, th.Size, limit, ErrTooLarge)
		}
		data := make([]byte, th.Size)
		if _, err := io.ReadFull(tr, data); err != nil {
			return f, fmt.Errorf("tar member %q: %w", name, gzipWhere(err, f.Gzip))
		}
		f.Members = append(f.Members, Member{name, data})
	}
	if zr != nil {
		// the rest of the member (tar padding) up to its end: the CRC is checked there
		if _, err := io.Copy(io.Discard, cr); err != nil {
			if w := gzipWhere(err, true); w != err { // located already
				return f, w
			}
			return f, fmt.Errorf("payload (offset 0x400): %w", err)
		}
		rest := payload[len(payload)-br.Len():]
		for i, c := range rest {
			if c != 0 {
				return f, fmt.Errorf("payload offset %#x (file offset %#x): non-zero byte %#02x after the gzip member", len(payload)-len(rest)+i, HeaderSize+len(payload)-len(rest)+i, c)
			}
		}
		f.Padding = len(rest)
	}
	for _, j := range []string{"neff.json", "tensor_map.json"} { // metadata: a broken one is said, not silently dropped
		if b, ok := f.Member(j); ok && !json.Valid(b) {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s is not valid JSON: tensor dtypes and shapes from it are unknown (read as raw bytes)", j))
		}
	}
	return f, nil
}

// capReader reads at most left bytes, then fails with ErrTooLarge.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("payload inflates past the cap: %w", ErrTooLarge)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// gzipWhere names the gzip layer in a stream error.
func gzipWhere(err error, gz bool) error {
	if gz && !errors.Is(err, ErrTooLarge) && (errors.Is(err, gzip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "flate")) {
		if strings.HasPrefix(err.Error(), "gzip: ") { // gzip's own errors say it already
			return fmt.Errorf("payload (offset 0x400): %w", err)
		}
		return fmt.Errorf("payload (offset 0x400): gzip: %w", err)
	}
	return err
}
