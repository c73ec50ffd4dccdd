package sim

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ndma"
	"ndma/asm"
	"ndma/isa"
	"ndma/ref"
	"ndma/sdma"
)

// bd builds a 16-byte descriptor by hand from field-tables §6.1 as ndma
// reads it: u32 0 = length (bits 0–15, 0 = 64 KiB), ring_phase (24–25),
// first (26), last (27), int_en (28); u32 1 = op (bits 6–8: DRE 1, CME 2,
// CCE 4), optype (9–11), endian_type (18–25: in dtype low nibble, out high);
// bytes 8–15 = buf_ptr (SoC address).
func bd(length int, phase int, first, last, intEn bool, op, optype int, in, out uint8, buf uint64) sdma.Desc {
	var d sdma.Desc
	w0 := uint32(length&0xffff) | uint32(phase)<<24
	if first {
		w0 |= 1 << 26
	}
	if last {
		w0 |= 1 << 27
	}
	if intEn {
		w0 |= 1 << 28
	}
	w1 := uint32(op)<<6 | uint32(optype)<<9 | (uint32(in)|uint32(out)<<4)<<18
	binary.LittleEndian.PutUint32(d[0:], w0)
	binary.LittleEndian.PutUint32(d[4:], w1)
	binary.LittleEndian.PutUint64(d[8:], buf)
	return d
}

func copyBD(n, phase int, buf uint64) sdma.Desc {
	return bd(n, phase, false, false, false, sdma.OpCME, sdma.CMECopy, 0, 0, buf)
}

const (
	hbm     = 0x1_0000_0000 // Neuron = SoC address of HBM (§11.2)
	socSBUF = 0x20_0000_0000
	socInc  = 0x28_0270_1800 // EVT_SEM INC window of core 0 (§7)
)

// The hand-built descriptors read back through sdma's accessors as built.
func TestBDLayout(t *testing.T) {
	d := bd(0x1234, 1, true, false, true, sdma.OpCCE, sdma.CCEMax, 0x0A, 0x07, 0x20_0008_0040)
	in, out := d.Dtypes()
	if d.Length() != 0x1234 || d.Phase() != 1 || !d.First() || d.Last() || !d.IntEn() || d.Op() != sdma.OpCCE ||
		d.OpType() != sdma.CCEMax || in != 0x0A || out != 0x07 || d.BufPtr() != 0x20_0008_0040 {
		t.Fatalf("descriptor fields read back wrong: %s", &d)
	}
	if d := bd(0, 1, true, true, false, sdma.OpCME, 0, 0, 0, hbm); d.Length() != 65536 {
		t.Fatalf("length 0 reads %d, want 65536", d.Length())
	}
}

