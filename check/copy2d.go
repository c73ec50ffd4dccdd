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

func (c *checker) v5Prologue() {
	c.enumOn(pWaitSemaMode, "wait_sema_mode", isa.WaitMode)
	start, count := c.u("dma_engines.start_id"), c.u("dma_engines.engine_count")
	if start+1<<count > v5Engines {
		c.fail(pEngines, "dma_engines.start_id", fmt.Sprint(start), fmt.Sprintf("start_id + %d engines must fit the %d DMA engines of a TPB", 1<<count, v5Engines))
	}
}

func (c *checker) copy2D() {
	c.v5Prologue()
	for _, leg := range []string{"src", "dst"} {
		c.enumOn(pAddrModes, "addr_mode."+leg, isa.DMAAddrMode)
	}
	c.enumOn(pSemaUpdateModes, "sema_update_mode.rd_done", isa.DMASemaUpdateMode)
	c.enumOn(pSemaUpdateModes, "sema_update_mode.wr_done", isa.DMASemaUpdateMode)
	if r := c.u("remote_core_id"); r >= regCount {
		c.failf(pRemoteCore, "remote_core_id", fmt.Sprint(r), "a register number: 0..63")
	}
}

func (c *checker) immediate() {
	c.v5Prologue()
	if n := c.u("dma_engines.engine_count"); n != 0 {
		c.failf(pImmEngines, "dma_engines.engine_count", isa.DMAEngineCount.Format(n), "must be ONE: immediate descriptors go to one queue")
	}
	n := c.u("descriptor_flags.num_descriptors")
	if n < 1 || n > 3 {
		c.failf(pImmNumDesc, "descriptor_flags.num_descriptors", fmt.Sprint(n), "must be 1..3")
	}
	if t, w := c.u("dma_flags.tdg"), c.u("dma_flags.wr_done_sync"); t != 0 || w != 0 {
		c.fail(pImmFlags, "dma_flags", fmt.Sprintf("tdg %d, wr_done_sync %d", t, w), "tdg and wr_done_sync must be 0")
	}
	for k := 0; k < int(min(n, 3)); k++ {
		if c.u(fmt.Sprintf("descriptor_flags.desc%d_src", k)) == 1 { // REGISTER mode
			if r := c.u(fmt.Sprintf("descriptor_reg[%d]", k)); r+3 >= regCount {
				c.fail(pDescRegs, fmt.Sprintf("descriptor_reg[%d]", k), fmt.Sprint(r), "a REGISTER-mode descriptor reads 4 registers: descriptor_reg <= 60")
			}
		}
	}
}
