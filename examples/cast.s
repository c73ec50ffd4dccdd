# run: ndma run --sem 3=1 examples/cast.s
# cast.s — an FP32 -> BF16 cast on the way from HBM to SBUF (DMAMEMCPY 0xb8, DMA_DIRECT2D,
# field-tables §3.2; in_dtype != out_dtype is a cast through the CCE, §3.2 validity and §11.4).
#
# 128 rows of 256 FP32 values (1 KiB rows in HBM) become 128 rows of 256 BF16 values, one row per
# SBUF partition. A cast counts elements, not bytes (§11.4): both legs walk 256 x 128 elements,
# the src of 4 bytes each (FP32), the dst of 2 bytes each (BF16), rounding to nearest even.
# Byte strides (§11.3): src [4, 1024], dst [2, 0x40000] (the v3 partition stride, §11.2).
.gen cayman

dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=3, semaphore_value=1,
    semaphore=4, sem_increment=1,
    src_start_addr=hbm:0x40000, src_step_elem=[4, 1024], src_num_elem=[256, 128], src_elem_size=4,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[2, 0x40000], dst_num_elem=[256, 128], dst_elem_size=2,
    in_dtype=FP32, out_dtype=BFLOAT16
