package compute_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/internal/compute"
	"ndma/isa"
	"ndma/mem"
)

// fuzzOps are the compute opcodes FuzzExec forces byte 0 to.
var fuzzOps = []byte{0x01, 0x02, 0x21, 0x23, 0x41, 0x42, 0x43, 0x46, 0x47, 0x49, 0x51, 0x53, 0xa0, 0xa4}

// fuzzAllocLimit bounds what one Exec may allocate: the operands' patterns
// are capped at compute.MaxElems elements per partition, so a word's
// buffers are a few of those (and memory's partition slabs), never
// partitions × MaxElems.
const fuzzAllocLimit = 320 << 20

// fuzzWord builds the word FuzzExec runs from the fuzz bytes: bytes 0..63
// (zero-padded), byte 0 forced to a compute opcode, byte 1 to 0x10; byte
// 64's bit 0 picks SUNDA over CAYMAN, bit 1 runs a full 128×128 LDWEIGHTS
// first.
func fuzzWord(b []byte) (w [64]byte, gen isa.Gen, preload bool) {
	copy(w[:], b)
	if len(b) > 0 {
		w[0] = fuzzOps[int(b[0])%len(fuzzOps)]
	}
	w[1] = 0x10
	gen = isa.Cayman
	if len(b) > 64 {
		if b[64]&1 != 0 {
			gen = isa.Sunda
		}
		preload = b[64]&2 != 0
	}
	return w, gen, preload
}

