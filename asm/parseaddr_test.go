package asm

import (
	"strings"
	"testing"

	"ndma/isa"
)

// The address forms a person types (field-tables §11.2 and soc:), worked by
// hand on CAYMAN: 256 KiB SBUF stride, PSUM at 0x2000000 with a 32 KiB stride.
func TestParseAddress(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		err  string
	}{
		{in: "0x40010", want: 0x40010},
		{in: "sbuf:1:0x10", want: 0x40010},
		{in: "psum:2:0x8", want: 0x2010008},
		{in: "hbm:0x10", want: 0x1_0000_0010},
		{in: "soc:0x2000040010", want: 0x40010},
		{in: " SOC:0x2802010008 ", want: 0x2010008},
		{in: "soc:0x100000010", want: 0x1_0000_0010},
		{in: "soc:0x3000000000", err: "SoC address of core 1"},
		{in: "soc:0x2800000000", err: "no core's SBUF or PSUM window"},
		{in: "soc:", err: `address "soc:"`},
		{in: "sbuf:200:0", err: "partition"},
	}
	for _, tc := range tests {
		got, err := ParseAddress(isa.Cayman, tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseAddress(%q) = %#x, %v; want %#x", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseAddress(%q) = %#x, %v; want an error containing %q", tc.in, got, err, tc.err)
		}
	}
}
