package isa

// Words without a table of their own (field-tables §3.0 "known, not decoded",
// and opcodes no source names).

// rawLayout is the layout an opcode without a table decodes by: the common header
// and EVENTS, the rest as bytes (so any stream can be listed).
var rawLayout = (&Struct{Name: "RAW", Size: 64, Prov: Inferred, Fields: []Field{
	headerField(),
	eventsField(),
	rawBytes(12, 52, "payload", Inferred, "not decoded"),
}}).finish()
