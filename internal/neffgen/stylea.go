package neffgen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"ndma/internal/array"
	"ndma/isa"
	"ndma/neff"
)

// Style-A NEFFs as neuronx-cc writes them (neff.md §4.7): queues of 16
// (`num_queues` 16, a `semaphore_set` of 16), every block with its own
// `semaphore` = semaphore_set[id % 16] and a `#comment`, every descriptor
// with from_off/to_off, byte sizes and steps per side, dtypes and
// num_tiling_dimensions; SB offsets as partition·2^18 + offset; consumers
// waiting WAIT_FOR_SEM_GE_IMM 16 on a block's semaphore. The real files are
// not redistributable: these builders are their shapes, with made-up data.

// SetOf is a compiler queue's semaphore_set: 16 ids from first.
func SetOf(first int) []int {
	set := make([]int, 16)
	for i := range set {
		set[i] = first + i
	}
	return set
}

// Compiled is a block as the compiler writes it on a queue with semaphore
// set set: its semaphore set[id % 16] and a comment naming it.
func Compiled(queue string, id int, set []int, descs ...neff.Desc) Block {
	sem := set[id%len(set)]
	return Block{Queue: queue, ID: id, Semaphore: &sem, Comment: fmt.Sprintf("I-%d-0-block-%d", sem, id), Desc: descs}
}

// Trigger is a 0xc1 word firing block id of queue.
func Trigger(queue string, id int) string {
	return fmt.Sprintf("pseudo_dma_trigger dma_queue_name=%q, block_id=%d\n", queue, id)
}

// TriggerAfter is a 0xc1 word that waits $S[sem] ≥ atLeast first.
func TriggerAfter(sem, atLeast int, queue string, id int) string {
	return fmt.Sprintf("pseudo_dma_trigger wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=%d, semaphore_value=%d, dma_queue_name=%q, block_id=%d\n", sem, atLeast, queue, id)
}

// Wait is an EVENT_SEMAPHORE word (0xa0, written raw: ndma has no layout
// for it) waiting $S[sem] ≥ atLeast, then — when inc ≥ 0 — incrementing
// $S[inc] at completion (SEM_INC_COMPLETE): what a compute engine's word
// does in the compiler's handshake (field-tables §2.2, §5.5, §5.6).
func Wait(sem, atLeast, inc int) string {
	return EventWord(0xa0, 0x05, sem, inc, atLeast)
}

// EventWord is a raw word of opcode op with EVENTS wait_mode / wait_idx,
// SEM_INC_COMPLETE on inc (none when inc < 0) and semaphore_value value.
func EventWord(op byte, waitMode byte, sem, inc, value int) string {
	b := make([]byte, 64)
	b[0], b[1] = op, 0x10
	b[4], b[5] = waitMode, byte(sem)
	if inc >= 0 {
		b[6], b[7] = 0x13, byte(inc)
	}
	binary.LittleEndian.PutUint32(b[8:], uint32(value))
	// A compute word ndma decodes by its table (docs/compute.md) names valid
	// dtypes: FP32 everywhere a DTYPE field is, so that check passes it.
	switch op {
	case 0x01, 0x02, 0x49: // LDWEIGHTS, MATMUL in_dtype; MEMSET dtype
		b[32] = 0x0a
	case 0x41, 0x51: // TENSOR_TENSOR: the src pair, out_dtype
		b[12], b[13] = 0xaa, 0x0a
	case 0x42, 0x43, 0x46, 0x47, 0x53: // in_dtype, out_dtype
		b[32], b[33] = 0x0a, 0x0a
	}
	return fmt.Sprintf(".word %x\n", b)
}

// sbTop is where the runtime's reservation starts in an SB partition of
// target's generation (229368 on cayman, neff.md §4.4): the active bytes a
// NEFF SB partition (2^18) can hold, less the 8-byte evtaccel slot.
func sbTop(target string) int64 {
	g, err := isa.ParseGen(target)
	if err != nil {
		g = isa.Cayman
	}
	return int64(min(isa.Map(g).SBUFActive, neff.SBPartitionStride)) - 8
}

// reservation is def.json's runtime_statebuffer_reservation for target.
func reservation(target string) []map[string]any {
	return []map[string]any{{"base_partition": 0, "offset": sbTop(target), "partitions": 128, "size": 8, "type": "evtaccel"}}
}

