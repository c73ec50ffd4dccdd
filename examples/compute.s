# run: ndma validate examples/compute.s
# compute.s — the compute-engine words ndma decodes (docs/compute.md), one of each, as a CAYMAN
# engine stream holds them: the SET_ORDERING_MODE / PSEUDO_BRANCH_LABEL prologue, the ACT table load,
# a PE transpose (LDWEIGHTS + MATMUL, §5.5), an eviction COPY, the DVE words, and the waits.
# ndma decodes, assembles, checks and lists these words; it runs only their EVENTS (their data
# semantics are later work), so this program moves no data.
.gen cayman

set_ordering_mode
pseudo_branch_label
activation_table_load
ldweights src_mem_pattern.start_addr=sbuf:0:0x1fe, src_mem_pattern.step_elem=[-1, 0, 0],
    src_mem_pattern.num_elem=[128, 1, 1], in_dtype=FP16, transpose_mode=1,
    num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15
matmul update_mode=SEM_INC_COMPLETE, update_idx=5,
    src_mem_pattern.start_addr=sbuf:0:0x1000, src_mem_pattern.step_elem=[1, 0, 0],
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
    start_addr=sbuf:0:0x4000, step_elem=[1, 0, 0, 0], num_elem=[64, 1, 1, 1]
tensor_tensor dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=ADD, num_active_channels=128,
    src0_mem_pattern.start_addr=sbuf:0:0x4000, src0_mem_pattern.step_elem=[1, 0, 0],
    src0_mem_pattern.num_elem=[64, 1, 1], src1_mem_pattern.start_addr=sbuf:0:0x5000,
    src1_mem_pattern.num_elem=[64, 1, 1], dst_mem_pattern.start_addr=sbuf:0:0x6000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_tensor_bitvec_op dtype_lo=INT32, dtype_hi=INT32, out_dtype=INT32, op=BITWISE_AND,
    num_active_channels=128, src0_mem_pattern.start_addr=sbuf:0:0x4000,
    src0_mem_pattern.step_elem=[1, 0, 0], src0_mem_pattern.num_elem=[64, 1, 1],
    src1_mem_pattern.start_addr=sbuf:0:0x5000, src1_mem_pattern.step_elem=[1, 0, 0],
    src1_mem_pattern.num_elem=[64, 1, 1], dst_mem_pattern.start_addr=sbuf:0:0x7000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar src_mem_pattern.start_addr=sbuf:0:0x6000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=FP32, out_dtype=FP32, num_active_channels=128,
    op0=MULT, op1=ADD, imm0=0x40000000, imm1=0x3f800000, dst_mem_pattern.start_addr=sbuf:0:0x8000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar_bitvec_op src_mem_pattern.start_addr=sbuf:0:0x7000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=INT32, out_dtype=INT32, num_active_channels=128,
    op0=BITWISE_OR, imm0=0xff, dst_mem_pattern.start_addr=sbuf:0:0x9000,
    dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar_ptr_arith_op src_mem_pattern.start_addr=sbuf:0:0x6000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=FP32, out_dtype=FP32, num_active_channels=128,
    imm0_src=POINTER_IMMEDIATE, imm1_src=POINTER_IMMEDIATE, op0=MULT, op1=ADD, imm0=0xc000, imm1=0xc004,
    dst_mem_pattern.start_addr=sbuf:0:0x8100, dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_scalar_ptr_bitvec_op src_mem_pattern.start_addr=sbuf:0:0x7000, src_mem_pattern.step_elem=[1, 0, 0],
    src_mem_pattern.num_elem=[64, 1, 1], in_dtype=INT32, out_dtype=INT32, num_active_channels=128,
    imm0_src=POINTER_IMMEDIATE, op0=BITWISE_AND, imm0=0xc008,
    dst_mem_pattern.start_addr=sbuf:0:0x9100, dst_mem_pattern.step_elem=[1, 0, 0], dst_mem_pattern.num_elem=[64, 1, 1]
tensor_reduce src_mem_pattern.start_addr=sbuf:0:0x8000, src_mem_pattern.step_elem=[1, 2, 0, 0],
    src_mem_pattern.num_elem=[2, 32, 1, 1], in_dtype=FP32, out_dtype=FP32, num_active_channels=128,
    op=MAX, op_dim=X, dst_mem_pattern.start_addr=sbuf:0:0xa000,
    dst_mem_pattern.step_elem=[1, 0, 0, 0], dst_mem_pattern.num_elem=[32, 1, 1, 1]
cast src_mem_pattern.start_addr=sbuf:0:0xa000, src_mem_pattern.step_elem=[1, 0, 0, 0],
    src_mem_pattern.num_elem=[32, 1, 1, 1], in_dtype=FP32, out_dtype=FP16, num_active_channels=128,
    dst_mem_pattern.start_addr=sbuf:0:0xb000, dst_mem_pattern.step_elem=[1, 0, 0, 0],
    dst_mem_pattern.num_elem=[32, 1, 1, 1]
nop
