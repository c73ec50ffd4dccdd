# run: ndma run examples/reduce_add.s
# reduce_add.s — a strided copy with in-flight compute: dst += src (DMAMEMCPY 0xb8,
# DMA_DIRECT2D, field-tables §3.2; compute_op DGE_COMPUTE_OP ADD §5.2; semantics §11.4).
#
# Accumulates a 128 x 128 FP32 block stored row-major in HBM (rows of 512 bytes) into SBUF,
# one row per partition (v4 SBUF partition stride 0x40000 = 256 KiB, §11.2): for every element
# dst = dst + src, computed in fp32. compute_op != NONE takes the CCE path, so starts and steps
# are aligned to the 4-byte element, and both legs carry 128 x 128 x 4 = 64 KiB.
# Strides are byte strides (§11.3): src [4, 512] walks a row then the next row in HBM,
# dst [4, 0x40000] walks a partition's row then the next partition.
.gen mariana

dmamemcpy semaphore=12, sem_increment=1, compute_op=ADD,
    src_start_addr=hbm:0x20000, src_step_elem=[4, 512], src_num_elem=[128, 128], src_elem_size=4,
    dst_start_addr=sbuf:0:0x1000, dst_step_elem=[4, 0x40000], dst_num_elem=[128, 128], dst_elem_size=4,
    in_dtype=FP32, out_dtype=FP32
