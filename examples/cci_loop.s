# run: ndma run examples/cci_loop.s
# cci_loop.s — a counted loop in one COMPACT_CONTROL_INST word (0xb6, CTRL_CCI, MAVERICK only,
# field-tables §3.11; CCOP codes and member layouts as ndma pins them, RATIONALE.md, INFERRED).
#
# r1 = 16 x 4 = 64: r2 counts 16 down to 0, each pass adds r3 (4) into r1; cmp_ne sets r5 while
# r2 != r0 (0) and br_rel_imm_t jumps back to `loop` while r5 is set — the label's value in a
# branch is the slot offset from the branch (here -3). Then sem_add adds r1 (+ imm 0) to
# semaphore 7. The remaining slots are padded with nop (15 in all).
.gen maverick

compact_control_inst
    mov_imm_lo r0, 0          # r0 = 0, the loop bound
    mov_imm_lo r1, 0          # r1 = the sum
    mov_imm_lo r2, 16         # r2 = the pass count
    mov_imm_lo r3, 4          # r3 = added per pass
    mov_imm_lo r4, 1          # r4 = the decrement
loop:
    add r1, r1, r3
    sub r2, r2, r4
    cmp_ne r5, r2, r0
    br_rel_imm_t r5, loop
    sem_add 7, r1, 0
