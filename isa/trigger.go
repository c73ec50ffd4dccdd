package isa

import "strings"

// PSEUDO_DMA_TRIGGER 0xc1 — field-tables §3.12, neff.md §5.2: the style-A
// trigger. The runtime resolves dma_queue_name through def.json's dma_queue
// and block_id to the dma[] block of that id in the owner engine's JSON.

// pseudoTriggerLayout is the layout of the 0xc1 word (8-byte events dialect: the
// name starts at +0x0C).
var pseudoTriggerLayout = (&Struct{Name: "PSEUDO_DMA_TRIGGER", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	text(12, 32, "dma_queue_name", Carried, "NUL-padded ASCII: a def.json dma_queue name (or <queue>_defId_<n> instance)"),
	u32(44, "use_raw_count", Observed, "non-zero: block_id is a raw descriptor count (no sample uses it)"),
	u32(48, "block_id", Observed, "the id of the dma[] block this trigger fires"),
	reserved(52, 12, "reserved", Observed, "the 4-byte-events dialect's 16 reserved bytes, shortened by the wider events"),
}}).finish()

// TextBytes returns the bytes of a Text field as the string they hold (up to
// the first NUL) and whether they are clean: every byte after that NUL is
// zero and every byte before it is printable ASCII other than blanks and
// `"` `\` `,` `[` `]` `(` `)` `#` `=` `;` — the form text prints as a string.
func TextBytes(b []byte) (string, bool) {
	n := len(b)
	for i, c := range b {
		if c == 0 {
			n = i
			break
		}
	}
	for _, c := range b[n:] {
		if c != 0 {
			return "", false
		}
	}
	for _, c := range b[:n] {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"\\,[]()#=;`, c) >= 0 { // what the text syntax reads itself
			return "", false
		}
	}
	return string(b[:n]), true
}
