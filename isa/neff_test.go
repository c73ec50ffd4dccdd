package isa

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"ndma/internal/samples"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The real compiler output of ../shared/neff-samples (neff.md §2, §5). The
// sample stays outside the project: NDMA_NEFF_SAMPLES names its folder
// (default ../../shared/neff-samples from this package); NDMA_REQUIRE_SAMPLES=1
// (set by .ci/run when the folder exists) turns a missing sample into a failure.
func neffSample(t *testing.T) map[string][]byte {
	t.Helper()
	raw := samples.Read(t, "matmul_small.neff")
	if len(raw) < 1024 {
		t.Fatalf("NEFF of %d bytes has no 1024-byte header", len(raw))
	}
	dataSize := binary.LittleEndian.Uint64(raw[0x10:])
	if hs := binary.LittleEndian.Uint64(raw[8:]); hs != 1024 || dataSize > uint64(len(raw)-1024) {
		t.Fatalf("header_size %d, data_size %d, file %d", hs, dataSize, len(raw))
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw[1024 : 1024+dataSize]))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false) // the gzip member is followed by zero padding (neff.md §2.4)
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "./")] = b
	}
	return files
}

// Every 64-byte word of every engine stream decodes and re-encodes
// byte-identically (neff.md §5.1: 59,648 words in matmul_large; here the small one).
func TestNEFFStreamsRoundTrip(t *testing.T) {
	files := neffSample(t)
	words, streams := 0, 0
	ops := map[Opcode]int{}
	for name, b := range files {
		if !strings.HasSuffix(name, ".bin") || !strings.HasPrefix(name, "sg") || strings.Contains(name, "table") ||
			strings.Contains(name, "exp_and_others") {
			continue
		}
		if len(b)%WordSize != 0 {
			t.Errorf("%s: %d bytes, not whole words", name, len(b))
			continue
		}
		streams++
		d := NewDecoder(Cayman, b)
		for d.Next() {
			in := d.Inst()
			ops[in.Opcode()]++
			words += in.Size() / WordSize
			got, err := AppendEncoded(nil, *in)
			if err != nil || !bytes.Equal(got, b[d.Offset():d.Offset()+in.Size()]) {
				t.Errorf("%s@%#x: re-encode differs", name, d.Offset())
			}
		}
		if d.Err() != nil {
			t.Errorf("%s: %v", name, d.Err())
		}
	}
	if streams != 10 || words == 0 {
		t.Fatalf("%d streams, %d words: expected the 5 engines × 2 subgraphs", streams, words)
	}
	for _, op := range []Opcode{0xd4, 0xa0, 0xb1, 0xcc, 0x02} {
		if ops[op] == 0 {
			t.Errorf("no %s word found; census %v", op, ops)
		}
	}
	t.Logf("%d words in %d streams; opcodes %v", words, streams, ops)
}

// The two 0xd4 words of sg00/Pool.bin that neff.md §5.3 decodes by hand.
func TestNEFFPoolPseudoWords(t *testing.T) {
	pool := neffSample(t)["sg00/Pool.bin"]
	if len(pool) < 0x180 {
		t.Fatalf("sg00/Pool.bin: %d bytes", len(pool))
	}
	type want struct {
		path string
		v    int64
	}
	cases := map[int][]want{
		0x080: {
			{"dge_op", 0}, {"dma_configs.priority_class", 0}, {"semaphore", 24}, {"sem_increment", 16},
			{"events.wait_mode", 0},
			{"src_step_elem[0]", 512}, {"src_step_elem[1]", 1}, {"src_num_elem[0]", 128}, {"src_num_elem[1]", 1},
			{"src_elem_size", 512},
			{"dst_step_elem[0]", 0x40000}, {"dst_step_elem[1]", 1}, {"dst_num_elem[0]", 128}, {"dst_num_elem[1]", 1},
			{"dst_elem_size", 512}, {"in_dtype", 0x07}, {"out_dtype", 0x07},
		},
		0x140: {
			{"events.wait_mode", 5}, {"events.wait_idx", 4}, {"events.semaphore_value", 2},
			{"semaphore", 27}, {"sem_increment", 16}, {"dge_op", 0},
			{"src_step_elem[0]", 0x40000}, {"src_num_elem[0]", 128}, {"src_elem_size", 256},
			{"dst_step_elem[0]", 256}, {"dst_num_elem[0]", 128}, {"dst_elem_size", 128},
			{"in_dtype", 0x0A}, {"out_dtype", 0x07},
		},
	}
	type arm struct {
		form       string
		id, offset uint64
	}
	arms := map[int][2]arm{
		0x080: {{"tbl", 0, 0}, {"var", 0, 0x37C00}}, // x through dge-table[0]; SB + 0x37C00
		0x140: {{"var", 0, 0x4200}, {"tbl", 2, 0}},  // SB + 0x4200; output0 through dge-table[2]
	}
	for off, fields := range cases {
		in, err := Decode(Cayman, pool[off:])
		if err != nil {
			t.Fatal(err)
		}
		if in.Opcode() != OpPseudoDMADirect2D {
			t.Fatalf("@%#x: opcode %s", off, in.Opcode())
		}
		for _, f := range fields {
			got, err := in.Int(f.path)
			if err != nil || got != f.v {
				t.Errorf("@%#x %s = %d (%v), want %d", off, f.path, got, err, f.v)
			}
		}
		for k, leg := range []string{"src_start_addr", "dst_start_addr"} {
			a, err := in.Addr8(leg)
			if err != nil {
				t.Fatal(err)
			}
			w := arms[off][k]
			got := arm{form: a.Form(), id: a.Raw >> 32 & 0xffff, offset: a.Raw & 0xffffffff}
			if diff := cmp.Diff(w, got, cmp.AllowUnexported(arm{})); diff != "" {
				t.Errorf("@%#x %s (-want +got):\n%s", off, leg, diff)
			}
		}
	}
}