// Two M2S reads gathered into one S2M write in SBUF, then the completion
// descriptor adds the queue's share to semaphore 7.
func TestGatherIntoSBUFWithCompletion(t *testing.T) {
	x := New(isa.Cayman)
	x.Mem.Write(hbm+0x100, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	x.Mem.Write(hbm+0x200, []byte{9, 10, 11, 12, 13, 14, 15, 16})
	w := Work{SemInc: 5, Queue: sdma.Queue{
		DMA:       3,
		M2S:       []sdma.Desc{copyBD(8, 1, hbm+0x100), copyBD(8, 1, hbm+0x200)},
		S2M:       []sdma.Desc{copyBD(16, 1, socSBUF+2<<18+0x40), bd(4, 1, true, true, true, sdma.OpCME, 0, 0, 0, socInc+4*7)},
		Doorbells: []sdma.Doorbell{{DMA: 3, Reg: "TDRTP_inc", Value: 2}, {DMA: 3, Reg: "RDRTP_inc", Value: 2}},
	}}
	if err := x.RunWork("test", []Work{w}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	x.Mem.Read(2<<18+0x40, got)
	if want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sbuf partition 2 @0x40 = %v, want %v", got, want)
	}
	if x.Mem.Sems[7] != 5 || x.Stats.Descriptors != 4 || x.Stats.QueueBytes[3] != 16 {
		t.Fatalf("$S[7] = %d, descriptors %d, DMA[3] bytes %d; want 5, 4, 16", x.Mem.Sems[7], x.Stats.Descriptors, x.Stats.QueueBytes[3])
	}
}

// A ring of 4 takes 6 descriptors in two doorbells: slots 0–3 on lap 0
// (phase 1), then slots 0–1 again on lap 1 (phase 0).
func TestRingWrapAndPhase(t *testing.T) {
	build := func(phases [6]int) Work {
		var m2s []sdma.Desc
		for i, p := range phases {
			m2s = append(m2s, copyBD(2, p, hbm+uint64(2*i)))
		}
		return Work{Queue: sdma.Queue{M2S: m2s, S2M: []sdma.Desc{copyBD(12, 1, hbm+0x1000)},
			Doorbells: []sdma.Doorbell{{Reg: "TDRTP_inc", Value: 4}, {Reg: "TDRTP_inc", Value: 2}, {Reg: "RDRTP_inc", Value: 1}}}}
	}
	x := New(isa.Cayman)
	x.RingSize = 4
	src := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	x.Mem.Write(hbm, src)
	if err := x.RunWork("wrap", []Work{build([6]int{1, 1, 1, 1, 0, 0})}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 12)
	x.Mem.Read(hbm+0x1000, got)
	if !reflect.DeepEqual(got, src) {
		t.Fatalf("after the wrap: %v, want %v", got, src)
	}
	// a stale phase on the second lap: refused at M2S[4], nothing written
	y := New(isa.Cayman)
	y.RingSize = 4
	y.Mem.Write(hbm, src)
	before := y.Mem.Snapshot()
	err := y.RunWork("stale", []Work{build([6]int{1, 1, 1, 1, 1, 0})})
	var f *Fault
	if !errors.As(err, &f) || !errors.Is(err, ErrPhase) || f.Leg != "M2S" || f.Desc != 4 || f.Addr != hbm+8 {
		t.Fatalf("stale phase: %v", err)
	}
	if !reflect.DeepEqual(before, y.Mem.Snapshot()) {
		t.Fatal("a refused queue changed memory")
	}
}

// Every refusal names what is wrong and changes nothing.
func TestFaults(t *testing.T) {
	door := func(m, s int) []sdma.Doorbell {
		return []sdma.Doorbell{{Reg: "TDRTP_inc", Value: m}, {Reg: "RDRTP_inc", Value: s}}
	}
	tests := []struct {
		name string
		w    Work
		want string
	}{
		{"overflow", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(1, 1, hbm), copyBD(1, 1, hbm), copyBD(1, 1, hbm)},
			S2M: []sdma.Desc{copyBD(3, 1, hbm+0x100)}, Doorbells: door(3, 1)}}, "ring overflow"},
		{"unmapped", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm)},
			S2M: []sdma.Desc{copyBD(4, 1, 0x28_0000_0000)}, Doorbells: door(1, 1)}}, "S2M[0] buf_ptr 0x2800000000"},
		{"beyond partition", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(16, 1, socSBUF+0x37ff8)},
			S2M: []sdma.Desc{copyBD(16, 1, hbm)}, Doorbells: door(1, 1)}}, "M2S[0] buf_ptr 0x2000037ff8: address 0x37ff8 (+16 bytes, sbuf partition 0 offset 0x37ff8): beyond the 224 KiB"},
		{"imbalance", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm)},
			S2M: []sdma.Desc{copyBD(8, 1, hbm+0x100)}, Doorbells: door(1, 1)}}, "M2S 4 bytes, S2M 8 bytes"},
		{"not doorbelled", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm), copyBD(4, 1, hbm+4)},
			S2M: []sdma.Desc{copyBD(8, 1, hbm+0x100)}, Doorbells: door(1, 1)}}, "2 M2S and 1 S2M descriptors written, 1 and 1 doorbelled"},
		{"semaphore width", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm)},
			S2M: []sdma.Desc{copyBD(4, 1, hbm+0x100), copyBD(8, 1, socInc)}, Doorbells: door(1, 2)}}, "a semaphore write of 8 bytes"},
		{"CCE type", Work{Queue: sdma.Queue{M2S: []sdma.Desc{bd(4, 1, true, true, false, sdma.OpCCE, 6, 0x0A, 0x0A, hbm)},
			S2M: []sdma.Desc{bd(4, 1, true, true, false, sdma.OpCCE, 6, 0x0A, 0x0A, hbm+0x100)}, Doorbells: door(1, 1)}}, "CCE type 6"},
		{"another core", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm)},
			S2M: []sdma.Desc{copyBD(4, 1, socSBUF+0x10_0000_0000)}, Doorbells: door(1, 1)}}, "core 1's memory"},
		{"bad doorbell", Work{Queue: sdma.Queue{M2S: []sdma.Desc{copyBD(4, 1, hbm)},
			S2M: []sdma.Desc{copyBD(4, 1, hbm+0x100)}, Doorbells: []sdma.Doorbell{{Reg: "TDRTP", Value: 1}}}}, `doorbell register "TDRTP"`},
	}
	for _, tc := range tests {
		x := New(isa.Cayman)
		x.RingSize = 2
		x.Mem.Write(hbm, []byte{1, 2, 3, 4, 5, 6, 7, 8})
		before := x.Mem.Snapshot()
		err := x.RunWork("test", []Work{tc.w})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if !reflect.DeepEqual(before, x.Mem.Snapshot()) {
			t.Errorf("%s: a refused queue changed memory", tc.name)
		}
	}
}

