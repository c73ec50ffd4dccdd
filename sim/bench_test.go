package sim

import (
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

func benchSim(b *testing.B, x *Machine, src string, bytes int64) {
	obj := mustWord(b, src)
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Exec(obj); err != nil {
			b.Fatal(err)
		}
	}
}

func mustWord(b *testing.B, src string) *isa.Inst { return wordTB(b, isa.Cayman, src) }

func fillSim(b *testing.B, x *Machine, addr uint64, n int) {
	buf := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	if err := x.Mem.Write(addr, buf); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSim: the data paths of ref's BenchmarkRef through the DGE
// lowering and the descriptor engines (bench/compare.sh prints the ratios).
func BenchmarkSim(b *testing.B) {
	b.Run("copy64MiB", func(b *testing.B) {
		x := New(isa.Cayman)
		fillSim(b, x, hbm, 64<<20)
		benchSim(b, x, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0], src_num_elem=[1024, 1], src_elem_size=0,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[0x10000, 0], dst_num_elem=[1024, 1], dst_elem_size=0, in_dtype=u8, out_dtype=u8`, 64<<20)
	})
	b.Run("transpose_bf16_1024x1024", func(b *testing.B) {
		x := New(isa.Cayman)
		x.RingSize = 1 << 20
		fillSim(b, x, hbm, 2<<20)
		benchSim(b, x, `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 2048],
  src_num_elem=[1024, 1024], tile_src_row_step=2048, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x10000000,
  dst_step_elem=[2, 2048], dst_num_elem=[1024, 1024]`, 2<<20)
	})
	b.Run("gather_4096_rows_of_512B", func(b *testing.B) {
		x := New(isa.Cayman)
		x.RingSize = 1 << 16
		fillSim(b, x, hbm, 32<<20)
		r := rand.New(rand.NewPCG(2, 2))
		for j := 0; j < 4096; j++ {
			v := uint32(r.IntN(65535))
			x.Mem.Write(uint64(j%128)*0x40000+4*uint64(j/128), []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
		}
		benchSim(b, x, `dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=512, src_num_elem=65535, src_elem_size=512, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x10000000,
  dst_step_elem=512, dst_num_elem=4096, dst_elem_size=512, in_dtype=fp16, out_dtype=fp16`, 4096*512)
	})
}
