package suggest

import (
	"slices"
	"strings"
	"testing"
)

// distances worked by hand: each is the fewest single-byte edits (a swap of
// neighbours counting one).
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0},
		{"kitten", "sitting", 3}, {"a_vek", "a_vec", 1}, {"ab", "ba", 1},
		{"dma_transpoze", "dma_transpose", 1}, {"tensor_tensr", "tensor_tensor", 1},
		{"float23", "float32", 1}, {"trn2", "trn1", 1},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestUnknown(t *testing.T) {
	for _, c := range []struct {
		got   string
		valid []string
		near  []string
	}{
		{"a_vek", []string{"a_vec", "b_vec", "out"}, []string{"a_vec", "b_vec"}},
		{"DMA_TRANSPOZE", []string{"DMAMEMCPY", "DMA_TRANSPOSE", "DMA_INDIRECT"}, []string{"DMA_TRANSPOSE"}},
		{"zzzzzz", []string{"sunda", "cayman"}, nil},
		{"fp3", []string{"fp32", "fp16", "bf16"}, []string{"fp32"}},  // fp16 is two edits from a 3-byte name
		{"xx", []string{"DGETable0", "SB", "x", "y"}, []string{"x"}}, // SB is two
		{"float23", []string{"FP32", "float32", "float16"}, []string{"float32", "float16"}},
	} {
		e := Unknown("name", c.got, c.valid)
		if !slices.Equal(e.Near, c.near) {
			t.Errorf("Nearest(%q) = %q, want %q", c.got, e.Near, c.near)
		}
		msg := e.Error()
		for _, v := range c.valid {
			if !strings.Contains(msg, v) {
				t.Errorf("%q does not list %q", msg, v)
			}
		}
		if len(c.near) > 0 && !strings.Contains(msg, "did you mean "+c.near[0]) {
			t.Errorf("%q does not suggest %q", msg, c.near[0])
		}
	}
	if msg := Unknown("input", "x", nil).Error(); !strings.Contains(msg, "there are none") {
		t.Errorf("empty list: %q", msg)
	}
	long := make([]string, 50)
	for i := range long {
		long[i] = strings.Repeat("n", i+1)
	}
	if msg := Unknown("x", "q", long).Error(); !strings.Contains(msg, "(50 in all)") {
		t.Errorf("long list not cut: %q", msg)
	}
}
