// Package isa is the byte-exact model of the GPSIMD data-movement instruction
// words: generations, the opcode catalog, one declarative layout table per
// 64-byte struct, the enums, the address unions, and Decode/Encode.
//
// Every offset lives in a layout table (field-tables §2–§4); decoding,
// encoding, JSON, the `ndma describe` field map and, later, validation and the
// assembler all derive from those tables.
package isa
