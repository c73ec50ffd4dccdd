package nkic

import (
	"encoding/json"
	"strconv"
)

// AppendCallsJSON appends calls as JSON, byte for byte what encoding/json
// makes of the []CallTrace (its field names, omitempty and string escapes;
// tracejson_test.go holds the two equal): a traced kernel's batch replies
// with ~900 bytes a call, and reflection spent more time encoding them than
// the calls took to run (docs/nki.md "Speed").
func AppendCallsJSON(b []byte, calls []CallTrace) []byte {
	if calls == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCallJSON(b, &calls[i])
	}
	return append(b, ']')
}

func appendCallJSON(b []byte, c *CallTrace) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(c.Index), 10)
	b = appendField(b, "op", c.Op, false)
	b = appendField(b, "file", c.File, true)
	if c.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(c.Line), 10)
	}
	b = appendField(b, "kind", c.Kind, false)
	b = appendField(b, "dge_mode", c.Mode, true)
	b = appendField(b, "backend", c.Backend, true)
	b = appendField(b, "queue", c.Queue, true)
	b = appendField(b, "engine", c.Engine, true)
	b = append(b, `,"exact":`...)
	b = strconv.AppendBool(b, c.Exact)
	b = appendField(b, "note", c.Note, true)
	if len(c.Words) > 0 {
		b = append(b, `,"words":[`...)
		for i, w := range c.Words {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"hex":`...)
			b = appendString(b, w.Hex)
			b = appendField(b, "text", w.Text, false)
			b = appendField(b, "resolved", w.Resolved, true)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, c.Bytes, 10)
	b = append(b, `,"descriptors":`...)
	b = strconv.AppendInt(b, int64(c.Descriptors), 10)
	if len(c.DMAs) > 0 {
		b = append(b, `,"dma_engines":[`...)
		for i, d := range c.DMAs {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"rows_skipped":`...)
	b = strconv.AppendInt(b, int64(c.RowsSkipped), 10)
	b = append(b, `,"time_ns":`...)
	b = strconv.AppendInt(b, c.TimeNS, 10)
	b = appendStrings(b, "dge", c.DGE)
	b = appendStrings(b, "descriptors_list", c.Desc)
	return append(b, '}')
}

// appendField appends ,"name":value (nothing for an empty value under omitempty).
func appendField(b []byte, name, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendStrings(b []byte, name string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendString appends s quoted: as is when every byte is printable ASCII
// that encoding/json leaves alone, else as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
