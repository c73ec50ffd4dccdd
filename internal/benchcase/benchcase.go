// Package benchcase is the one list of data-path benchmarks that ref and
// sim both run (bench/compare.sh sets them beside Go copy() and NumPy): each
// a word, the memory it needs and the bytes it moves.
package benchcase

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"ndma/internal/num"
)

// Case is one benchmark.
type Case struct {
	Name    string
	Fill    int      // random bytes written at HBM 0x1_0000_0000 first
	Values  uint8    // nonzero: Fill holds this DTYPE's values uniform in [−1, 1), as NumPy's side does (random bytes are mostly NaN, Inf and out-of-range floats)
	Indices int      // random u32 indices < Range in SBUF, index j at partition j%128, offset 4·(j/128)
	Range   int      // the indices' bound (0: 65535)
	Word    string   // the word, CAYMAN assembly
	Bytes   int64    // bytes the word moves (b.SetBytes)
	NumPy   string   // its NumPy equivalent (bench/numpy_ref.py times it under Name)
	More    []string // words run after Word, as part of the case (a gather of more indices than one word takes)
}

// Writer is the memory a case is set up in.
type Writer interface {
	Write(addr uint64, b []byte) error
}

// Setup fills the memory as the case needs.
func (c *Case) Setup(m Writer) error {
	buf := make([]byte, c.Fill)
	r := rand.New(rand.NewPCG(1, 1))
	switch sz, _ := num.Size(c.Values); {
	case c.Values != 0 && sz > 0:
		for i := 0; i+sz <= len(buf); i += sz {
			v := num.FromFloat32(c.Values, r.Float32()*2-1)
			for b := range sz {
				buf[i+b] = byte(v >> (8 * b))
			}
		}
	default:
		for i := 0; i < len(buf); i += 8 {
			binary.LittleEndian.PutUint64(buf[i:min(i+8, len(buf)):min(i+8, len(buf))], r.Uint64())
		}
	}
	if err := m.Write(0x1_0000_0000, buf); err != nil {
		return err
	}
	r = rand.New(rand.NewPCG(2, 2))
	bound := c.Range
	if bound == 0 {
		bound = 65535
	}
	for j := 0; j < c.Indices; j++ {
		if err := m.Write(uint64(j%128)*0x40000+4*uint64(j/128), binary.LittleEndian.AppendUint32(nil, uint32(r.IntN(bound)))); err != nil {
			return err
		}
	}
	return nil
}

