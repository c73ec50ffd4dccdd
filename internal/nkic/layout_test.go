package nkic

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Placement refusals of a tensor's own partition and offset (docs/nki.md
// "Program form"): an SBUF has 128 partitions (docs/field-tables.md, "SBUF
// partitions"), so a 4-partition tile may start at partitions 0..124 only;
// an HBM tensor must end inside the HBM window. The partition near 2^63
// once wrapped partition+4 negative, passed the check and was refused only
// at relocation, as an address nobody wrote.
func TestPlacementRefused(t *testing.T) {
	prog := func(tensor string) string {
		return `{"target":"trn2","tensors":[` + tensor + `],"calls":[]}`
	}
	sbuf := func(part int64) string {
		return prog(fmt.Sprintf(`{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,4],"partition":%d}`, part))
	}
	for _, tc := range []struct {
		name, src, want string // want "": placed
	}{
		{"first partition", sbuf(0), ""},
		{"last four partitions", sbuf(124), ""},
		{"one partition past", sbuf(125), `tensor "t": 4 partitions from partition 125: the buffer has 128`},
		{"negative partition", sbuf(-1), `tensor "t": 4 partitions from partition -1: the buffer has 128`},
		{"partition wrapping int64", sbuf(math.MaxInt64), fmt.Sprintf(`tensor "t": 4 partitions from partition %d: the buffer has 128`, int64(math.MaxInt64))},
		{"partition wrapping to 0", sbuf(math.MaxInt64 - 3), fmt.Sprintf(`4 partitions from partition %d`, int64(math.MaxInt64-3))},
		{"hbm offset at 2^63", prog(fmt.Sprintf(`{"name":"a","buffer":"hbm","dtype":"float32","shape":[4,4],"offset":%d}`, int64(math.MaxInt64))), "pass the HBM window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.src))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrProgram) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrProgram with %q", err, tc.want)
			}
		})
	}
}

// A copy's access pattern against a [8, 4] float32 HBM tensor (32
// elements, flat indices 0..31): its reach is offset + Σ step·(count−1)
// over the dims, worked by hand per case. Offsets, dims and element counts
// past int64 once wrapped: an offset of 2^63−1 reached the relocation as a
// stray address, 2^40 steps × 2^31 wrapped the reach negative (refused
// only by a word field's width), and four dims of 2^16 multiplied to 0
// elements and compiled. Now each is refused at the pattern, by name.
func TestPatternReachRefused(t *testing.T) {
	prog := func(src, dst, oob string) string {
		return `{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,4],"kind":"input"},` +
			`{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,4],"kind":"output"}],` +
			`"calls":[{"op":"dma_copy","dst":` + dst + `,"src":` + src + `,"oob_mode":"` + oob + `"}]}`
	}
	whole := `{"tensor":"o"}`
	for _, tc := range []struct {
		name, src, dst, oob string
		want                string // "": compiles; "skip": compiles to a skipped call
		oobIndex            int64  // want an OOBError of this index instead
	}{
		{"last 32 elements", `{"tensor":"a","pattern":[[4,8],[1,4]],"offset":0}`, whole, "error", "", 0},
		{"elements 1..32", `{"tensor":"a","pattern":[[4,8],[1,4]],"offset":1}`, whole, "error", `elements 1..32 are outside the tensor's 32`, 0},
		{"offset 2^63-1", fmt.Sprintf(`{"tensor":"a","pattern":[[4,8],[1,4]],"offset":%d}`, int64(math.MaxInt64)), whole, "error",
			fmt.Sprintf(`src on "a": offset %d elements is outside the tensor's 32`, int64(math.MaxInt64)), 0},
		{"offset -2^63", fmt.Sprintf(`{"tensor":"a","offset":%d}`, int64(math.MinInt64)), whole, "error",
			fmt.Sprintf(`src on "a": offset %d elements is outside the tensor's 32`, int64(math.MinInt64)), 0},
		{"2^31 steps of 2^40", `{"tensor":"a","pattern":[[1099511627776,2147483648],[0,512]]}`, `{"tensor":"o","pattern":[[0,2147483648],[0,512]]}`, "error",
			`src on "a": pattern dimension 0 (2147483648 steps of 1099511627776) reaches past the tensor's 32 elements`, 0},
		{"2^64 elements", `{"tensor":"a","pattern":[[0,65536],[0,65536],[0,65536],[0,65536]]}`, `{"tensor":"o","pattern":[[0,65536],[0,65536],[0,65536],[0,65536]]}`, "error",
			`dst: the pattern walks more than 2^40 elements`, 0},
		{"scalar offset 1 of a whole tensor", `{"tensor":"a","scalar_offset":1}`, whole, "error", "", 1},
		{"scalar offset 2^63-1", fmt.Sprintf(`{"tensor":"a","scalar_offset":%d}`, int64(math.MaxInt64)), whole, "error", "", math.MaxInt64},
		{"scalar offset 2^63-1 skipped", fmt.Sprintf(`{"tensor":"a","scalar_offset":%d}`, int64(math.MaxInt64)), whole, "skip", "skip", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(prog(tc.src, tc.dst, tc.oob)))
			if err != nil {
				t.Fatal(err)
			}
			lws, err := p.Compile()
			var oob *OOBError
			switch {
			case tc.oobIndex != 0:
				if !errors.As(err, &oob) || oob.Index != tc.oobIndex {
					t.Fatalf("err = %v, want an OOBError of index %d", err, tc.oobIndex)
				}
			case tc.want == "" || tc.want == "skip":
				if err != nil {
					t.Fatal(err)
				}
				if skipped := lws[0].skip; skipped != (tc.want == "skip") {
					t.Fatalf("skipped %v", skipped)
				}
			case !errors.Is(err, ErrProgram) || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("err = %v, want ErrProgram with %q", err, tc.want)
			}
		})
	}
}

