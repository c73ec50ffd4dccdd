package device

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// float32 data for a float16 input (the sample's x, fp16 [128 256]) is
// rounded to fp16 as a DMA cast rounds, to nearest even — given whole or
// streamed in 3-byte pieces (elements split across pieces) — as kernel.In
// and Python's run take it. Bits by hand: 1 → 0x3c00, 0.5 → 0x3800, 1/3
// → 0x3555, 65504 (fp16's largest) → 0x7bff, −2.5 → 0xc100, 1e-8 (under
// half the smallest subnormal, 2^-25) → 0, 1 + 2^-11 (a tie) → 0x3c00,
// 1 + 3·2^-11 (a tie) → 0x3c02; other data or another shape is refused.
func TestFloat32InputNarrowed(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	vals := []float32{1, 0.5, 1.0 / 3, 65504, -2.5, 1e-8, 1 + 1.0/2048, 1 + 3.0/2048}
	bits := []uint16{0x3c00, 0x3800, 0x3555, 0x7bff, 0xc100, 0, 0x3c00, 0x3c02}
	const n = 128 * 256
	f32 := make([]byte, 4*n)
	want := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(vals[i%len(vals)]))
		binary.LittleEndian.PutUint16(want[2*i:], bits[i%len(bits)])
	}
	streamed := Input{Descr: "<f4", Shape: []int{128, 256}, Size: 4 * n, ReadInto: func(fill func([]byte, int64) error) error {
		for off := 0; off < len(f32); off += 3 {
			if err := fill(f32[off:min(off+3, len(f32))], int64(off)); err != nil {
				return err
			}
		}
		return nil
	}}
	for name, x := range map[string]Input{"whole": {Descr: "<f4", Shape: []int{128, 256}, Data: f32}, "streamed": streamed} {
		im, err := Load(isa.Cayman, f, sgs, map[string]Input{"x": x})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := im.Var("x")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(want); i += 2 {
			if got[i] != want[i] || got[i+1] != want[i+1] {
				t.Fatalf("%s: element %d (%v): %#04x, by hand %#04x", name, i/2, vals[i/2%len(vals)], binary.LittleEndian.Uint16(got[i:]), binary.LittleEndian.Uint16(want[i:]))
			}
		}
	}
	for name, x := range map[string]Input{
		"float64":     {Descr: "<f8", Shape: []int{128, 256}, Data: make([]byte, 8*n)},
		"int32":       {Descr: "<i4", Shape: []int{128, 256}, Data: make([]byte, 4*n)},
		"shape":       {Descr: "<f4", Shape: []int{256, 128}, Data: f32},
		"short data":  {Descr: "<f4", Shape: []int{128, 256}, Data: f32[:4*n-4]},
		"long stream": {Descr: "<f4", Shape: []int{128, 256}, Size: 4*n + 2, ReadInto: streamed.ReadInto},
	} {
		if _, err := Load(isa.Cayman, f, sgs, map[string]Input{"x": x}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A load that already holds more HBM than Options.MaxMemory is refused
// before any word runs, said of the load (the sample's identity file
// variable is one 64 KiB page) — not blamed on the first word to run.
func TestMemoryCapBeforeAnyWord(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	im, err := Load(isa.Cayman, f, sgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := im.Run(NEFFOptions{Exec: Sim, MaxMemory: 10})
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "before any word runs") {
		t.Fatalf("%v; want ErrMemory before any word runs", err)
	}
	if res != nil {
		for _, sg := range res.Subgraphs {
			if sg.Stats.Words > 0 {
				t.Errorf("%s ran %d words", sg.Name, sg.Stats.Words)
			}
		}
	}
	if _, err := im.Run(NEFFOptions{Exec: Sim, MaxMemory: 64 << 20}); err != nil {
		t.Errorf("under a cap it fits: %v", err)
	}
}

// A fired block's descriptor outside its variable is one problem, said
// where it fires (the trigger's offset): the def.json pass found it too,
// unlocated, and check listed it twice.
func TestCheckProblemOnce(t *testing.T) {
	p := neffgen.HWVectorAdd("cayman")
	for e := range p.Subgraphs[0].Engines {
		for b := range p.Subgraphs[0].Engines[e].DMA {
			if blk := &p.Subgraphs[0].Engines[e].DMA[b]; blk.Queue == "qPoolIO0" && blk.ID == 1 {
				blk.Desc[0].ToOff = 600000 // 4000-byte rows of 8000 past out's 1,024,000 bytes
			}
		}
	}
	f, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	problems, _, err := Check(isa.Cayman, f, sgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Offset < 0 || !strings.Contains(problems[0].Msg, `outside "out"`) {
		t.Fatalf("problems %v; want one, at the trigger's offset", problems)
	}
}