// fp32 is a compiler descriptor of float32 on both sides.
func fp32(d neff.Desc) neff.Desc {
	d.Op, d.FromDtype, d.ToDtype, d.NumTilingDimensions = "copy", "float32", "float32", 1
	return d
}

// VectorAddTiles are the SB offsets VectorAdd gives its four input tiles
// (a0, b0, a1, b1) on target: 4000-byte tiles ending at the reservation —
// 213368, 217368, 221368, 225368 on cayman, as in the compiled files.
func VectorAddTiles(target string) [4]int64 {
	base := sbTop(target) - 16000
	return [4]int64{base, base + 4000, base + 8000, base + 12000}
}

// VectorAdd is the compiled vector-add (neff.md §4.7) on n subgraphs: inputs
// a_vec and b_vec and output c_vec, fp32 [128·n, 2000] (8000-byte rows),
// subgraph s taking rows 128s…; per subgraph, SP fires four qSPIn blocks
// (ids 0–3, semaphores 8–11) copying tiles of 1000 elements —
// from_sizes [4000, 128], from_steps [1, 8000], from_off 4000·k (+ the
// subgraph's rows) — into SB partitions 0–127 at VectorAddTiles; DVE waits
// ≥ 16 on each pair and increments $S[6]; SP then fires the two qSPOut
// blocks (semaphores 24, 25: the SB a-tiles, where the sum would be, to
// c_vec) after $S[6] ≥ 1 and ≥ 2, and waits ≥ 16 on both.
func VectorAdd(target string, n int) *Program {
	tiles := VectorAddTiles(target)
	in, out := SetOf(8), SetOf(24)
	size := int64(n) * 128 * 8000
	p := &Program{Target: target}
	for s := 0; s < n; s++ {
		rows := int64(s) * 128 * 8000
		var inBlocks, outBlocks []Block
		for k := 0; k < 4; k++ {
			v := []string{"a_vec", "b_vec"}[k%2]
			inBlocks = append(inBlocks, Compiled("qSPIn", k, in, fp32(neff.Desc{From: v, To: "SB", FromOff: rows + int64(k/2)*4000, ToOff: tiles[k],
				FromSizes: []int64{4000, 128}, FromSteps: []int64{1, 8000}, ToSizes: []int64{4000, 128}, ToSteps: []int64{1, neff.SBPartitionStride}})))
		}
		for k := 0; k < 2; k++ {
			outBlocks = append(outBlocks, Compiled("qSPOut", k, out, fp32(neff.Desc{From: "SB", To: "c_vec", FromOff: tiles[2*k], ToOff: rows + int64(k)*4000,
				FromSizes: []int64{4000, 128}, FromSteps: []int64{1, neff.SBPartitionStride}, ToSizes: []int64{4000, 128}, ToSteps: []int64{1, 8000}})))
		}
		var sp, dve strings.Builder
		for k := 0; k < 4; k++ {
			sp.WriteString(Trigger("qSPIn", k))
		}
		sp.WriteString(TriggerAfter(6, 1, "qSPOut", 0))
		sp.WriteString(TriggerAfter(6, 2, "qSPOut", 1))
		sp.WriteString(Wait(24, 16, -1))
		sp.WriteString(Wait(25, 16, -1))
		for k := 0; k < 2; k++ {
			dve.WriteString(Wait(8+2*k, 16, -1))
			dve.WriteString(Wait(9+2*k, 16, 6))
		}
		p.Subgraphs = append(p.Subgraphs, Graph{
			Name: fmt.Sprintf("sg%02d", s),
			Vars: []Var{
				{Name: "SB", Type: "state-buffer"},
				{Name: "a_vec", Type: "input", Size: size},
				{Name: "b_vec", Type: "input", Size: size},
				{Name: "c_vec", Type: "output", Size: size},
			},
			Queues: map[string]Queue{
				"qSPIn":  {Owner: "sp", Type: "in", Set: in},
				"qSPOut": {Owner: "sp", Type: "data", Set: out},
			},
			Engines: []Engine{
				{Key: "dve", Manifest: "DVE.json", Instr: "DVE.bin", Asm: dve.String()},
				{Key: "sp", Manifest: "SP.json", Instr: "SP.bin", Asm: sp.String(), DMA: append(inBlocks, outBlocks...)},
			},
			Def: map[string]any{"runtime_statebuffer_reservation": reservation(target)},
		})
	}
	return p
}

