# run: ndma run examples/deadlock.s   (exit 1: it stops on purpose)
# deadlock.s — a program that hangs on purpose: each stream waits for a semaphore only the other
# raises, after its own wait. `ndma run examples/deadlock.s` stops with the report of
# docs/sched.md: both streams, the word each waits at, the semaphore value against the condition,
# and who last wrote it (nobody).
.gen cayman

.engine pool
dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, semaphore=2, sem_increment=1,
    src_start_addr=hbm:0x0, src_num_elem=[1, 1], src_elem_size=4,
    dst_start_addr=hbm:0x20, dst_num_elem=[1, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32

.engine act
dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=2, semaphore_value=1, semaphore=1, sem_increment=1,
    src_start_addr=hbm:0x0, src_num_elem=[1, 1], src_elem_size=4,
    dst_start_addr=hbm:0x30, dst_num_elem=[1, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32
