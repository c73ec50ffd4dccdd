package isa

import "testing"

// Issue 16 item 5: DMA_ADDR_MODE as source 000 §3b spells it.
//
// 000 §3b: "The 12-entry DMA_ADDR_MODE enum (common.h:1061) per addressing
// leg (addr_mode packs src in the low nibble, dst in the high): IMM64=0x0 /
// REG_PAIR=0x1 / REG_IMM_OFFSET32=0x2 / …32I=0x3 / REG_REG_OFFSET32=0x4 /
// …32I=0x5 / REG_REG_OFFSET64=0x6 / …64I=0x7 / REG_REG_IMM_SCALE=0x8 / …_I=0x9
// / REG_REG_REG_SCALE=0xa / …_I=0xb"
func TestDMAAddrModeNames(t *testing.T) {
	printed := map[uint64]string{
		0x0: "IMM64", 0x1: "REG_PAIR", 0x2: "REG_IMM_OFFSET32", 0x3: "REG_IMM_OFFSET32I",
		0x4: "REG_REG_OFFSET32", 0x5: "REG_REG_OFFSET32I", 0x6: "REG_REG_OFFSET64", 0x7: "REG_REG_OFFSET64I",
		0x8: "REG_REG_IMM_SCALE", 0x9: "REG_REG_IMM_SCALE_I", 0xa: "REG_REG_REG_SCALE", 0xb: "REG_REG_REG_SCALE_I",
	}
	if len(dmaAddrModeEnum.Values) != 12 {
		t.Fatalf("DMA_ADDR_MODE has %d values, 000 §3b says 12", len(dmaAddrModeEnum.Values))
	}
	for v, want := range printed {
		ev, ok := dmaAddrModeEnum.Lookup(v)
		if !ok || ev.Name != want {
			t.Errorf("DMA_ADDR_MODE %#x prints %q, want %q", v, ev.Name, want)
		}
		if got, ok := dmaAddrModeEnum.Parse(want); !ok || got != v {
			t.Errorf("Parse(%q) = %#x, %v", want, got, ok)
		}
	}
	// field-tables §5.3: "0x3 REG_IMM_OFFSET32_I, … 0x5 REG_REG_OFFSET32_I,
	// … 0x7 REG_REG_OFFSET64_I" — accepted on input, never printed.
	for alias, v := range map[string]uint64{"REG_IMM_OFFSET32_I": 3, "reg_reg_offset32_i": 5, "REG_REG_OFFSET64_I": 7} {
		if got, ok := dmaAddrModeEnum.Parse(alias); !ok || got != v {
			t.Errorf("alias Parse(%q) = %#x, %v; want %#x", alias, got, ok, v)
		}
		if got, err := dmaAddrModeEnum.ParseFor(alias, Maverick); err != nil || got != v {
			t.Errorf("alias ParseFor(%q) = %#x, %v", alias, got, err)
		}
	}
}
