package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_COPY2D 0xb9 and DMA_IMMEDIATE 0xba (MAVERICK) — field-tables §3.8,
// §3.9, §5.3–§5.5; source document 000 §3b, §3c (the 0xba rules are prose).

// v5Engines is the number of DMA engines per TPB on MAVERICK (field-tables §6.3).
const v5Engines = 8

// regCount is the number of 32-bit registers of an engine stream (§11.6).
const regCount = 64

// v5Prologue checks the wait and the engine fan-out both words open with.
func (c *checker) v5Prologue(mode isa.WaitModeCode, eng isa.DMAEngineConfigView) {
	enumOn(c, pWaitSemaMode, "wait_sema_mode", mode)
	start, count := eng.StartID(), eng.EngineCount()
	if start+1<<count > v5Engines {
		c.fail(pEngines, "dma_engines.start_id", fmt.Sprint(start), fmt.Sprintf("start_id + %d engines must fit the %d DMA engines of a TPB", 1<<count, v5Engines))
	}
}

func (c *checker) copy2D() {
	v, _ := c.in.Copy2D()
	c.v5Prologue(v.WaitSemaMode(), v.DMAEngines())
	enumOn(c, pAddrModes, "addr_mode.src", v.AddrMode().Src())
	enumOn(c, pAddrModes, "addr_mode.dst", v.AddrMode().Dst())
	enumOn(c, pSemaUpdateModes, "sema_update_mode.rd_done", v.SemaUpdateMode().RdDone())
	enumOn(c, pSemaUpdateModes, "sema_update_mode.wr_done", v.SemaUpdateMode().WrDone())
	if r := v.RemoteCoreID(); r >= regCount {
		c.failf(pRemoteCore, "remote_core_id", fmt.Sprint(r), "a register number: 0..63")
	}
}

func (c *checker) immediate() {
	v, _ := c.in.Immediate()
	c.v5Prologue(v.WaitSemaMode(), v.DMAEngines())
	if n := v.DMAEngines().EngineCount(); n != isa.DMAEngineCountOne {
		c.failf(pImmEngines, "dma_engines.engine_count", n.String(), "must be ONE: immediate descriptors go to one queue")
	}
	f := v.DescriptorFlags()
	n := f.NumDescriptors()
	if n < 1 || n > 3 {
		c.failf(pImmNumDesc, "descriptor_flags.num_descriptors", fmt.Sprint(n), "must be 1..3")
	}
	if t, w := v.DMAFlags().TDG(), v.DMAFlags().WrDoneSync(); t != 0 || w != isa.SemaSyncSOW {
		c.fail(pImmFlags, "dma_flags", fmt.Sprintf("tdg %d, wr_done_sync %d", t, w), "tdg and wr_done_sync must be 0")
	}
	src := [3]isa.DMADescModeCode{f.Desc0Src(), f.Desc1Src(), f.Desc2Src()}
	for k := 0; k < int(min(n, 3)); k++ {
		if src[k] == isa.DMADescModeRegister {
			if r := v.DescriptorReg(k); r+3 >= regCount {
				c.fail(pDescRegs, fmt.Sprintf("descriptor_reg[%d]", k), fmt.Sprint(r), "a REGISTER-mode descriptor reads 4 registers: descriptor_reg <= 60")
			}
		}
	}
}
