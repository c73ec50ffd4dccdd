package neff

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
)

func sample(t *testing.T) []byte {
	t.Helper()
	return samples.Read(t, "matmul_small.neff")
}

// matmul_small's header and container as neff.md §2.2–§2.5 and §3.1 state them.
func TestSampleHeader(t *testing.T) {
	f, err := Parse(sample(t), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	h := f.Header
	if h.PkgVersion != 2 || h.HeaderSize != 0x400 || h.DataSize != 0xF000 || h.MajorVersion != 2 || h.MinorVersion != 0 ||
		h.Build != "" || h.NumTPB != 1 || h.Name != "file.neff" || h.RequestedTPBCount != 1 || h.TPBPerNode[0] != 1 ||
		h.FeatureBits != 0x209C00 || h.VNCSize != 2 {
		t.Fatalf("header %+v", h)
	}
	if got := h.UUIDString(); got != "00a04c53-5fd9-4f07-bffd-d5eacdefc852" {
		t.Errorf("uuid %s", got)
	}
	if f.HashKind != "md5 (4-byte words reversed)" || !f.Gzip || f.Padding != 7839 || len(f.Members) != 72 {
		t.Errorf("hash %q gzip %v padding %d members %d; want word-reversed MD5, gzip, 7839, 72", f.HashKind, f.Gzip, f.Padding, len(f.Members))
	}
	var total int
	for _, m := range f.Members {
		total += len(m.Data)
	}
	if _, ok := f.Member("sg00/def.json"); !ok {
		t.Error("no sg00/def.json")
	}
	// 0x209C00 = bits 10, 11, 12, 15, 21 (neff.md §2.6): 0x400 vnc, 0x800 DVE perf mode, the rest unnamed
	if want := []string{"vnc", "DVE perf mode", "bit 12", "bit 15", "bit 21"}; strings.Join(Features(h.FeatureBits), ",") != strings.Join(want, ",") {
		t.Errorf("features %q", Features(h.FeatureBits))
	}
}

// synth writes a NEFF through Build: members as name, data pairs.
func synth(t *testing.T, format tar.Format, gz bool, pad int, hashKind string, pkg uint64, members ...string) []byte {
	t.Helper()
	var ms []Member
	for i := 0; i < len(members); i += 2 {
		ms = append(ms, Member{members[i], []byte(members[i+1])})
	}
	b, err := Build(ms, WriteOptions{Format: format, Raw: !gz, Pad: pad, Hash: hashKind, PkgVersion: pkg, Name: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every reader path on synthetic NEFFs: ustar and GNU tar (a directory entry,
// "./" names), padded and unpadded gzip, raw tar, MD5 in both orders, SHA-256.
func TestSynthetic(t *testing.T) {
	for _, tc := range []struct {
		format tar.Format
		gz     bool
		pad    int
		hash   string
		pkg    uint64
	}{
		{tar.FormatUSTAR, true, 7839, "md5 (4-byte words reversed)", 2},
		{tar.FormatGNU, true, 0, "md5", 2},
		{tar.FormatPAX, true, 100, "md5", 2},
		{tar.FormatUSTAR, false, 0, "sha256", 1},
	} {
		b := synth(t, tc.format, tc.gz, tc.pad, tc.hash, tc.pkg, "./sg00/def.json", `{"var":{}}`, "sg00/Pool.bin", strings.Repeat("\x00", 64))
		f, err := Parse(b, Options{Strict: true})
		if err != nil {
			t.Fatalf("%v: %v", tc, err)
		}
		if f.HashKind != tc.hash || f.Gzip != tc.gz || f.Padding != tc.pad || len(f.Members) != 2 || f.Members[0].Name != "sg00/def.json" {
			t.Errorf("%v: hash %q gzip %v pad %d members %v", tc, f.HashKind, f.Gzip, f.Padding, f.Members)
		}
	}
}

// Refusals name what and where.
func TestRefusals(t *testing.T) {
	good := synth(t, tar.FormatUSTAR, true, 16, "md5", 2, "a", "x")
	mut := func(off int, v byte) []byte { b := bytes.Clone(good); b[off] = v; return b }
	for _, tc := range []struct {
		name string
		b    []byte
		opt  Options
		want string
	}{
		{"short", good[:100], Options{}, "100 bytes: a NEFF has a 1024-byte header"},
		{"header size", mut(9, 0x05), Options{}, "header_size (offset 0x8) = 0x500"},
		{"packager", mut(0, 3), Options{}, "pkg_version (offset 0x0) = 3: unsupported NEFF packager"},
		{"major", mut(0x18, 3), Options{}, "neff_version_major (offset 0x18) = 3"},
		{"data size", mut(0x12, 0x7f), Options{}, "invalid data size"},
		{"feature trapdoor", mut(0x223, 0x08), Options{}, "bits 27..62 set: a NEFF newer than ndma reads"},
		{"hash strict", mut(0xac, 0), Options{Strict: true}, "hash mismatch"},
		{"padding", mut(len(good)-1, 1), Options{}, "non-zero byte 0x01 after the gzip member"},
		{"not a payload", mut(0x400, 0), Options{}, "neither gzip (1f 8b 08) nor tar"},
		{"duplicate", synth(t, tar.FormatUSTAR, false, 0, "md5", 2, "a", "x", "./a", "y"), Options{}, `tar member "a": duplicate tar member`},
		{"cap", synth(t, tar.FormatUSTAR, true, 0, "md5", 2, "a", strings.Repeat("z", 5000)), Options{MaxInflated: 4096}, "inflated size over the cap"},
	} {
		_, err := Parse(tc.b, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// a mismatch without --strict is a warning
	f, err := Parse(mut(0xac, 0), Options{})
	if err != nil || f.HashKind != "mismatch" || len(f.Warnings) != 1 {
		t.Fatalf("non-strict mismatch: %v %q %q", err, f.HashKind, f.Warnings)
	}
	if !errors.Is(func() error { _, e := Parse(good[:10], Options{}); return e }(), ErrNotNEFF) {
		t.Error("a short file is not ErrNotNEFF")
	}
	// a later format is ErrNewer, and of the ErrNotNEFF kind
	for _, b := range [][]byte{mut(0x223, 0x08), mut(0x18, 3)} {
		if _, e := Parse(b, Options{}); !errors.Is(e, ErrNewer) || !errors.Is(e, ErrNotNEFF) || strings.Contains(e.Error(), "not a NEFF") {
			t.Errorf("newer: %v", e)
		}
	}
}

// matmul_small's two subgraphs and their engines, resolved through the JSON
// (neff.md §3.1, §4.2): target cayman; sg00's Pool.bin is 7 words.
func TestSampleSubgraphs(t *testing.T) {
	f, err := Parse(sample(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if name, g := f.Target(); name != "cayman" || g != isa.Cayman {
		t.Errorf("target %q %v", name, g)
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		t.Fatal(err)
	}
	if len(sgs) != 2 || sgs[0].Name != "sg00" || sgs[0].Dir != "sg00" || sgs[1].Name != "sg01" {
		t.Fatalf("%d subgraphs", len(sgs))
	}
	var keys []string
	for _, e := range sgs[0].Engines {
		keys = append(keys, e.Key+":"+e.Instr)
		if e.Key == "pool" && len(e.Code) != 7*64 {
			t.Errorf("Pool stream %d bytes, want 448", len(e.Code))
		}
	}
	if want := "pe:PE.bin act:Activation.bin pool:Pool.bin dve:DVE.bin sp:SP.bin"; strings.Join(keys, " ") != want {
		t.Errorf("engines %v, want %s", keys, want)
	}
}

// sg00's variables and queues as neff.md §3.1/§4.4 show them.
func TestSampleVariablesAndQueues(t *testing.T) {
	f, err := Parse(sample(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		t.Fatal(err)
	}
	vars := sgs[0].Variables()
	var got []string
	for _, v := range vars {
		got = append(got, fmt.Sprintf("%d:%s:%s:%d", v.ID, v.Name, v.Type, v.Size))
	}
	want := "0:SB:state-buffer:0 1:x:input:65536 2:y:input:65536 3:output0:output:32768 4:identity_82_sg0000:file:32768 5:DGETable0:dge-table:0"
	if strings.Join(got, " ") != want {
		t.Errorf("variables\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if vars[5].List == nil || fmt.Sprint(vars[5].List) != "[1 2 3]" || vars[4].FileName != "value_sg0000_identity_82_CRSM.npy" || vars[4].Alignment != 32768 {
		t.Errorf("DGETable0 list %v, file %q alignment %d", vars[5].List, vars[4].FileName, vars[4].Alignment)
	}
	qs := sgs[0].Queues()
	if len(qs) != 2 || qs[0].Name != "qPoolDynamic" || qs[0].Owner != "pool" || len(qs[0].Semaphores) != 16 || qs[0].Semaphores[0] != 24 ||
		qs[1].Name != "qSPDynamicHW" || qs[1].Owner != "sp" || qs[1].Semaphores[0] != 8 {
		t.Errorf("queues %+v", qs)
	}
}

// The member list in tar order as neff.md §3.1 gives it: the debug_info
// and top-level JSON first, then sg00's engine streams and manifests
// (Activation, DVE, PE, Pool, SP), act_info, the per-engine debug files,
// def.json, the DVE tables, the ACT function set, tensor_map.json and the
// constant; sg01 the same; neff.json last. Sizes as §3.1 states them.
func TestSampleMembers(t *testing.T) {
	f, err := Parse(sample(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"debug_info/debug_info_hlo.dbg_sg000000", "debug_info/debug_info_penguin.dbg_sg000000",
		"debug_info/debug_info_pttf.dbg_sg000000", "debug_info/debug_info_stack_frame_index.dbg",
		"hlo_stats.json", "info.json", "kelf-0.json",
	}
	for _, sg := range []string{"sg00", "sg01"} {
		for _, n := range []string{"Activation.bin", "Activation.json", "DVE.bin", "DVE.json", "PE.bin", "PE.json", "Pool.bin", "Pool.json", "SP.bin", "SP.json", "act_info.json"} {
			want = append(want, sg+"/"+n)
		}
		for _, e := range []string{"Activation", "DVE", "PE", "Pool", "SP"} {
			want = append(want, sg+"/debug_info_asm_"+e+".dbg")
		}
		for _, e := range []string{"Activation", "DMA", "DVE", "PE", "Pool", "SP"} {
			want = append(want, sg+"/debug_info_backend_"+e+".dbg")
		}
		want = append(want, sg+"/def.json")
		for _, tb := range []string{"control_fast", "control_slow", "datapath", "opcode"} {
			want = append(want, sg+"/default_"+tb+"_table.bin")
		}
		want = append(want, sg+"/exp_and_others.json", sg+"/exp_and_others_bkt.bin", sg+"/exp_and_others_ctrl.bin", sg+"/tensor_map.json")
		want = append(want, sg+"/value_sg0000_identity_82_CRSM.npy") // sg01 keeps sg00's constant name
	}
	want = append(want, "neff.json")
	var got []string
	for _, m := range f.Members {
		got = append(got, m.Name)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("members\n got %q\nwant %q", got, want)
	}
	for name, size := range map[string]int{"sg00/PE.bin": 768, "sg00/Pool.bin": 448, "sg00/SP.bin": 192, "sg00/Activation.bin": 320, "sg00/DVE.bin": 128, "sg00/def.json": 3820} {
		if b, _ := f.Member(name); len(b) != size {
			t.Errorf("%s: %d bytes, want %d", name, len(b), size)
		}
	}
}

// A gzip payload whose CRC fails is said once, located: "payload (offset
// 0x400): gzip: invalid checksum" — not with the location and gzip's own
// "gzip:" twice.
func TestGzipChecksumSaidOnce(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	if err := tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("x"))
	tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tb.Bytes())
	zw.Close()
	payload := gz.Bytes()
	payload[len(payload)-8] ^= 0xff // the CRC-32 of the trailer
	b := make([]byte, HeaderSize+len(payload))
	copy(b[HeaderSize:], payload)
	binary.LittleEndian.PutUint64(b[0x0:], 2)
	binary.LittleEndian.PutUint64(b[0x8:], HeaderSize)
	binary.LittleEndian.PutUint64(b[0x10:], uint64(len(payload)))
	_, err := Parse(b, Options{})
	if err == nil || strings.Count(err.Error(), "payload (offset 0x400)") != 1 || strings.Count(err.Error(), "gzip:") != 1 || !errors.Is(err, gzip.ErrChecksum) {
		t.Fatalf("%v", err)
	}
}
