# run: ndma run --var 1=sbuf:0:0x1000 examples/scalar_movers.s
# scalar_movers.s — the sequencer scalar movers (MEM_2D, field-tables §3.12; source document 000
# names "the sequencer scalar load/store pair (0xaa/0xab)"). `ndma run --var 1=sbuf:0:0x1000` runs it.
#
# TENSOR_STORE (0xab) writes num_elem[0] x num_elem[1] elements of dtype at start_addr, element
# (i0, i1) at start_addr + (i0*step_elem[0] + i1*step_elem[1]) * size (element strides), element
# k = i1*num_elem[0] + i0 taken from data: with src_datasrc=IMMEDIATE the packed bytes
# data[k*size .. k*size+size-1] (at most 32/16/8/4 elements of 1/2/4/8 bytes), with REGISTER the
# low bytes of register data[k]. TENSOR_LOAD (0xaa) reads them back into registers data[k]
# (zero-extended; an 8-byte element fills the pair data[k], data[k]+1 — ndma's reading, INFERRED).
# The whole span must lie in one aligned 16 MiB region.
.gen cayman

# four UINT32 immediates 0x11223344, 0x55667788, 1, 2 -> SBUF partition 0 + 0x100, contiguous
store_imm:
tensor_store dtype=UINT32, src_datasrc=IMMEDIATE, num_elem=[4, 1], start_addr=sbuf:0:0x100,
    step_elem=[1, 0],
    data=[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 1, 0, 0, 0, 2, 0, 0, 0]

# read them back, 2 x 2 (dim 1 steps two elements): r10..r13 = the four values
load_regs:
tensor_load dtype=UINT32, num_elem=[2, 2], start_addr=sbuf:0:0x100, step_elem=[1, 2],
    data=[10, 11, 12, 13]

# r10, r11 as UINT16 into partition 0 + 0x200, every other halfword: 0x3344 at +0x200, 0x7788 at +0x204
store_regs:
tensor_store dtype=UINT16, num_elem=[2, 1], start_addr=sbuf:0:0x200, step_elem=[2, 0], data=[10, 11]

# The compiler's forms (0xcd PSEUDO_TENSOR_STORE, 0xce PSEUDO_TENSOR_LOAD): NEFF variable var_id
# at var_offset instead of start_addr; relocated to 0xab / 0xaa by the runtime (`ndma lower --var`).
pseudo_store:
pseudo_tensor_store dtype=UINT8, src_datasrc=IMMEDIATE, num_elem=[3, 1], var_id=1, var_offset=0x40,
    step_elem=[1, 0], data=[7, 8, 9]
pseudo_load:
pseudo_tensor_load dtype=UINT8, num_elem=[3, 1], var_id=1, var_offset=0x40, step_elem=[1, 0],
    data=[20, 21, 22]