// Casts are the compiled casts of neff.md §4.7 on Pool's qPoolIn
// (semaphores 24…): block 0 int8 → float16, x8 [128, 128] read as
// from_sizes [128, 128] and written [256, 128] at SB offset 0; block 1
// float32 → float16, x32 [128, 444] read [1776, 128] and written
// [888, 128] at SB offset 1024; block 2 int8 → float32, written [512, 128]
// at SB offset 4096. After block 1 (a wait ≥ 16 on $S[25]) qPoolOut's block 0
// (semaphore 40) copies the fp16 tile to the output y16 [128, 444]; Pool
// waits ≥ 16 on every block.
func Casts(target string) *Program {
	in, out := SetOf(24), SetOf(40)
	cast := func(d neff.Desc, from, to string) neff.Desc {
		d.Op, d.FromDtype, d.ToDtype, d.NumTilingDimensions = "cast", from, to, 1
		return d
	}
	sb := []int64{1, neff.SBPartitionStride}
	blocks := []Block{
		Compiled("qPoolIn", 0, in, cast(neff.Desc{From: "x8", To: "SB", FromSizes: []int64{128, 128}, FromSteps: []int64{1, 128}, ToSizes: []int64{256, 128}, ToSteps: sb}, "int8", "float16")),
		Compiled("qPoolIn", 1, in, cast(neff.Desc{From: "x32", To: "SB", ToOff: 1024, FromSizes: []int64{1776, 128}, FromSteps: []int64{1, 1776}, ToSizes: []int64{888, 128}, ToSteps: sb}, "float32", "float16")),
		Compiled("qPoolIn", 2, in, cast(neff.Desc{From: "x8", To: "SB", ToOff: 4096, FromSizes: []int64{128, 128}, FromSteps: []int64{1, 128}, ToSizes: []int64{512, 128}, ToSteps: sb}, "int8", "float32")),
		Compiled("qPoolOut", 0, out, neff.Desc{From: "SB", To: "y16", FromOff: 1024, FromSizes: []int64{888, 128}, FromSteps: sb, ToSizes: []int64{888, 128}, ToSteps: []int64{1, 888},
			Op: "copy", FromDtype: "float16", ToDtype: "float16", NumTilingDimensions: 1}),
	}
	pool := Trigger("qPoolIn", 0) + Trigger("qPoolIn", 1) + Trigger("qPoolIn", 2) + TriggerAfter(25, 16, "qPoolOut", 0) +
		Wait(24, 16, -1) + Wait(26, 16, -1) + Wait(40, 16, -1)
	return compiled(target, Engine{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool, DMA: blocks},
		map[string]Queue{
			"qPoolIn":  {Owner: "pool", Type: "in", Set: in},
			"qPoolOut": {Owner: "pool", Type: "data", Set: out},
		},
		Var{Name: "x8", Type: "input", Size: 128 * 128},
		Var{Name: "x32", Type: "input", Size: 128 * 1776},
		Var{Name: "y16", Type: "output", Size: 128 * 888})
}

// compiled is a one-subgraph NEFF of target as the compiler writes it: sg00
// with SB and vars, queues, the one engine en and the runtime's SB
// reservation.
func compiled(target string, en Engine, queues map[string]Queue, vars ...Var) *Program {
	return &Program{Target: target, Subgraphs: []Graph{{
		Name:    "sg00",
		Vars:    append([]Var{{Name: "SB", Type: "state-buffer"}}, vars...),
		Queues:  queues,
		Engines: []Engine{en},
		Def:     map[string]any{"runtime_statebuffer_reservation": reservation(target)},
	}}}
}

