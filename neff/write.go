package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// WriteOptions choose the container dialect Build writes (for tests and
// synthetic inputs: every path the reader takes).
type WriteOptions struct {
	Format     tar.Format // tar.FormatUSTAR (default), FormatGNU (with a directory entry), FormatPAX
	Raw        bool       // a raw tar payload instead of gzip
	Pad        int        // zero bytes after the gzip member
	Hash       string     // "md5" (default), "md5 (4-byte words reversed)", "sha256", "none"
	PkgVersion uint64     // 0: 2
	Name       string
}

// Build writes a NEFF holding members.
func Build(members []Member, opt WriteOptions) ([]byte, error) {
	if opt.Format == 0 {
		opt.Format = tar.FormatUSTAR
	}
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if opt.Format == tar.FormatGNU {
		if err := tw.WriteHeader(&tar.Header{Name: "sg00/", Typeflag: tar.TypeDir, Mode: 0o755, Format: opt.Format}); err != nil {
			return nil, err
		}
	}
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Name: m.Name, Mode: 0o664, Size: int64(len(m.Data)), Format: opt.Format}); err != nil {
			return nil, fmt.Errorf("tar member %q: %w", m.Name, err)
		}
		if _, err := tw.Write(m.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	payload := tb.Bytes()
	if !opt.Raw {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(payload)
		if err := zw.Close(); err != nil {
			return nil, err
		}
		payload = append(zb.Bytes(), make([]byte, opt.Pad)...)
	}
	h := make([]byte, HeaderSize)
	le := binary.LittleEndian
	if opt.PkgVersion == 0 {
		opt.PkgVersion = 2
	}
	le.PutUint64(h[0:], opt.PkgVersion)
	le.PutUint64(h[8:], HeaderSize)
	le.PutUint64(h[0x10:], uint64(len(payload)))
	le.PutUint64(h[0x18:], 2)
	copy(h[0xdc:0x1dc], opt.Name)
	md := md5.Sum(payload)
	switch opt.Hash {
	case "", "md5":
		copy(h[0xac:], md[:])
	case "md5 (4-byte words reversed)":
		for i := 0; i < 16; i += 4 {
			h[0xac+i], h[0xac+i+1], h[0xac+i+2], h[0xac+i+3] = md[i+3], md[i+2], md[i+1], md[i]
		}
	case "sha256":
		s := sha256.Sum256(payload)
		copy(h[0xac:], s[:])
	case "none":
	default:
		return nil, fmt.Errorf("hash %q: md5, md5 (4-byte words reversed), sha256 or none", opt.Hash)
	}
	return append(h, payload...), nil
}
