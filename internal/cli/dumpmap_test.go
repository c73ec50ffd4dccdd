package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"ndma/internal/array"
	"ndma/internal/num"
)

// canMapOutput skips a test of dumps written in place where dir's
// filesystem takes none (mapOutput: ext4 only).
func canMapOutput(t *testing.T, dir string) {
	t.Helper()
	tmp := filepath.Join(dir, ".ndma-probe")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp)
	o := mapOutput(tmp, []byte("h"), 1<<16)
	if o == nil {
		t.Skip("no dump written in place on this filesystem")
	}
	o.close()
}

// runDumps is `ndma run args` in process, its HBM dumps written in place
// (noOut false) or as before (true); mapped is how many dumps were mapped.
func runDumps(noOut bool, args ...string) (mapped int, err error) {
	var so, se bytes.Buffer
	e := &env{stdout: &so, stderr: &se}
	ms := mappings{noOut: noOut}
	err = ms.guard(func() error { return runLoaded(e, args, &ms) })
	return len(ms.outs), err
}

// randBytes is n bytes of a seeded generator.
func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func saveNPY(t testing.TB, path, descr string, shape []int, data []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := array.Write(&b, &array.Array{Descr: descr, Shape: shape, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// f32s is the little-endian fp32 values of b.
func f32s(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

const dstHBM = 0x10000000 // the dumps' HBM offset: page-aligned

// An HBM dump written in place (its staged file mapped, its pages the
// memory's) is byte for byte the dump written as before, and the array
// computed here, however the run changed the pages: a gather into fresh
// pages, a copy that shares a loaded file's pages, an in-flight ADD onto a
// loaded destination, an unaligned copy dumped from and to mid-page, two
// dumps of overlapping ranges, never-written memory, an SBUF dump beside.
func TestDumpInPlace(t *testing.T) {
	dir := t.TempDir()
	canMapOutput(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	// a 64-row table of 4 KiB rows and 256 indices, index j at partition j % 128, offset 4·(j / 128)
	table := randBytes(64*4096, 1)
	saveNPY(t, p("table.npy"), "|u1", []int{64, 4096}, table)
	idx := make([]uint32, 256)
	r := rand.New(rand.NewPCG(2, 3))
	for j := range idx {
		idx[j] = uint32(r.IntN(64))
	}
	idxFile := make([]byte, 4*256)
	for j, v := range idx {
		binary.LittleEndian.PutUint32(idxFile[4*(j%128*2+j/128):], v)
	}
	saveNPY(t, p("idx.npy"), "<u4", []int{128, 2}, idxFile)
	gathered := make([]byte, 0, 256*4096)
	for _, v := range idx {
		gathered = append(gathered, table[v*4096:(v+1)*4096]...)
	}
	u8 := randBytes(1<<20, 4) // 16 pages
	saveNPY(t, p("u8.npy"), "|u1", []int{1 << 20}, u8)
	src, dst := make([]byte, 1<<20), make([]byte, 1<<20)
	for i := 0; i < len(src); i += 4 { // finite values, so the sum is exact IEEE arithmetic in Go too
		binary.LittleEndian.PutUint32(src[i:], math.Float32bits(float32(i%997)-300.25))
		binary.LittleEndian.PutUint32(dst[i:], math.Float32bits(float32(i%1013)*0.5))
	}
	saveNPY(t, p("src.npy"), "<f4", []int{1 << 18}, src)
	saveNPY(t, p("dst.npy"), "<f4", []int{1 << 18}, dst)
	sum := make([]byte, 1<<20)
	for i, a := range f32s(src) {
		binary.LittleEndian.PutUint32(sum[4*i:], math.Float32bits(f32s(dst[4*i : 4*i+4])[0]+a))
	}
	small := randBytes(4096, 5)
	saveNPY(t, p("small.npy"), "|u1", []int{4096}, small)

	const gather = "dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0, src_step_elem=4096, src_num_elem=64, src_elem_size=4096, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000, dst_step_elem=4096, dst_num_elem=256, dst_elem_size=4096, in_dtype=u8, out_dtype=u8"
	const copy16 = "dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[16, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[16, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8"
	const add16 = "dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[16, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[16, 1], dst_elem_size=0, in_dtype=fp32, out_dtype=fp32"
	// 15 pages from 0x100 on: not page to page, so copied, never shared
	const copyOff = "dmamemcpy src_start_addr=hbm:0x100, src_step_elem=[0x10000, 0], src_num_elem=[15, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[15, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8"
	written := make([]byte, 1<<20) // the destination after copyOff: 15 pages of u8 from 0x100, then zeros
	copy(written, u8[0x100:0x100+15<<16])

	type dump struct {
		spec string // ADDR:DTYPE:SHAPE
		want []byte
	}
	at := func(off int) string { return fmt.Sprintf("hbm:%#x", dstHBM+off) }
	for _, tc := range []struct {
		name   string
		word   string
		loads  []string
		dumps  []dump
		mapped int
	}{
		{"gather", gather, []string{"hbm:0x0=" + p("table.npy"), "sbuf:0:0x0=" + p("idx.npy")},
			[]dump{{at(0) + ":u8:256x4096", gathered}}, 1},
		{"shared copy", copy16, []string{"hbm:0x0=" + p("u8.npy")},
			[]dump{{at(0) + ":u8:1048576", u8}}, 1},
		{"ADD onto a load", add16, []string{"hbm:0x0=" + p("src.npy"), at(0) + "=" + p("dst.npy")},
			[]dump{{at(0) + ":fp32:262144", sum}}, 1},
		{"mid-page and overlapping", copyOff, []string{"hbm:0x0=" + p("u8.npy")}, []dump{
			{at(0x1234) + ":u8:" + strconv.Itoa(3<<16+0x777), written[0x1234 : 0x1234+3<<16+0x777]},
			{at(0) + ":u8:655360", written[:0xa0000]},
			{at(0x50010) + ":u8:" + strconv.Itoa(1<<20-0x50010), written[0x50010:]},
		}, 3},
		{"never written, and SBUF", copy16, []string{"hbm:0x0=" + p("u8.npy"), "sbuf:5:0x100=" + p("small.npy")}, []dump{
			{"hbm:0x30000000:u8:1048576", make([]byte, 1<<20)},
			{"sbuf:5:0x100:u8:4096", small},
		}, 1},
	} {
		prog := p("w.s")
		if err := os.WriteFile(prog, []byte(".gen cayman\n"+tc.word+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, ex := range []string{"ref", "sim", "both"} {
			var files [2][][]byte // in place, then as before
			for k, noOut := range []bool{false, true} {
				args := []string{"--exec", ex}
				for _, l := range tc.loads {
					args = append(args, "--load", l)
				}
				for i, d := range tc.dumps {
					args = append(args, "--dump", d.spec+"="+p(strconv.Itoa(i)+".npy"))
				}
				mapped, err := runDumps(noOut, append(args, prog)...)
				if err != nil {
					t.Fatalf("%s, %s: %v", tc.name, ex, err)
				}
				if want := map[bool]int{false: tc.mapped}[noOut || ex == "both"]; mapped != want {
					t.Errorf("%s, %s (noOut %v): %d dumps mapped, want %d", tc.name, ex, noOut, mapped, want)
				}
				for i, d := range tc.dumps {
					b, err := os.ReadFile(p(strconv.Itoa(i) + ".npy"))
					if err != nil {
						t.Fatal(err)
					}
					a, err := array.Load(p(strconv.Itoa(i) + ".npy"))
					if err != nil || !bytes.Equal(a.Data, d.want) {
						t.Errorf("%s, %s (noOut %v): dump %s is not the array computed here (%v)", tc.name, ex, noOut, d.spec, err)
					}
					files[k] = append(files[k], b)
				}
			}
			for i := range tc.dumps {
				if !bytes.Equal(files[0][i], files[1][i]) {
					t.Errorf("%s, %s: dump %s written in place differs from the one written as before", tc.name, ex, tc.dumps[i].spec)
				}
			}
		}
	}
	if left, _ := filepath.Glob(p(".ndma-*")); len(left) > 0 {
		t.Errorf("staged files left: %v", left)
	}
}

// A failed run or a failed dump leaves no output and no staged file, the
// mapped ones included (all or none).
func TestDumpInPlaceAllOrNone(t *testing.T) {
	dir := t.TempDir()
	canMapOutput(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	saveNPY(t, p("u8.npy"), "|u1", []int{1 << 20}, randBytes(1<<20, 6))
	prog := p("w.s")
	os.WriteFile(prog, []byte(".gen cayman\ndmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[16, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[16, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the run faults", []string{"--max-bytes", "1000", "--dump", "hbm:0x10000000:u8:1048576=" + p("a.npy")}, "1000"},
		{"the second dump is refused", []string{"--dump", "hbm:0x10000000:u8:1048576=" + p("a.npy"), "--dump", "hbm:0x1effff0000:u8:1048576=" + p("b.npy")}, "b.npy"},
	} {
		for _, ex := range []string{"ref", "sim"} {
			args := append([]string{"--exec", ex, "--load", "hbm:0x0=" + p("u8.npy")}, tc.args...)
			_, err := runDumps(false, append(args, prog)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s, %s: err = %v, want one naming %q", tc.name, ex, err, tc.want)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if n := e.Name(); n != "u8.npy" && n != "w.s" {
					t.Errorf("%s, %s: %s left behind", tc.name, ex, n)
				}
			}
		}
	}
}

// A dump written in place is a staged file as any other: 0666 less the
// umask, written through a symlink (the link stays), and a device output
// (/dev/null) is written directly, never mapped.
func TestDumpInPlaceOutputs(t *testing.T) {
	dir := t.TempDir()
	canMapOutput(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	data := randBytes(1<<20, 7)
	saveNPY(t, p("u8.npy"), "|u1", []int{1 << 20}, data)
	prog := p("w.s")
	os.WriteFile(prog, []byte(".gen cayman\ndmamemcpy src_start_addr=hbm:0x100, src_step_elem=[0x10000, 0], src_num_elem=[8, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[8, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8\n"), 0o644)
	if err := os.WriteFile(p("real.npy"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.npy", p("link.npy")); err != nil {
		t.Fatal(err)
	}
	mapped, err := runDumps(false, "--load", "hbm:0x0="+p("u8.npy"), "--dump", "hbm:0x10000000:u8:524288="+p("link.npy"), "--dump", "hbm:0x10000000:u8:524288="+p("fresh.npy"), prog)
	if err != nil || mapped != 2 {
		t.Fatalf("err %v, %d dumps mapped, want 2", err, mapped)
	}
	if st, err := os.Lstat(p("link.npy")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.npy is no longer a symlink (%v)", err)
	}
	for _, f := range []string{"real.npy", "fresh.npy"} {
		a, err := array.Load(p(f))
		if err != nil || !bytes.Equal(a.Data, data[0x100:0x100+1<<19]) {
			t.Errorf("%s: not the copied bytes (%v)", f, err)
		}
		if st, err := os.Stat(p(f)); err != nil || st.Mode().Perm() != 0o666&^umask() {
			t.Errorf("%s: mode %v, want %v", f, st.Mode().Perm(), 0o666&^umask())
		}
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		mapped, err := runDumps(false, "--load", "hbm:0x0="+p("u8.npy"), "--dump", "hbm:0x10000000:u8:524288=/dev/null", prog)
		if err != nil || mapped != 0 {
			t.Errorf("/dev/null: err %v, %d dumps mapped, want 0", err, mapped)
		}
	}
}

// shrunkDump is a dump of n bytes mapped in place whose staged file is
// then truncated to nothing, and the mappings that know it as out.npy.
func shrunkDump(t *testing.T, n int) (*outMap, *mappings) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), ".ndma-x")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := mapOutput(tmp, []byte("header"), n)
	if o == nil {
		t.Skip("no mapped output here")
	}
	t.Cleanup(func() { o.close() })
	ms := new(mappings)
	ms.addOut("out.npy", o.data)
	if err := os.Truncate(tmp, 0); err != nil {
		t.Fatal(err)
	}
	return o, ms
}

const shrankMsg = "--dump out.npy: its staged file shrank while the run wrote it in place"

// A fault on a dump's mapping (its staged file truncated under the run) is
// an error naming the --dump file, not a crash.
func TestDumpMappingShrinks(t *testing.T) {
	o, ms := shrunkDump(t, 1<<18)
	err := ms.guard(func() error {
		for i := o.hdr; i < len(o.data); i += 4096 {
			o.data[i] = 1
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), shrankMsg) {
		t.Fatalf("err = %v", err)
	}
}

// The same where the writes come from the fp32 kernels' worker goroutines
// (an in-flight ADD of 2 M scalars or more runs on every CPU): the fault in
// a worker comes back to the guard as the dump's error, not as a fatal
// error of the process (found by review).
func TestDumpMappingShrinksUnderWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 16 << 20
	o, ms := shrunkDump(t, n)
	src := make([]byte, n)
	err := ms.guard(func() error {
		return num.ApplySlice(num.OpAdd, num.FP32, num.FP32, o.data[o.hdr:o.hdr+n-64], src[:n-64])
	})
	if err == nil || !strings.Contains(err.Error(), shrankMsg) {
		t.Fatalf("err = %v", err)
	}
}

// FuzzDumpInPlace: any two HBM dumps (any start, length and dtype, in and
// around a loaded array, a copy's destination and never-written memory)
// written in place are byte for byte the dumps written as before.
func FuzzDumpInPlace(f *testing.F) {
	f.Add(uint32(0), uint32(1<<20), uint32(0x50010), uint32(0xa0000), false)
	f.Add(uint32(0x1234), uint32(3<<16+0x777), uint32(0), uint32(64), true)
	f.Add(uint32(0xfff00), uint32(0x30000), uint32(0x1ffff), uint32(0x20001), false)
	dir := f.TempDir()
	tmp := filepath.Join(dir, ".ndma-probe")
	os.WriteFile(tmp, nil, 0o644)
	if o := mapOutput(tmp, []byte("h"), 1<<16); o == nil {
		f.Skip("no dump written in place on this filesystem")
	} else {
		o.close()
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	saveNPY(f, p("u8.npy"), "|u1", []int{1 << 20}, randBytes(1<<20, 8))
	// the array loaded at dstHBM+0x80000, 12 pages of it copied from 0x100 to dstHBM (not shared), 4 page to page (shared)
	os.WriteFile(p("w.s"), []byte(".gen cayman\n"+
		"dmamemcpy src_start_addr=hbm:0x10080100, src_step_elem=[0x10000, 0], src_num_elem=[12, 1], src_elem_size=0, dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[12, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8\n"+
		"dmamemcpy src_start_addr=hbm:0x10080000, src_step_elem=[0x10000, 0], src_num_elem=[4, 1], src_elem_size=0, dst_start_addr=hbm:0x10180000, dst_step_elem=[0x10000, 0], dst_num_elem=[4, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8\n"), 0o644)
	f.Fuzz(func(t *testing.T, off1, n1, off2, n2 uint32, sim bool) {
		const span = 0x200000 // two MiB from dstHBM - 64 KiB
		ex := map[bool]string{false: "ref", true: "sim"}[sim]
		o1, o2 := int(off1%span), int(off2%span)
		l1, l2 := 1+int(n1)%(span-o1), 1+int(n2)%(span-o2)
		spec := func(o, l int) string {
			if l%4 == 0 && o%3 == 0 {
				return fmt.Sprintf("hbm:%#x:fp32:%d", dstHBM-0x10000+o, l/4)
			}
			return fmt.Sprintf("hbm:%#x:u8:%d", dstHBM-0x10000+o, l)
		}
		want := 0 // the dumps holding a whole page: those mapped
		for _, d := range [][2]int{{o1, l1}, {o2, l2}} {
			a := dstHBM - 0x10000 + d[0]
			if (a+0xffff)&^0xffff+0x10000 <= a+d[1] {
				want++
			}
		}
		var files [2][2][]byte
		for k, noOut := range []bool{false, true} {
			mapped, err := runDumps(noOut, "--exec", ex, "--load", fmt.Sprintf("hbm:%#x=%s", dstHBM+0x80000, p("u8.npy")),
				"--dump", spec(o1, l1)+"="+p("a.npy"), "--dump", spec(o2, l2)+"="+p("b.npy"), p("w.s"))
			if err != nil {
				t.Fatal(err)
			}
			if !noOut && mapped != want {
				t.Fatalf("%d dumps mapped, want %d", mapped, want)
			}
			for i, f := range []string{"a.npy", "b.npy"} {
				b, err := os.ReadFile(p(f))
				if err != nil {
					t.Fatal(err)
				}
				files[k][i] = b
			}
		}
		for i := range 2 {
			if !bytes.Equal(files[0][i], files[1][i]) {
				t.Fatalf("%s: dump %d (%s / %s) written in place differs from the one written as before", ex, i, spec(o1, l1), spec(o2, l2))
			}
		}
	})
}
