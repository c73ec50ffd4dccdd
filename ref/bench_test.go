package ref

import (
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

func benchWord(b *testing.B, x *Machine, src string, bytes int64) {
	in := asmWord(b, isa.Cayman, src)
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Exec(in); err != nil {
			b.Fatal(err)
		}
	}
}

// fill writes n pseudo-random bytes at addr.
func fill(b *testing.B, x *Machine, addr uint64, n int) {
	buf := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	if err := x.Mem.Write(addr, buf); err != nil {
		b.Fatal(err)
	}
}

const mib64 = 64 << 20

// BenchmarkGoCopy64MiB is the reference the copy path is measured against in
// the same run (bench/compare.sh prints the ratio).
func BenchmarkGoCopy64MiB(b *testing.B) {
	src, dst := make([]byte, mib64), make([]byte, mib64)
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(mib64)
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkRef measures each data path of the reference.
func BenchmarkRef(b *testing.B) {
	b.Run("copy64MiB", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, mib64)
		benchWord(b, x, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8`, mib64)
	})
	b.Run("strided4MiB", func(b *testing.B) { // 64-byte rows, every other one
		x := New(isa.Cayman)
		fill(b, x, hbm, 8<<20)
		benchWord(b, x, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 0], src_num_elem=[65535, 1], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 0], dst_num_elem=[65535, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, 65535*64)
	})
	b.Run("cast_fp32_bf16_1M", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, 4<<20)
		benchWord(b, x, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[64, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x8000, 0], dst_num_elem=[64, 1], dst_elem_size=0x8000, in_dtype=fp32, out_dtype=bf16`, 4<<20)
	})
	b.Run("reduce_add_fp32_1M", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, 4<<20)
		benchWord(b, x, `dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[64, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[64, 1], dst_elem_size=0, in_dtype=fp32, out_dtype=fp32`, 4<<20)
	})
	b.Run("transpose_bf16_4096x4096", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, 32<<20)
		benchWord(b, x, `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 8192],
  src_num_elem=[4096, 4096], tile_src_row_step=8192, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x10000000,
  dst_step_elem=[2, 8192], dst_num_elem=[4096, 4096]`, 32<<20)
	})
	b.Run("gather_transpose_4096x256", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, 32<<20)
		r := rand.New(rand.NewPCG(2, 2))
		for j := 0; j < 4096; j++ {
			v := uint32(r.IntN(65535))
			x.Mem.Write(uint64(j%128)*0x40000+4*uint64(j/128), []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
		}
		// 4096 indices; each row 256 two-byte elements; dst(j, k) at dst + 2j + k·8192
		benchWord(b, x, `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 512],
  src_num_elem=[256, 4096], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000, dst_step_elem_1=8192,
  dst_num_elem=[4096, 256], elem_size=512, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, 4096*512)
	})
	b.Run("gather_4096_rows_of_512B", func(b *testing.B) {
		x := New(isa.Cayman)
		fill(b, x, hbm, 32<<20)
		r := rand.New(rand.NewPCG(2, 2))
		for j := 0; j < 4096; j++ {
			v := uint32(r.IntN(65535))
			x.Mem.Write(uint64(j%128)*0x40000+4*uint64(j/128), []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
		}
		benchWord(b, x, `dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=512, src_num_elem=65535, src_elem_size=512, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000,
  dst_step_elem=512, dst_num_elem=4096, dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 4096*512)
	})
}
