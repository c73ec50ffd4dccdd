package isa

// CTRL_TEST_ES, opcode 0xb4 TEST_EVENT_SEM (MARIANA+) — field-tables §3.10,
// source document 000 §3f, §8f.

// testESLayout is the layout of the 0xb4 word.
var testESLayout = (&Struct{Name: "CTRL_TEST_ES", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	enum8(12, "mode", testEvtSemModeEnum, Observed, ""),
	enum8(13, "update_type", updateModeEnum, Observed, "immediate forms are illegal here"),
	u8(14, "repeat_count", Observed, "the loop runs rep = 0..repeat_count inclusive (source document 000 §8f, docs/sources.md)"),
	u8(15, "num_evt_sem", Observed, "1..16"),
	u8(16, "evt_sem_ids", Observed, "unique; unused slots 0").arr(16),
	u8(32, "value_registers", Observed, "REG_NUM per slot").arr(16),
	u32(48, "threshold", Observed, "COND_UPDATE_SEM: sem ≥ threshold ⇒ update"),
	u8(52, "setter_signature", Carried, ""),
	reserved(53, 11, "reserved0", Carried, "must be 0"),
}}).finish()
