# bound.s — the README tour's fault: 4 lanes of 4 bytes from HBM into SBUF partition 0 at
# 0x100..0x10f, the destination bounded by register r9 (dst_bound_reg). With `--reg r9=0x10b`
# lane 3's last byte 0x10f is past the limit: the word faults, nothing is written, and
# `ndma run` exits 1 naming the word, the lane, the address and the rule.
.gen cayman

dmamemcpy dst_bound_reg.bc_reg=9, dst_bound_reg.bc_enabled=1,
    src_start_addr=hbm:0x0, src_step_elem=[4, 4], src_num_elem=[1, 4], src_elem_size=4,
    dst_start_addr=sbuf:0:0x100, dst_step_elem=[4, 4], dst_num_elem=[1, 4], dst_elem_size=4,
    in_dtype=FP32, out_dtype=FP32
