package isa_test

import (
	"bytes"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
)

// computeOps are the opcodes docs/compute.md gives layouts for.
var computeOps = []isa.Opcode{0x01, 0x02, 0x21, 0x23, 0x41, 0x51, 0x43, 0x53, 0x42, 0x46, 0x47, 0x49, 0xa0, 0xa4, 0xb1, 0xcc}

// Every word of both sample NEFFs' engine streams (neff.Parse, Subgraphs):
// no word of a compute opcode falls back to RAW on the file's generation,
// and each re-encodes to its exact bytes. For matmul_small, the PE words
// hold the values docs/compute.md §4.1, §5.1 and §5.6 state.
func TestComputeWordsOfSampleNEFFs(t *testing.T) {
	want := map[isa.Opcode]bool{}
	for _, op := range computeOps {
		want[op] = true
	}
	for _, name := range []string{"matmul_small.neff", "matmul_large.neff"} {
		f, err := neff.Parse(samples.Read(t, name), neff.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, gen := f.Target()
		sgs, err := f.Subgraphs()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		count := map[isa.Opcode]int{}
		var mm, lw, cp []isa.Inst
		for _, sg := range sgs {
			for _, en := range sg.Engines {
				d := isa.NewDecoder(gen, en.Code)
				for d.Next() {
					in := d.Inst()
					op := in.Opcode()
					if !want[op] {
						continue
					}
					count[op]++
					if in.Layout() == isa.Raw() {
						t.Errorf("%s %s/%s@%#x: %s decodes RAW on %s", name, sg.Name, en.Key, d.Offset(), op, gen)
					}
					got, err := isa.AppendEncoded(nil, *in)
					if err != nil || !bytes.Equal(got, en.Code[d.Offset():d.Offset()+in.Size()]) {
						t.Errorf("%s %s/%s@%#x: %s re-encodes differently", name, sg.Name, en.Key, d.Offset(), op)
					}
					switch op {
					case 0x01:
						lw = append(lw, *in)
					case 0x02:
						mm = append(mm, *in)
					case 0x46:
						cp = append(cp, *in)
					}
				}
				if err := d.Err(); err != nil {
					t.Errorf("%s %s/%s: %v", name, sg.Name, en.Key, err)
				}
			}
		}
		t.Logf("%s (%s): compute words by opcode %v", name, gen, count)
		if count[0x01] == 0 || count[0x02] == 0 || count[0xb1] == 0 {
			t.Errorf("%s: no LDWEIGHTS/MATMUL/SET_ORDERING_MODE words: %v", name, count)
		}
		if name == "matmul_small.neff" {
			checkMatmulSmall(t, gen, lw, mm, cp)
		}
	}
}

func u(t *testing.T, in *isa.Inst, path string) uint64 {
	t.Helper()
	v, err := in.Uint(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// checkMatmulSmall holds the PE words to docs/compute.md §4.1, §5.1, §5.5, §5.6.
func checkMatmulSmall(t *testing.T, gen isa.Gen, lw, mm, cp []isa.Inst) {
	if gen != isa.Cayman {
		t.Fatalf("matmul_small is a CAYMAN NEFF, target says %s", gen)
	}
	flags := map[uint64]int{}
	for i := range mm {
		in := &mm[i]
		f := u(t, in, "psum_accumulate_flags")
		flags[f]++
		for path, v := range map[string]uint64{
			"in_dtype": uint64(isa.DTypeFP16), "fp32_mode": 0, "out_dtype": 0, "perf_opt": 0, "psum_zero_region": 0,
			"num_active_rows": 128, "num_active_cols": 128, "row_grp": 0x0f, "col_grp": 0x0f,
		} {
			if got := u(t, in, path); got != v {
				t.Errorf("MATMUL %d: %s = %d, want %d (§5.1)", i, path, got, v)
			}
		}
		if u(t, in, "transpose_mode") == 1 && f != 3 {
			t.Errorf("MATMUL %d: a transpose with flags %d, want 3 (§5.2)", i, f)
		}
		if a := u(t, in, "dst_mem_pattern.start_addr"); a < 0x2000000 || a >= 0x2400000 {
			t.Errorf("MATMUL %d: dst %#x is not in PSUM (§3.2)", i, a)
		}
		if a := u(t, in, "src_mem_pattern.start_addr"); a >= 0x2000000 {
			t.Errorf("MATMUL %d: src %#x is not in SBUF (§5.1)", i, a)
		}
	}
	// §5.6: transposes (SINGLE), then an accumulating group START … END.
	for _, f := range []uint64{1, 2, 3} {
		if flags[f] == 0 {
			t.Errorf("no MATMUL with psum_accumulate_flags %d: %v (§5.6)", f, flags)
		}
	}
	xpose := 0
	for i := range lw {
		in := &lw[i]
		if got := u(t, in, "num_active_cols"); got != 128 {
			t.Errorf("LDWEIGHTS %d: num_active_cols %d, want 128 (§4.1)", i, got)
		}
		if s, _ := in.Int("src_mem_pattern.step_elem[0]"); s >= 0 {
			t.Errorf("LDWEIGHTS %d: step_elem[0] = %d; every load walks backwards (§4.2)", i, s)
		}
		if u(t, in, "in_dtype") != uint64(isa.DTypeFP16) || u(t, in, "fp32_mode") != 0 {
			t.Errorf("LDWEIGHTS %d: in_dtype/fp32_mode not FP16/NONE (§4.1)", i)
		}
		xpose += int(u(t, in, "transpose_mode"))
	}
	if xpose == 0 || 2*xpose != len(lw) { // per logical core: two transposes, two weight loads
		t.Errorf("%d of %d weight loads are transposes, want half (§5.6)", xpose, len(lw))
	}
	int32Copy := false
	for i := range cp {
		in := &cp[i]
		if u(t, in, "in_dtype") == uint64(isa.DTypeInt32) && u(t, in, "out_dtype") == uint64(isa.DTypeInt32) {
			int32Copy = true
		}
	}
	if !int32Copy {
		t.Errorf("no INT32 reinterpreting COPY (§5.6, §9.3)")
	}
}