// Transposes are the compiled transposes of neff.md §4.7 on ACT's qActIn
// (semaphores 40…): block 0 the fp32 one exactly as observed —
// transpose_op "WZXY", transpose_shape [1, 1, 128, 64], element size 4,
// from w32 [128, 128] with from_sizes [256, 128, 2, 1], from_steps
// [1, 512, 256, 65536], into SB with to_sizes [512, 64, 2, 1], to_steps
// [1, 262144, 16777216, 512]; block 1 stages w16 (fp16 [128, 128]) in the
// virtual variable stage (backing_variable_off 7864320, fabric_path
// main); block 2, after a wait ≥ 16 on block 1's $S[41], reads stage back
// transposed ([1, 1, 128, 128], element size 2) into SB offset 512 and
// copies w16's first row to the output row0. ACT waits ≥ 16 on blocks 0
// and 2.
func Transposes(target string) *Program {
	in := SetOf(40)
	xp := func(d neff.Desc, dtype string, shape []int64, es int64) neff.Desc {
		d.FromDtype, d.ToDtype, d.NumTilingDimensions = dtype, dtype, 2
		d.TransposeOp, d.TransposeShape, d.TransposeElementSize = "WZXY", shape, es
		return d
	}
	blocks := []Block{
		Compiled("qActIn", 0, in, xp(neff.Desc{From: "w32", To: "SB", FromSizes: []int64{256, 128, 2, 1}, FromSteps: []int64{1, 512, 256, 65536},
			ToSizes: []int64{512, 64, 2, 1}, ToSteps: []int64{1, 262144, 16777216, 512}}, "float32", []int64{1, 1, 128, 64}, 4)),
		Compiled("qActIn", 1, in, neff.Desc{From: "w16", To: "stage", FromSizes: []int64{32768, 1}, FromSteps: []int64{1, 32768}, ToSizes: []int64{32768, 1}, ToSteps: []int64{1, 32768},
			Op: "copy", FromDtype: "float16", ToDtype: "float16", NumTilingDimensions: 1}),
		Compiled("qActIn", 2, in,
			xp(neff.Desc{From: "stage", To: "SB", ToOff: 512, FromSizes: []int64{256, 128, 1, 1}, FromSteps: []int64{1, 256, 32768, 32768},
				ToSizes: []int64{256, 128, 1, 1}, ToSteps: []int64{1, 262144, 32768, 256}}, "float16", []int64{1, 1, 128, 128}, 2),
			neff.Desc{From: "w16", To: "row0", FromSizes: []int64{256, 1}, FromSteps: []int64{1, 256}, ToSizes: []int64{256, 1}, ToSteps: []int64{1, 256},
				Op: "copy", FromDtype: "float16", ToDtype: "float16", NumTilingDimensions: 1}),
	}
	act := Trigger("qActIn", 0) + Trigger("qActIn", 1) + TriggerAfter(41, 16, "qActIn", 2) + Wait(40, 16, -1) + Wait(42, 16, -1)
	return compiled(target, Engine{Key: "act", Manifest: "Activation.json", Instr: "Activation.bin", Asm: act, DMA: blocks},
		map[string]Queue{"qActIn": {Owner: "act", Type: "in", Set: in}},
		Var{Name: "w32", Type: "input", Size: 128 * 512},
		Var{Name: "w16", Type: "input", Size: 128 * 256},
		Var{Name: "stage", Type: "virtual", Size: 32768, BackingOff: 7864320, FabricPath: "main"},
		Var{Name: "row0", Type: "output", Size: 256})
}

// WeightsFile is the name of Weights' constant member (in sg00/).
const WeightsFile = "value_sg0000_w_CRSM.npy"

