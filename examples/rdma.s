# run: ndma validate examples/rdma.s
# rdma.s — the RDMA extended words (EXTENDED_INST 0xf0, CAYMAN and later, field-tables §3.12),
# decoded and validated; ndma does not execute them (no source says what they move beyond the
# field names: RATIONALE.md). extended_opcode 8 is RDMA_DESC_GEN, 9 RDMA_DESC_START.
.gen cayman

# RDMA_DESC_GEN — 512 bytes per partition from SBUF
# + 0x1000 to the peer's SBUF + 0x2000 on DMA engine 2 (mask 0x4), local semaphore 3, remote 4;
# then RDMA_DESC_START (ext-op 9), whose bytes after completion_info are reserved.
rdma_gen:
extended_inst extended_opcode=RDMA_DESC_GEN, local_sem=3, remote_sem=4, remote_core_id=1,
    dma_engine_mask=0x4, src_addr=0x1000, dst_addr=0x2000, free_dim_bytes=512
rdma_start:
extended_inst extended_opcode=RDMA_DESC_START
