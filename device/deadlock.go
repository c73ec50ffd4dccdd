package device

import (
	"fmt"
	"strings"

	"ndma/isa"
	"ndma/neff"
)

// raisers are the fields that can raise a semaphore: an EVENTS update, a
// DMA's completion semaphore, the CCI and queue forms. A field of these
// names counts whatever its mode (an upper bound of what can be raised).
var raisers = map[string]bool{
	"update_idx": true, "semaphore": true, "semid": true, "wr_done_sema_update_idx": true,
	"rd_done_sema_update_idx": true, "remote_sem": true, "local_sem": true, "evt_sem_ids": true,
}

// raises notes in raised the semaphores word in names in a raising field;
// false for a COMPACT_CONTROL_INST (whose semaphore writes are computed).
func raises(in *isa.Inst, raised map[int]bool) bool {
	if in.Opcode() == isa.OpCompactControlInst {
		return false
	}
	for li, l := range in.Layout().Leaves() {
		name := l.Path[strings.LastIndexByte(l.Path, '.')+1:]
		if j := strings.IndexByte(name, '['); j >= 0 {
			name = name[:j]
		}
		if raisers[name] {
			raised[int(in.Leaf(li)&255)] = true
		}
	}
	return true
}

// checkWaits adds, for every wait of p's streams on a semaphore no word,
// queue or block of the NEFF ever names as one it raises, the deadlock the
// run would end in (issue 30 M7: check said 0 problems on NEFFs that run
// then deadlocks on). A wait GE v ≥ 1 or GT v ≥ 0 on such a semaphore can
// never hold: semaphores start at 0. A program with a COMPACT_CONTROL_INST
// is not judged (its semaphore writes are computed).
func checkWaits(p *Program, sgs []neff.Subgraph, add func(neff.Problem)) {
	raised := map[int]bool{}
	for si := range sgs {
		for _, q := range sgs[si].Queues() {
			for _, s := range q.Semaphores {
				raised[s&255] = true
			}
			if q.Semaphore != nil {
				raised[*q.Semaphore&255] = true
			}
		}
		blocks := sgs[si].Blocks
		for e := range sgs[si].Engines {
			blocks = append(blocks[:len(blocks):len(blocks)], sgs[si].Engines[e].Blocks...)
		}
		for _, b := range blocks {
			if b.Semaphore != nil {
				raised[*b.Semaphore&255] = true
			}
		}
	}
	for k := range p.Streams {
		for i := range p.Streams[k].Steps {
			s := &p.Streams[k].Steps[i]
			if !raises(&s.Word, raised) {
				return
			}
			for r := range s.Run {
				if !raises(&s.Run[r], raised) {
					return
				}
			}
		}
	}
	for k := range p.Streams {
		st := &p.Streams[k]
		for i := range st.Steps {
			s := &st.Steps[i]
			ev, ok := s.Word.Events()
			if !ok {
				continue
			}
			mode, idx, v := ev.WaitMode(), int(ev.WaitIdx()), int64(int32(ev.SemaphoreValue()))
			if raised[idx] || !(mode == isa.WaitModeWaitForSemGEImm && v >= 1 || mode == isa.WaitModeWaitForSemGTImm && v >= 0) {
				continue
			}
			add(neff.Problem{Subgraph: st.Subgraph, Engine: st.Key, Offset: s.Offset, Msg: fmt.Sprintf(
				"%s waits on $S[%d] (%s %d), which no word, queue or block of the NEFF raises: the run deadlocks here", s.Word.Def().Mnemonic(), idx, mode, v)})
		}
	}
}