// Weights is the compiled weight copy of neff.md §4.7: a `file` variable w
// (an .npy member of fp32 [128, 2304], 9216-byte rows, a byte pattern of
// its own) read by qPoolIn block 0 as from_sizes [4, 128, 128], from_steps
// [1, 36, 9216] — 16,384 runs of 4 bytes, every 9th element of each row —
// into SB offset 8192 as to_sizes [512, 128]; then qPoolData spills that
// tile to the virtual variable spill (block 0, backing_variable_off
// 7864320), reloads it into SB offset 16384 (block 1) and copies it to the
// output out (block 2), each after a wait ≥ 16 on the one before. With hbm,
// qPoolIn block 1 makes the same 16,384-run copy from w into the virtual
// variable flat (HBM to HBM: one channel holds all the runs) first.
func Weights(target string, hbm bool) *Program {
	in, data := SetOf(24), SetOf(40)
	sb := []int64{1, neff.SBPartitionStride}
	weights := neff.Desc{From: "w", To: "SB", ToOff: 8192, FromSizes: []int64{4, 128, 128}, FromSteps: []int64{1, 36, 9216}, ToSizes: []int64{512, 128}, ToSteps: sb}
	blocks := []Block{
		Compiled("qPoolIn", 0, in, fp32(weights)),
		Compiled("qPoolData", 0, data, fp32(neff.Desc{From: "SB", To: "spill", FromOff: 8192, FromSizes: []int64{512, 128}, FromSteps: sb, ToSizes: []int64{512, 128}, ToSteps: []int64{1, 512}})),
		Compiled("qPoolData", 1, data, fp32(neff.Desc{From: "spill", To: "SB", ToOff: 16384, FromSizes: []int64{512, 128}, FromSteps: []int64{1, 512}, ToSizes: []int64{512, 128}, ToSteps: sb})),
		Compiled("qPoolData", 2, data, fp32(neff.Desc{From: "SB", To: "out", FromOff: 16384, FromSizes: []int64{512, 128}, FromSteps: sb, ToSizes: []int64{512, 128}, ToSteps: []int64{1, 512}})),
	}
	pool := Trigger("qPoolIn", 0) + TriggerAfter(24, 16, "qPoolData", 0) + TriggerAfter(40, 16, "qPoolData", 1) + TriggerAfter(41, 16, "qPoolData", 2)
	vars := []Var{
		{Name: "w", Type: "file", Size: 128 * 9216, FileName: WeightsFile, Alignment: 32768, FabricPath: "main"},
		{Name: "spill", Type: "virtual", Size: 65536, BackingOff: 7864320, FabricPath: "main"},
		{Name: "out", Type: "output", Size: 65536},
	}
	if hbm {
		flat := weights
		flat.To, flat.ToOff, flat.ToSizes, flat.ToSteps = "flat", 0, []int64{65536, 1}, []int64{1, 65536}
		blocks = append(blocks, Compiled("qPoolIn", 1, in, fp32(flat)))
		vars = append(vars, Var{Name: "flat", Type: "virtual", Size: 65536, BackingOff: 7864320 + 65536, FabricPath: "main"})
		pool += Trigger("qPoolIn", 1) + Wait(25, 16, -1)
	}
	pool += Wait(42, 16, -1)
	w := make([]byte, 128*9216)
	for i := range w {
		w[i] = byte(i*131 + i>>9 + 7)
	}
	p := compiled(target, Engine{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool, DMA: blocks},
		map[string]Queue{
			"qPoolIn":   {Owner: "pool", Type: "in", Set: in},
			"qPoolData": {Owner: "pool", Type: "data", Set: data},
		}, vars...)
	p.Subgraphs[0].Files = map[string][]byte{WeightsFile: NPY("<f4", []int{128, 2304}, w)}
	return p
}

// NPY is an .npy v1.0 file of descr and shape holding data (the header
// padded so the data starts on a 64-byte boundary), as the compiler stores
// constants (neff.md §4.6): array.WriteHeader's header, then data. A
// header past 64 KiB (a shape of thousands of dims) panics.
func NPY(descr string, shape []int, data []byte) []byte {
	var b bytes.Buffer
	if err := array.WriteHeader(&b, descr, shape); err != nil {
		panic(err)
	}
	b.Write(data)
	return b.Bytes()
}

// UnknownACT adds an ACT engine to every subgraph of p whose stream is n
// words of opcode 0x22 — outside ndma's catalog, as SUNDA's ACT streams
// hold such words (neff.md §4.7; their 0x21 is decoded since docs/compute.md) — the last waiting ≥ 16 on $S[wait] through its
// EVENTS and incrementing $S[inc]: a reader must honour them.
func UnknownACT(p *Program, n, wait, inc int) {
	var act strings.Builder
	for i := 0; i < n-1; i++ {
		act.WriteString(EventWord(0x22, 0, 0, -1, 0))
	}
	act.WriteString(EventWord(0x22, 0x05, wait, inc, 16))
	for i := range p.Subgraphs {
		p.Subgraphs[i].Engines = append(p.Subgraphs[i].Engines, Engine{Key: "act", Manifest: "Activation.json", Instr: "Activation.bin", Asm: act.String()})
	}
}
