package device_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sim"
)

// executor is one of the two executors fired words run on: the reference
// or the descriptor engines.
type executor struct {
	name string
	do   func(*isa.Inst) error
	mem  *mem.Memory
}

// executors are a new reference and simulator of gen, the simulator's ring
// ring descriptors long (0: its default).
func executors(gen isa.Gen, ring int) []executor {
	rm, sm := ref.New(gen), sim.New(gen)
	sm.RingSize = ring
	return []executor{{"ref", rm.Exec, rm.Mem}, {"sim", sm.Exec, sm.Mem}}
}

// write puts b at addr of x's memory.
func (x executor) write(t *testing.T, addr uint64, b []byte) {
	t.Helper()
	if err := x.mem.Write(addr, b); err != nil {
		t.Fatal(err)
	}
}

// run executes words on x, failing t (with what, the case) at the first
// word x refuses.
func (x executor) run(t *testing.T, what string, words []isa.Inst) {
	t.Helper()
	for i := range words {
		if err := x.do(&words[i]); err != nil {
			t.Fatalf("%s: word %d (%s): %v", strings.TrimSpace(x.name+" "+what), i, words[i].Def().Mnemonic(), err)
		}
	}
}

// sides reads the fields a DMA_DIRECT2D and a DMA_TRANSPOSE share, as
// field-tables §3.2 / §3.6 name them: both start addresses, steps and
// counts.
func sides(w *isa.Inst, src, dst *uint64, srcStep, dstStep, srcNum, dstNum *[2]int64) {
	*src, _ = w.Uint("src_start_addr")
	*dst, _ = w.Uint("dst_start_addr")
	for i := 0; i < 2; i++ {
		srcStep[i], _ = w.Int(fmt.Sprintf("src_step_elem[%d]", i))
		dstStep[i], _ = w.Int(fmt.Sprintf("dst_step_elem[%d]", i))
		srcNum[i], _ = w.Int(fmt.Sprintf("src_num_elem[%d]", i))
		dstNum[i], _ = w.Int(fmt.Sprintf("dst_num_elem[%d]", i))
	}
}

// randomBytes is n bytes of the PCG of seeds a, b.
func randomBytes(n int, a, b uint64) []byte {
	out := make([]byte, n)
	r := rand.New(rand.NewPCG(a, b))
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}
