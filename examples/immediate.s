# run: ndma run --sem 5=1 examples/immediate.s
# immediate.s — a MAVERICK DMA carrying its own SDMA descriptors (DMA_IMMEDIATE 0xba,
# field-tables §3.9; DESC_FLAGS §2.5; descriptor layout §11.7, INFERRED from the Neuron driver).
#
# Two raw 16-byte buffer descriptors, both IMMEDIATE (the bytes are in the word):
#   desc 0, the M2S (read) leg:  read 512 bytes at HBM 0x1_0000_0000
#   desc 1, the S2M (write) leg: write them to SBUF partition 2 of core 0, SoC address
#                                0x20_0000_0000 + 0x200000 = 0x20_0020_0000 (§11.2)
# Each descriptor, little-endian: len_ctrl = 0x0c000200 (length 0x200, FIRST bit 26, LAST bit 27),
# word1 = 0x00000080 (CME command: op CME = 2 in bits 8:6, optype COPY), buf_ptr (8 bytes).
# Rules of §3.9: engine_count ONE (the default 0), tdg = wr_done_sync = 0, num_descriptors 1..3.
# The third descriptor is omitted (an array's missing trailing elements are zero).
.gen maverick

dma_immediate wait_sema_value=1, wait_sema_idx=5, wait_sema_mode=WAIT_FOR_SEM_GE_IMM,
    start_id=2, queue_id=0,
    num_descriptors=2, desc0_src=IMMEDIATE, desc1_src=IMMEDIATE,
    descriptor_imm=[bytes(0002000c800000000000000001000000),
                    bytes(0002000c800000000000200020000000)]