// FuzzExec: any compute word either runs or is refused with a *Fault —
// never a panic — and allocates a bounded amount whatever its counts.
func FuzzExec(f *testing.F) {
	// seeds: one well-formed word of each kind, its opcode byte an index
	// into fuzzOps
	src, err := asm.Assemble("compute.s", []byte(fuzzSeedText), asm.Options{Gen: isa.Cayman})
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i+64 <= len(src.Code); i += 64 {
		b := append([]byte(nil), src.Code[i:i+64]...)
		for j, op := range fuzzOps {
			if op == b[0] {
				b[0] = byte(j)
			}
		}
		f.Add(append(b, 2))
		f.Add(append(b, 3))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		w, gen, preload := fuzzWord(b)
		in, err := isa.Decode(gen, w[:])
		if err != nil {
			return
		}
		m := mem.New(gen)
		for p := range 4 {
			_ = m.Write(sbufAddr(p, 0), []byte(strings.Repeat("\x00\x3c\x00\xc0\x01\x00\x00\x80", 32)))
		}
		e := compute.New(gen)
		if preload {
			lw, err := isa.Decode(gen, fuzzLdweights(gen))
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Exec(m, &lw); err != nil {
				t.Fatal(err)
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		err = e.Exec(m, &in)
		runtime.ReadMemStats(&ms)
		if a := ms.TotalAlloc - before; a > fuzzAllocLimit {
			t.Fatalf("%s allocated %d MiB (err %v)", in.Def().Mnemonic(), a>>20, err)
		}
		if err != nil {
			var fault *compute.Fault
			if !errors.As(err, &fault) || fault.Mnemonic == "" {
				t.Fatalf("%v: not a *compute.Fault naming the word", err)
			}
		}
	})
}

// fuzzLdweights is a 128×128 FP16 LDWEIGHTS of SBUF 0:0x0 on gen.
func fuzzLdweights(gen isa.Gen) []byte {
	src, err := asm.Assemble("lw.s", []byte("ldweights src_mem_pattern.start_addr=sbuf:0:0xfe, src_mem_pattern.step_elem=[-1, 0, 0], src_mem_pattern.num_elem=[128, 1, 1], in_dtype=FP16, num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15"), asm.Options{Gen: gen})
	if err != nil {
		panic(err)
	}
	return src.Code[:64]
}

// fuzzSeedText is examples/compute.s's words (CAYMAN).
const fuzzSeedText = `
ldweights src_mem_pattern.start_addr=sbuf:0:0x1fe, src_mem_pattern.step_elem=[-1, 0, 0],
    src_mem_pattern.num_elem=[128, 1, 1], in_dtype=FP16, transpose_mode=1,
    num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15
matmul src_mem_pattern.start_addr=sbuf:0:0x1000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[128, 1, 1], in_dtype=FP16, transpose_mode=1,
    num_active_rows=128, num_active_cols=128, psum_accumulate_flags=SINGLE, row_grp=15, col_grp=15,
    dst_mem_pattern.start_addr=psum:0:0x0, dst_mem_pattern.step_elem=[1, 0, 0],
    dst_mem_pattern.num_elem=[128, 1, 1]
event_semaphore wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=5, semaphore_value=1
copy src_mem_pattern.start_addr=psum:0:0x0, src_mem_pattern.step_elem=[1, 0, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1, 1], in_dtype=INT32, out_dtype=INT32, num_active_channels=128,
    dst_mem_pattern.start_addr=sbuf:0:0x2000, dst_mem_pattern.step_elem=[1, 0, 0, 0],
    dst_mem_pattern.num_elem=[64, 1, 1, 1]
activate src_mem_pattern.start_addr=sbuf:0:0x2000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[128, 1, 1], in_dtype=FP16, bias_dtype=FP32, out_dtype=FP16,
    bias_src_n=INSTRUCTION_IMMEDIATE, num_active_channels=128, activation_func=0x80,
    scale_value=0x3f800000, dst_mem_pattern.start_addr=sbuf:0:0x3000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[128, 1, 1]
memset dst_element_count=64, dtype=FP32, num_active_channels=128,
    dst_mem_pattern.start_addr=sbuf:0:0x4000, dst_mem_pattern.step_elem=[1, 0, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1, 1]
tensor_tensor dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=ADD, num_active_channels=128,
    src0_mem_pattern.start_addr=sbuf:0:0x4000, src0_mem_pattern.step_elem=[1, 0, 0],
    src0_mem_pattern.num_elem=[64, 1, 1], src1_mem_pattern.start_addr=sbuf:0:0x5000,
    src1_mem_pattern.num_elem=[64, 1, 1], dst_mem_pattern.start_addr=sbuf:0:0x6000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_tensor_bitvec_op dtype_lo=INT32, dtype_hi=INT32, out_dtype=INT32, op=LOGICAL_SHIFT_RIGHT,
    num_active_channels=4, src0_mem_pattern.start_addr=sbuf:0:0x0, src0_mem_pattern.step_elem=[1, 0, 0],
    src0_mem_pattern.num_elem=[64, 1, 1], src1_mem_pattern.start_addr=sbuf:0:0x4, src1_mem_pattern.step_elem=[0, 0, 0],
    src1_mem_pattern.num_elem=[64, 1, 1], dst_mem_pattern.start_addr=sbuf:0:0x7000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar src_mem_pattern.start_addr=sbuf:0:0x0, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=FP16, out_dtype=FP32, num_active_channels=4,
    op0=MULT, op1=ADD, imm0_src=POINTER_IMMEDIATE, imm0=0x8, imm1=0x3f800000, dst_mem_pattern.start_addr=sbuf:0:0x8000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar_bitvec_op src_mem_pattern.start_addr=sbuf:0:0x0, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=INT32, out_dtype=INT32, num_active_channels=4,
    op0=BITWISE_OR, imm0=0xff, dst_mem_pattern.start_addr=sbuf:0:0x9000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_reduce src_mem_pattern.start_addr=sbuf:0:0x0, src_mem_pattern.step_elem=[1, 2, 0, 0],
    src_mem_pattern.num_elem=[2, 32, 1, 1], in_dtype=FP16, out_dtype=FP32, num_active_channels=4,
    op=MAX, op_dim=X, dst_mem_pattern.start_addr=sbuf:0:0xa000,
    dst_mem_pattern.step_elem=[1, 0, 0, 0], dst_mem_pattern.num_elem=[32, 1, 1, 1]
cast src_mem_pattern.start_addr=sbuf:0:0x0, src_mem_pattern.step_elem=[1, 0, 0, 0],
    src_mem_pattern.num_elem=[32, 1, 1, 1], in_dtype=FP32, out_dtype=INT8, num_active_channels=4,
    dst_mem_pattern.start_addr=sbuf:0:0xb000, dst_mem_pattern.step_elem=[1, 0, 0, 0],
    dst_mem_pattern.num_elem=[32, 1, 1, 1]
activation_table_load
nop
`