// Cases are the data paths of the execution issues (issue 17's six among them).
var Cases = []Case{
	{Name: "copy64MiB", Fill: 64 << 20, Bytes: 64 << 20, NumPy: "copyto(b, a), 64 MiB u8",
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8`},
	{Name: "strided4MiB", Fill: 8 << 20, Bytes: 65535 * 64, NumPy: "copyto(b, a[:, :64]), a [65535, 128] u8", // 64-byte rows, every other one
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 0], src_num_elem=[65535, 1], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 0], dst_num_elem=[65535, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`},
	{Name: "strided_8x65535x64B", Fill: 64 << 20, Bytes: 8 * 65535 * 64, NumPy: "copyto(b, a[:, :64]), a [524280, 128] u8", // issue 17: 64 MiB read
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 8388480], src_num_elem=[65535, 8], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 4194240], dst_num_elem=[65535, 8], dst_elem_size=64, in_dtype=u8, out_dtype=u8`},
	{Name: "cast_fp32_bf16_1M", Values: num.FP32, Fill: 4 << 20, Bytes: 4 << 20, NumPy: "astype(float16), 1 M fp32 (NumPy has no bf16)",
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[64, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x8000, 0], dst_num_elem=[64, 1], dst_elem_size=0x8000, in_dtype=fp32, out_dtype=bf16`},
	{Name: "cast_fp32_fp16_16M", Values: num.FP32, Fill: 64 << 20, Bytes: 64 << 20, NumPy: "astype(float16), 16 M fp32",
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x8000, 0], dst_num_elem=[1024, 1], dst_elem_size=0x8000, in_dtype=fp32, out_dtype=fp16`},
	{Name: "cast_fp16_fp32_16M", Values: num.FP16, Fill: 32 << 20, Bytes: 32 << 20, NumPy: "astype(float32), 16 M fp16",
		Word: `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x8000, 0], src_num_elem=[1024, 1], src_elem_size=0x8000,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=fp16, out_dtype=fp32`},
	{Name: "reduce_add_fp32_1M", Values: num.FP32, Fill: 4 << 20, Bytes: 4 << 20, NumPy: "add(d, s, out=d), 1 M fp32",
		Word: `dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[64, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[64, 1], dst_elem_size=0, in_dtype=fp32, out_dtype=fp32`},
	{Name: "add_fp32_16M", Values: num.FP32, Fill: 64 << 20, Bytes: 64 << 20, NumPy: "add(d, s, out=d), 16 M fp32",
		Word: `dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=fp32, out_dtype=fp32`},
	{Name: "transpose_bf16_4096x4096", Fill: 32 << 20, Bytes: 32 << 20, NumPy: "copyto(dst, src.T), 4096² u16",
		Word: `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 8192],
  src_num_elem=[4096, 4096], tile_src_row_step=8192, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x10000000,
  dst_step_elem=[2, 8192], dst_num_elem=[4096, 4096]`},
	{Name: "transpose_bf16_1024x1024", Fill: 2 << 20, Bytes: 2 << 20, NumPy: "copyto(dst, src.T), 1024² u16",
		Word: `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 2048],
  src_num_elem=[1024, 1024], tile_src_row_step=2048, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x10000000,
  dst_step_elem=[2, 2048], dst_num_elem=[1024, 1024]`},
	{Name: "transpose_fp16_65520x128_sbuf", Fill: 65520 * 256, Bytes: 65520 * 256, NumPy: "copyto(dst, a.T), a [65520, 128] f16", // issue 17
		Word: `dma_transpose in_dtype=fp16, out_dtype=fp16, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 65520], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[2, 0x40000], dst_num_elem=[65520, 128]`},
	// 4096 indices; each row 256 two-byte elements; dst(j, k) at dst + 2j + k·8192
	{Name: "gather_transpose_4096x256", Fill: 32 << 20, Indices: 4096, Bytes: 4096 * 512, NumPy: "copyto(gt, take(table, idx, 0).T)",
		Word: `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 512],
  src_num_elem=[256, 4096], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000, dst_step_elem_1=8192,
  dst_num_elem=[4096, 256], elem_size=512, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`},
	{Name: "gather_4096_rows_of_512B", Fill: 32 << 20, Indices: 4096, Bytes: 4096 * 512, NumPy: "take(table, idx, 0, out=out), 65535 rows of 512 B",
		Word: `dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=512, src_num_elem=65535, src_elem_size=512, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000,
  dst_step_elem=512, dst_num_elem=4096, dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`},
	{Name: "gather_4096_rows_of_16KiB", Fill: 64 << 20, Indices: 4096, Range: 4096, Bytes: 64 << 20, NumPy: "take(table, idx, 0, out=out), 4096 rows of 16 KiB", // issue 17
		Word: `dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=16384, src_num_elem=4096, src_elem_size=16384, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000,
  dst_step_elem=16384, dst_num_elem=4096, dst_elem_size=16384, in_dtype=u8, out_dtype=u8`},
}

// Scale are the cases of the time-vs-size table (bench/scale.sh,
// docs/performance.md): a copy from 1 MiB to 1 GiB, a gather from 1 k to 1 M
// indices (rows of 64 B from a 65,535-row table; 32,768 indices a word past
// that), a cast fp32 → bf16 from 1 M to 64 M elements and a 2-byte transpose
// from 256² to 4096² elements. MaxBytes is what a case needs the machines to
// allow (a 1 GiB copy moves 2 GiB).
func Scale() (cs []Case, maxBytes int64) {
	for _, mib := range []int{1, 4, 16, 64, 256, 1024} {
		cs = append(cs, Case{Name: fmt.Sprintf("copy/%dMiB", mib), Fill: mib << 20, Bytes: int64(mib) << 20,
			Word: fmt.Sprintf(`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[%d, 1], src_elem_size=0,
  dst_start_addr=hbm:0x40000000, dst_step_elem=[0x10000, 0], dst_num_elem=[%d, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8`, mib*16, mib*16)})
	}
	gather := func(n, w int) string { // w: the word; its indices at offset w·1 KiB of each partition
		return fmt.Sprintf(`dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=64, src_num_elem=65535, src_elem_size=64, src_idx_start_addr=sbuf:0:%#x, dst_start_addr=hbm:%#x,
  dst_step_elem=64, dst_num_elem=%d, dst_elem_size=64, in_dtype=u8, out_dtype=u8`, w*1024, 0x10000000+w*32768*64, n)
	}
	for _, n := range []int{1 << 10, 1 << 12, 1 << 14, 1 << 15, 1 << 17, 1 << 20} {
		c := Case{Name: fmt.Sprintf("gather/%dk", n>>10), Fill: 65535 * 64, Indices: n, Bytes: int64(n) * 64}
		c.Word = gather(min(n, 1<<15), 0)
		for w := 1; w < n>>15; w++ {
			c.More = append(c.More, gather(1<<15, w))
		}
		cs = append(cs, c)
	}
	for _, m := range []int{1, 4, 16, 64} {
		rows := m * 16 // 64 KiB of fp32 a row
		cs = append(cs, Case{Name: fmt.Sprintf("cast_fp32_bf16/%dM", m), Fill: m << 22, Values: num.FP32, Bytes: int64(m) << 22,
			Word: fmt.Sprintf(`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[%d, 1], src_elem_size=0,
  dst_start_addr=hbm:0x40000000, dst_step_elem=[0x8000, 0], dst_num_elem=[%d, 1], dst_elem_size=0x8000, in_dtype=fp32, out_dtype=bf16`, rows, rows)})
	}
	for _, n := range []int{256, 1024, 2048, 4096} {
		cs = append(cs, Case{Name: fmt.Sprintf("transpose_bf16/%dx%d", n, n), Fill: 2 * n * n, Bytes: int64(2 * n * n),
			Word: fmt.Sprintf(`dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, %d],
  src_num_elem=[%d, %d], tile_src_row_step=%d, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x40000000,
  dst_step_elem=[2, %d], dst_num_elem=[%d, %d]`, 2*n, n, n, 2*n, 2*n, n, n)})
	}
	return cs, 4 << 30
}