// A program cut short is refused where the text stops (line and column of
// its end), said as a truncation — before, "line 1 col 1" — and a syntax
// error keeps the decoder's offset.
func TestParseTruncatedSaysWhere(t *testing.T) {
	full := "{\"target\":\"trn2\",\n\"tensors\":[],\n\"calls\":[]}"
	for _, tc := range []struct{ src, want string }{
		{full[:30], "line 2 col 13: unexpected EOF: the text ends inside a value"}, // just past its 12 characters
		{full[:5], "line 1 col 6: unexpected EOF"},
		{"{\"target\":\"trn2\",\n\"tensors\":[x]}", "line 2 col 13: invalid character 'x'"},
	} {
		_, err := Parse(strings.NewReader(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.src, err, tc.want)
		}
	}
}

// A program holding "inf" (read by NumCall) locates a bad call as one
// without it does — line and column in the whole text, the field as
// Call's — not from the call's own first byte with an internal type name.
func TestParseLocatesWithNonFinite(t *testing.T) {
	prog := func(v string) string {
		return "{\"tensors\":[],\"calls\":[{\"op\":\"memset\",\"value\":" + v + "},\n\n  {\"op\":\"memset\",\n \"dst\":5}]}"
	}
	for _, v := range []string{"1", `"inf"`} {
		_, err := Parse(strings.NewReader(prog(v)))
		if err == nil || !strings.Contains(err.Error(), "line 4 col") || !strings.Contains(err.Error(), "Call") || strings.Contains(err.Error(), "plainCall") {
			t.Errorf("value %s: %v; want line 4, field Call.dst", v, err)
		}
	}
	if _, err := Parse(strings.NewReader(`{"tensors":[],"calls":[{"op":"memset","value":"inf"},{"op":"memset","value":[1]}]}`)); err == nil || !strings.Contains(err.Error(), "call 1") {
		t.Errorf("a bad number after an inf: %v; want it named at call 1", err)
	}
}
