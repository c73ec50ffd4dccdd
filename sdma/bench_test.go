package sdma

import (
	"math/rand/v2"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

func benchLower(b *testing.B, src string, opt Options) {
	in := word(b, isa.Cayman, src)
	descs := 0
	b.ReportAllocs()
	for b.Loop() {
		_, lw, err := Lower(&in, isa.Cayman, dge.Options{}, opt) // the program reads opt.Index (its rows), Expand their values
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range lw.Queues {
			descs += len(q.M2S) + len(q.S2M)
		}
	}
	b.ReportMetric(float64(descs)/b.Elapsed().Seconds()/1e6, "Mdesc/s")
}

// BenchmarkLower: word → descriptors for the three shapes of the issue.
func BenchmarkLower(b *testing.B) {
	b.Run("copy128x64KiB", func(b *testing.B) {
		benchLower(b, `dmamemcpy semaphore=1, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[0x10000, 0],
  src_num_elem=[128, 1], src_elem_size=0, dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 0], dst_num_elem=[128, 1],
  dst_elem_size=0, in_dtype=u8, out_dtype=u8`, Options{})
	})
	b.Run("transpose64x128", func(b *testing.B) {
		benchLower(b, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000,
  dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, Options{})
	})
	b.Run("transpose1024x1024", func(b *testing.B) { // internal/benchcase's transpose_bf16_1024x1024
		benchLower(b, `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 2048],
  src_num_elem=[1024, 1024], tile_src_row_step=2048, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x10000000,
  dst_step_elem=[2, 2048], dst_num_elem=[1024, 1024]`, Options{})
	})
	b.Run("gather4096", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		idx := make([]uint32, 4096)
		for j := range idx {
			idx[j] = uint32(r.IntN(65536))
		}
		benchLower(b, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=256, src_num_elem=65535, src_elem_size=256, dst_start_addr=hbm:0x4000000,
  dst_step_elem=256, dst_num_elem=4096, dst_elem_size=256, src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp16, out_dtype=fp16`,
			Options{Index: func(_, j int) (uint32, error) { return idx[j] % 65535, nil }})
	})
}
