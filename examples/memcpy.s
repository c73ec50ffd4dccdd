# run: ndma run examples/memcpy.s
# memcpy.s — the C08220 2-D DGE memcpy of source document 003 §7.2 (field-tables §9.2),
# resolved to DMAMEMCPY words (0xb8, DMA_DIRECT2D, field-tables §3.2).
#
# pool.json: q_gradient_in  desc[0] = input -> gradient_in,  sizes [128,1], steps [1,128] (elements)
#            q_gradient_out desc[0] = gradient_out -> output, same pattern
# def.json:  input/output are FP32 (element_size 4), 128 elements; q_gradient_in completes on
#            semaphore 10, q_gradient_out on semaphore 11.
#
# The 64-byte word carries BYTE strides (field-tables §11.3): element steps [1, 128] x 4 bytes
# = [4, 512]. 128 x 1 x 4 = 512 bytes per leg, one SDMA chunk. compute_op NONE and
# in_dtype == out_dtype: a plain copy, so both legs move the same number of bytes.
# Addresses (field-tables §11.2): input at the start of HBM, gradient_in/gradient_out in SBUF
# partition 0, output 4 KiB further into HBM.
.gen cayman

# q_gradient_in: HBM input -> SBUF gradient_in; completion adds 1 to semaphore 10.
gradient_in:
dmamemcpy semaphore=10, sem_increment=1,
    src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4,
    in_dtype=FP32, out_dtype=FP32

# q_gradient_out: SBUF gradient_out -> HBM output. EVENTS gates the issue until semaphore 10
# reached 1 (the input copy completed; field-tables §2.2); completion adds 1 to semaphore 11.
gradient_out:
dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=10, semaphore_value=1,
    semaphore=11, sem_increment=1,
    src_start_addr=sbuf:0:0x200, src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4,
    dst_start_addr=hbm:0x1000, dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4,
    in_dtype=FP32, out_dtype=FP32