// A CCE ADD descriptor: dst fp32 [1, 1] += src fp32 [1.5, 2] → [2.5, 3];
// a CCE EXT (cast) fp32 → bf16 in the same run on another queue.
func TestCCE(t *testing.T) {
	x := New(isa.Cayman)
	f32 := func(v ...float32) []byte {
		var b []byte
		for _, f := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		return b
	}
	x.Mem.Write(hbm, f32(1.5, 2))
	x.Mem.Write(hbm+0x100, f32(1, 1))
	const fp32, bf16 = 0x0A, 0x06 // DTYPE codes, field-tables §5.1
	add := Work{Queue: sdma.Queue{DMA: 0,
		M2S:       []sdma.Desc{bd(8, 1, true, true, false, sdma.OpCCE, sdma.CCEAdd, fp32, fp32, hbm)},
		S2M:       []sdma.Desc{bd(8, 1, true, true, false, sdma.OpCCE, sdma.CCEAdd, fp32, fp32, hbm+0x100)},
		Doorbells: []sdma.Doorbell{{Reg: "TDRTP_inc", Value: 1}, {Reg: "RDRTP_inc", Value: 1}}}}
	cast := Work{Queue: sdma.Queue{DMA: 1,
		M2S:       []sdma.Desc{bd(8, 1, true, true, false, sdma.OpCCE, sdma.CCEExt, fp32, bf16, hbm)},
		S2M:       []sdma.Desc{bd(4, 1, true, true, false, sdma.OpCCE, sdma.CCEExt, fp32, bf16, hbm+0x200)},
		Doorbells: []sdma.Doorbell{{Reg: "TDRTP_inc", Value: 1}, {Reg: "RDRTP_inc", Value: 1}}}}
	if err := x.RunWork("cce", []Work{add, cast}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8)
	x.Mem.Read(hbm+0x100, got)
	if !reflect.DeepEqual(got, f32(2.5, 3)) {
		t.Fatalf("ADD: %x, want %x", got, f32(2.5, 3))
	}
	// bf16 is fp32's top half: 1.5 = 0x3FC0, 2 = 0x4000
	x.Mem.Read(hbm+0x200, got[:4])
	if want := []byte{0xC0, 0x3F, 0x00, 0x40}; !reflect.DeepEqual(got[:4], want) {
		t.Fatalf("EXT fp32→bf16: %x, want %x", got[:4], want)
	}
}

