package sim

import (
	"encoding/binary"
	"fmt"

	"ndma/internal/control"
	"ndma/isa"
	"ndma/sdma"
)

// immediate runs a DMA_IMMEDIATE (0xba, MAVERICK; field-tables §3.9): its
// 1–3 raw descriptors go straight to engine start_id's queue. Direction
// (INFERRED, docs/sim.md): the descriptors up to and including the first
// with LAST are the M2S (read) leg, the rest the S2M (write) leg. They are
// not on a ring, so their ring_phase is not checked; a write into the
// EVT_SEM INC window adds 1.
func (x *Machine) immediate(in *isa.Inst) error {
	name := in.Def().Mnemonic()
	fault := func(rule string, err error) error {
		return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf("%s: %w", rule, err)}
	}
	if err := control.WaitSema(x.state(), in); err != nil {
		return err
	}
	v, _ := in.Immediate()
	df, flags := v.DescriptorFlags(), v.DMAFlags()
	n := int(df.NumDescriptors())
	switch {
	case n < 1 || n > 3:
		return fault("num_descriptors", fmt.Errorf("%d descriptors: 1 to 3", n))
	case v.DMAEngines().EngineCount() != isa.DMAEngineCountOne:
		return fault("engine_count", fmt.Errorf("must be ONE (docs/field-tables.md §3.9)"))
	case flags.TDG() != 0 || flags.WrDoneSync() != isa.SemaSyncSOW:
		return fault("dma_flags", fmt.Errorf("tdg and wr_done_sync must be 0 (docs/field-tables.md §3.9)"))
	}
	mode := [3]isa.DMADescModeCode{df.Desc0Src(), df.Desc1Src(), df.Desc2Src()}
	ds := make([]sdma.Desc, n)
	for k := range ds {
		if mode[k] == isa.DMADescModeImmediate { // the bytes in the word
			ds[k] = v.DescriptorImm(k)
			continue
		}
		b := int(v.DescriptorReg(k)) // REGISTER: r[b..b+3] at bits 0/32/64/96
		if b+3 >= 64 {
			return fault(fmt.Sprintf("descriptor_reg[%d]", k), fmt.Errorf("r%d..r%d: there are 64 registers", b, b+3))
		}
		for i := 0; i < 4; i++ {
			binary.LittleEndian.PutUint32(ds[k][4*i:], x.Regs[b+i])
		}
	}
	split := n
	for k := range ds {
		if ds[k].Last() {
			split = k + 1
			break
		}
	}
	if split == n {
		return fault("descriptors", fmt.Errorf("no S2M descriptor: the M2S leg (up to the first LAST) takes all %d: %w", n, ErrStream))
	}
	dma := int(v.DMAEngines().StartID())
	w := Work{SemInc: 1, Inline: true, Queue: sdma.Queue{DMA: dma, Queue: int(flags.QueueID()), M2S: ds[:split], S2M: ds[split:],
		Doorbells: []sdma.Doorbell{{DMA: dma, Reg: "TDRTP_inc", Value: split}, {DMA: dma, Reg: "RDRTP_inc", Value: n - split}}}}
	if err := x.runWork(name, []Work{w}); err != nil {
		return err
	}
	x.Stats.TimeNS += wordTime(0, []Work{w})
	return nil
}
