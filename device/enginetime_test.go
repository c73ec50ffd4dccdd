package device

import (
	"slices"
	"strings"
	"testing"

	"ndma/isa"
)

// EngineTime reads what --engine-time and Python's engine_time give: a
// mnemonic or number and a duration in Go's form or bare ns; its list of
// valid opcodes names none it refuses (no DMA word, no pseudo word a run
// resolves to DMA words).
func TestEngineTime(t *testing.T) {
	for _, tc := range []struct {
		name, dur string
		op        isa.Opcode
		ns        int64
		err       string
	}{
		{"TENSOR_TENSOR", "1.2us", 0x41, 1200, ""},
		{"0x41", "1200", 0x41, 1200, ""},
		{"MATMUL", "1µs", 0x02, 1000, ""},
		{"MATMUL", "2ms", 0x02, 2_000_000, ""},
		{"MATMUL", "-1", 0, 0, "want 0 to 1h"},
		{"MATMUL", "2h", 0, 0, "want 0 to 1h"},
		{"MATMUL", "fast", 0, 0, `duration "fast"`},
		{"MATMULL", "1us", 0, 0, `unknown opcode "MATMULL" (did you mean MATMUL?)`},
		{"DMAMEMCPY", "1us", 0, 0, "ndma computes DMAMEMCPY"},
		{"PSEUDO_DMA_TRIGGER", "1us", 0, 0, "as the DMA words it resolves to"},
	} {
		op, ns, err := EngineTime(tc.name, tc.dur)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s=%s: %v; want %q", tc.name, tc.dur, err, tc.err)
			}
			continue
		}
		if err != nil || op != tc.op || ns != tc.ns {
			t.Errorf("%s=%s: %v %d %v; want %v %d", tc.name, tc.dur, op, ns, err, tc.op, tc.ns)
		}
	}
	listed := timedOpcodes()
	for _, name := range listed {
		if _, _, err := EngineTime(name, "1us"); err != nil {
			t.Errorf("listed %s, refused: %v", name, err)
		}
	}
	for _, name := range []string{"DMAMEMCPY", "PSEUDO_DMA_TRIGGER", "PSEUDO_DMA_DIRECT2D"} {
		if slices.Contains(listed, name) {
			t.Errorf("%s listed: EngineTime refuses it", name)
		}
	}
}