// examples/immediate.s: two raw descriptors — read 512 bytes at HBM
// 0x1_0000_0000, write them at SoC 0x20_0020_0000 = SBUF partition 2
// offset 0 on MAVERICK (1 MiB stride, §11.2) — after $S[5] reached 1.
func TestImmediateExample(t *testing.T) {
	text, err := fs.ReadFile(ndma.Examples, "examples/immediate.s")
	if err != nil {
		t.Fatal(err)
	}
	obj, err := asm.Assemble("immediate.s", text, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := isa.Decode(isa.Maverick, obj.Code)
	if err != nil {
		t.Fatal(err)
	}
	x := New(isa.Maverick)
	src := make([]byte, 512)
	for i := range src {
		src[i] = byte(i * 3)
	}
	x.Mem.Write(hbm, src)
	if err := x.Exec(&in); !errors.Is(err, ref.ErrBlocked) {
		t.Fatalf("before $S[5] = 1: %v, want the wait refused", err)
	}
	x.Mem.Sems[5] = 1
	if err := x.Exec(&in); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 512)
	x.Mem.Read(2<<20, got)
	if !reflect.DeepEqual(got, src) {
		t.Fatalf("SBUF partition 2 does not hold the 512 bytes")
	}
	// REGISTER mode: the same two descriptors assembled from r8..r11 and r12..r15
	y := New(isa.Maverick)
	y.Mem.Write(hbm, src)
	y.Mem.Sems[5] = 1
	for k := 0; k < 2; k++ {
		d := bd(512, 0, true, true, false, sdma.OpCME, sdma.CMECopy, 0, 0, []uint64{hbm, 0x20_0020_0000}[k])
		for i := 0; i < 4; i++ {
			y.Regs[8+4*k+i] = binary.LittleEndian.Uint32(d[4*i:])
		}
	}
	in.MustSet("descriptor_flags.desc0_src", 1).MustSet("descriptor_flags.desc1_src", 1)
	in.MustSet("descriptor_reg[0]", 8).MustSet("descriptor_reg[1]", 12)
	raw, err := isa.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	clear(raw[16:64]) // the immediate bytes must not be what runs
	if in, err = isa.Decode(isa.Maverick, raw[:]); err != nil {
		t.Fatal(err)
	}
	if err := y.Exec(&in); err != nil {
		t.Fatal(err)
	}
	y.Mem.Read(2<<20, got)
	if !reflect.DeepEqual(got, src) {
		t.Fatalf("REGISTER mode: SBUF partition 2 does not hold the 512 bytes")
	}
}

// overlapSorted never misses an overlap the pairwise check finds (it may
// report one that is not there: the stream path is then merely slower).
func TestOverlapSortedNeverMisses(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 2000; trial++ {
		mk := func() []span {
			s := make([]span, 1+r.IntN(8))
			for i := range s {
				lo := uint64(r.IntN(200))
				s[i] = span{lo, lo + 1 + uint64(r.IntN(30))}
			}
			return s
		}
		reads, writes := mk(), mk()
		pair := false
		for _, w := range writes {
			for _, rd := range reads {
				pair = pair || w.lo < rd.hi && rd.lo < w.hi
			}
		}
		if pair && !overlapSorted(slices.Clone(reads), slices.Clone(writes)) {
			t.Fatalf("missed an overlap: reads %v writes %v", reads, writes)
		}
	}
}

