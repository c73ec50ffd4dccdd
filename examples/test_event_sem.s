# run: ndma run examples/test_event_sem.s
# test_event_sem.s — a conditional semaphore update over three semaphores (TEST_EVENT_SEM 0xb4,
# CTRL_TEST_ES, MARIANA and later, field-tables §3.10; TEST_EVT_SEM_MODE §5.2; UPDATE_MODE §5.6).
#
# COND_UPDATE_SEM: for each of the num_evt_sem = 3 semaphores 10, 11, 12 whose value is
# >= threshold (1, i.e. a completion is pending), apply update_type to it — SEM_DEC_COMPLETE
# consumes one — and increment the matching value register r20, r21, r22 (a per-semaphore count).
# Immediate update forms (SEM_ADD_IMM_*, SEM_SUB_IMM_*, SEM_WR_IMM_*) are illegal here.
# The ids are unique and the 13 unused slots stay 0. repeat_count 0: one pass.
.gen mariana

test_event_sem mode=COND_UPDATE_SEM, update_type=SEM_DEC_COMPLETE, num_evt_sem=3,
    evt_sem_ids=[10, 11, 12], value_registers=[20, 21, 22], threshold=1