// examples/cci_tiles.s: CCI words step r8 over three 512-byte tiles; each
// DMA_MEMCPY2 reads its tile through REG_PAIR into SBUF partition k.
func TestCCITileWalk(t *testing.T) {
	text, _ := fs.ReadFile(ndma.Examples, "examples/cci_tiles.s")
	obj, err := asm.Assemble("cci_tiles.s", text, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := New(isa.Maverick)
	src := make([]byte, 3*512)
	for i := range src {
		src[i] = byte(i/512*0x40) + byte(i)
	}
	x.Mem.Write(hbm, src)
	d := isa.NewDecoder(isa.Maverick, obj.Code)
	for d.Next() {
		if err := x.Exec(d.Inst()); err != nil {
			t.Fatalf("offset %#x: %v", d.Offset(), err)
		}
	}
	for k := 0; k < 3; k++ {
		got := make([]byte, 512)
		x.Mem.Read(uint64(k)<<20, got)
		if !reflect.DeepEqual(got, src[512*k:512*(k+1)]) {
			t.Fatalf("partition %d does not hold tile %d", k, k)
		}
	}
	if x.Mem.Sems[3] != 3 || x.Regs[8] != 0x400 {
		t.Fatalf("$S[3] = %d, r8 = %#x; want 3, 0x400", x.Mem.Sems[3], x.Regs[8])
	}
}

// DMA_MEMCPY2 fan-out: engine_count FOUR cuts the stream into four equal
// shares on engines start_id..start_id+3 — the same bytes, a quarter of the
// per-engine bytes, so less DMA time than ONE.
func TestCopy2DFanOut(t *testing.T) {
	run := func(count string) *Machine {
		x := New(isa.Maverick)
		src := make([]byte, 64<<10)
		for i := range src {
			src[i] = byte(i * 13)
		}
		x.Mem.Write(hbm, src)
		in := wordTB(t, isa.Maverick, `dma_memcpy2 start_id=2, engine_count=`+count+`, queue_id=3,
    sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=9,
    src_start_addr=hbm:0x0, src_step_elem=[4096, 0], src_num_elem=[16, 1], src_elem_size=4096,
    dst_start_addr=hbm:0x100000, dst_step_elem=[4096, 0], dst_num_elem=[16, 1], dst_elem_size=4096`)
		if err := x.Exec(in); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 64<<10)
		x.Mem.Read(hbm+0x100000, got)
		if !reflect.DeepEqual(got, src) || x.Mem.Sems[9] != 1 {
			t.Fatalf("%s: copy or $S[9] (%d) wrong", count, x.Mem.Sems[9])
		}
		return x
	}
	one, four := run("ONE"), run("FOUR")
	if len(four.Stats.QueueBytes) != 4 || four.Stats.QueueBytes[2] != 16<<10 || four.Stats.QueueBytes[5] != 16<<10 {
		t.Fatalf("FOUR: per-engine bytes %v, want 16 KiB on each of DMA[2..5]", four.Stats.QueueBytes)
	}
	if four.Stats.TimeNS >= one.Stats.TimeNS {
		t.Fatalf("FOUR took %d ns, ONE %d ns", four.Stats.TimeNS, one.Stats.TimeNS)
	}
}

// Raw descriptors whose CCE legs disagree (DMA_IMMEDIATE's, RunWork's) are
// refused before anything moves, naming the descriptor; they made the S2M
// leg read past the stream (a panic) — a CCE S2M behind a CME M2S, a CME
// S2M behind a CCE M2S, two dtypes, a part of a scalar.
func TestCCELegsDisagree(t *testing.T) {
	fp16, fp32 := uint8(isa.DTypeFP16), uint8(isa.DTypeFP32)
	cce := func(n int, in, out uint8, buf uint64) sdma.Desc {
		return bd(n, 1, true, true, false, sdma.OpCCE, sdma.CCEExt, in, out, buf)
	}
	for _, tc := range []struct {
		name     string
		m2s, s2m sdma.Desc
		want     string
	}{
		{"CCE S2M, CME M2S", copyBD(8, 1, hbm+0x100), cce(16, fp16, fp32, hbm+0x1000), "S2M descriptor 0 is CCE (FP16 → FP32), the M2S leg is not"},
		{"CME S2M, CCE M2S", cce(8, fp16, fp32, hbm+0x100), copyBD(16, 1, hbm+0x1000), "S2M descriptor 0 is not CCE, the M2S leg is"},
		{"two dtypes", cce(8, fp16, fp32, hbm+0x100), cce(16, fp32, fp16, hbm+0x1000), "casts FP32 → FP16, the M2S leg FP16 → FP32"},
		{"part of a scalar", cce(8, fp16, fp32, hbm+0x100), cce(18, fp16, fp32, hbm+0x1000), "18 bytes are no whole number of 4-byte FP32 scalars"},
	} {
		x := New(isa.Cayman)
		x.Mem.Write(hbm+0x100, []byte{1, 2, 3, 4, 5, 6, 7, 8})
		before := x.Mem.Snapshot()
		w := Work{SemInc: 1, Queue: sdma.Queue{DMA: 1, M2S: []sdma.Desc{tc.m2s}, S2M: []sdma.Desc{tc.s2m},
			Doorbells: []sdma.Doorbell{{DMA: 1, Reg: "TDRTP_inc", Value: 1}, {DMA: 1, Reg: "RDRTP_inc", Value: 1}}}}
		err := x.RunWork("raw", []Work{w})
		if err == nil || !errors.Is(err, ErrStream) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrStream %q", tc.name, err, tc.want)
		}
		if !reflect.DeepEqual(x.Mem.Snapshot(), before) {
			t.Errorf("%s: memory changed by a refused word", tc.name)
		}
	}
}
