package pybridge

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"ndma/asm"
	"ndma/check"
	"ndma/device"
	"ndma/dge"
	"ndma/dtype"
	"ndma/isa"
	"ndma/sdma"
)

// genArg is a generation argument: "" is GenAny (a text file's .gen, or
// none); else a name or version ParseGen reads.
func genArg(s string) (isa.Gen, error) {
	if s == "" {
		return isa.GenAny, nil
	}
	g, err := isa.ParseGen(s)
	if err != nil {
		return g, &ArgError{Name: "gen", Msg: "gen: " + err.Error()}
	}
	return g, nil
}

// needGen is a generation a call cannot do without.
func needGen(s string) (isa.Gen, error) {
	g, err := genArg(s)
	if err == nil && g == isa.GenAny {
		err = &ArgError{Name: "gen", Msg: "gen: give a generation (\"cayman\", \"v3\", …)"}
	}
	return g, err
}

// assemble is text assembled for gen (its .gen wins), held to its rules
// unless validate is false (check.Object).
func assemble(name, text, gen string, validate bool) (*asm.Object, error) {
	g, err := genArg(gen)
	if err != nil {
		return nil, err
	}
	obj, err := asm.Assemble(name, []byte(text), asm.Options{Gen: g})
	if err != nil {
		return nil, err
	}
	if validate {
		list, err := check.Object(name, obj)
		if err != nil {
			return nil, err
		}
		if len(list) > 0 {
			ps, _ := check.Stream(obj.Gen, obj.Code)
			var errs []check.Problem
			for _, p := range ps {
				if p.Severity == check.Error {
					errs = append(errs, p)
				}
			}
			return nil, &ValidationError{Problems: errs, Diagnostics: list}
		}
	}
	return obj, nil
}

// words are buffer 0 as a whole number of words.
func words(c *Call) ([]byte, error) {
	b, err := c.Buf(0, "words")
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || len(b)%isa.WordSize != 0 {
		return nil, &ArgError{Name: "words", Msg: fmt.Sprintf("words: %d bytes: want a positive multiple of %d", len(b), isa.WordSize)}
	}
	return b, nil
}

type genArgs struct {
	Gen string `json:"gen"`
}

// genWords are the arguments of a call on words: the generation (need: one
// must be given) and buffer 0's words.
func genWords(c *Call, need bool) (isa.Gen, []byte, error) {
	var a genArgs
	if err := c.Decode(&a); err != nil {
		return isa.GenAny, nil, err
	}
	parse := genArg
	if need {
		parse = needGen
	}
	g, err := parse(a.Gen)
	if err != nil {
		return g, nil, err
	}
	b, err := words(c)
	return g, b, err
}

func init() {
	Register("asm", func(c *Call) (Reply, error) {
		var a struct {
			Text     string `json:"text"`
			Name     string `json:"name"`
			Gen      string `json:"gen"`
			Validate bool   `json:"validate"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		if a.Name == "" {
			a.Name = "<text>"
		}
		obj, err := assemble(a.Name, a.Text, a.Gen, a.Validate)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: map[string]any{"gen": genName(obj.Gen)}, Blob: obj.Code}, nil
	})
	Register("disasm", func(c *Call) (Reply, error) {
		g, b, err := genWords(c, false)
		if err != nil {
			return Reply{}, err
		}
		text, err := asm.Disassemble(g, b)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: string(text)}, nil
	})
	Register("decode", func(c *Call) (Reply, error) {
		g, b, err := genWords(c, false)
		if err != nil {
			return Reply{}, err
		}
		js, err := isa.AppendJSONStream(nil, g, b)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: json.RawMessage(js)}, nil
	})
	Register("encode", func(c *Call) (Reply, error) {
		var a struct {
			Gen   string            `json:"gen"`
			Words []json.RawMessage `json:"words"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		g, err := genArg(a.Gen)
		if err != nil {
			return Reply{}, err
		}
		var out []byte
		for i, w := range a.Words {
			in, err := isa.ParseJSON(g, w)
			if err != nil {
				return Reply{}, &ArgError{Name: fmt.Sprintf("words[%d]", i), Msg: fmt.Sprintf("words[%d]: %v", i, err)}
			}
			w, err := isa.Encode(in)
			if err != nil {
				return Reply{}, &ArgError{Name: fmt.Sprintf("words[%d]", i), Msg: fmt.Sprintf("words[%d]: %v", i, err)}
			}
			out = append(out, w[:]...)
		}
		return Reply{Value: len(a.Words), Blob: out}, nil
	})
	Register("validate", func(c *Call) (Reply, error) {
		g, b, err := genWords(c, true)
		if err != nil {
			return Reply{}, err
		}
		ps, err := check.Stream(g, b)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: problemsJSON(ps)}, nil
	})
	Register("describe", func(c *Call) (Reply, error) {
		var a struct {
			Opcode string `json:"opcode"`
			Gen    string `json:"gen"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		g, err := genArg(a.Gen)
		if err != nil {
			return Reply{}, err
		}
		d, err := isa.LookupName(a.Opcode)
		if err != nil {
			return Reply{}, &ArgError{Name: "opcode", Msg: err.Error()}
		}
		rows := isa.DescribeRowsOn(d, g)
		fields := make([]map[string]any, 0, len(rows))
		for _, r := range rows {
			fields = append(fields, map[string]any{"offset": r.Offset, "bit": r.Bit, "width": r.Width, "field": r.Field,
				"type": r.Type, "prov": r.Prov, "reserved": r.Reserved, "note": r.Note})
		}
		st := d.StructOn(g)
		return Reply{Value: map[string]any{"opcode": int(d.Opcode), "mnemonic": d.Mnemonic(), "struct": st,
			"decoded": d.Decoded(), "fields": fields}}, nil
	})
	Register("lower", lowerCall)
	Register("convert", func(c *Call) (Reply, error) {
		var a struct {
			From string `json:"from"`
			To   string `json:"to"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		from, err := dtype.Parse(a.From)
		if err != nil {
			return Reply{}, &ArgError{Name: "dtype", Msg: err.Error()}
		}
		to, err := dtype.Parse(a.To)
		if err != nil {
			return Reply{}, &ArgError{Name: "dtype", Msg: err.Error()}
		}
		src, err := c.Buf(0, "source")
		if err != nil {
			return Reply{}, err
		}
		dst, err := c.Buf(1, "destination")
		if err != nil {
			return Reply{}, err
		}
		if len(src)/from.Size() != len(dst)/to.Size() || len(src)%from.Size() != 0 || len(dst)%to.Size() != 0 {
			return Reply{}, &ArgError{Msg: fmt.Sprintf("convert: %d bytes of %v into %d bytes of %v", len(src), from, len(dst), to)}
		}
		return Reply{}, dtype.Convert(dst, to, src, from)
	})
}

func genName(g isa.Gen) string {
	if g == isa.GenAny {
		return ""
	}
	return strings.ToLower(g.String())
}

// DescRecord is the packed little-endian record of one descriptor in
// lower's blob; python/ndma/_words.py's DESCRIPTOR dtype is its mirror.
const descRecord = 50

// lowerCall is `ndma lower` as data: the words resolved (device.Resolve)
// and each lowered (sdma.Lower): per word its DGE trace, and every
// descriptor as a packed record.
func lowerCall(c *Call) (Reply, error) {
	var a struct {
		Gen     string `json:"gen"`
		Backend string `json:"backend"`
		Ring    int    `json:"ring"`
	}
	if err := c.Decode(&a); err != nil {
		return Reply{}, err
	}
	g, err := needGen(a.Gen)
	if err != nil {
		return Reply{}, err
	}
	if a.Backend == "" {
		a.Backend = "auto"
	}
	backend, err := dge.ParseBackend(a.Backend)
	if err != nil {
		return Reply{}, &ArgError{Name: "backend", Msg: "backend: " + err.Error()}
	}
	if a.Ring < 0 {
		return Reply{}, &ArgError{Name: "ring", Msg: fmt.Sprintf("ring %d: want a positive descriptor count", a.Ring)}
	}
	b, err := words(c)
	if err != nil {
		return Reply{}, err
	}
	steps, derr := device.Resolve(g, b, nil)
	type wordJSON struct {
		Offset   int      `json:"offset"`
		Mnemonic string   `json:"mnemonic"`
		Backend  string   `json:"backend"`
		Skipped  string   `json:"skipped"`
		Refused  string   `json:"refused"`
		Trace    []string `json:"trace"`
	}
	out := []wordJSON{}
	var blob []byte
	for i := range steps {
		s := &steps[i]
		w := wordJSON{Offset: s.Offset, Mnemonic: s.Word.Def().Mnemonic(), Trace: []string{}}
		if s.Err != nil {
			if s.Run == nil {
				return Reply{}, fmt.Errorf("offset %#x (%s): %w", s.Offset, w.Mnemonic, s.Err)
			}
			w.Refused = s.Err.Error()
		}
		for _, word := range s.Words() {
			lw := w
			p, low, err := sdma.Lower(&word, g, dge.Options{Backend: backend}, sdma.Options{RingSize: a.Ring})
			switch {
			case p == nil && errors.Is(err, dge.ErrNotLowered):
				lw.Skipped = "not a DGE data-movement word"
			case err != nil:
				return Reply{}, fmt.Errorf("offset %#x (%s): %w", s.Offset, w.Mnemonic, err)
			default:
				lw.Backend = p.Backend.String()
				if t := strings.TrimSuffix(string(low.AppendTrace(nil)), "\n"); t != "" {
					lw.Trace = strings.Split(t, "\n")
				}
				for _, q := range low.Queues {
					for leg, ds := range [][]sdma.Desc{q.M2S, q.S2M} {
						for k := range ds {
							blob = appendDesc(blob, len(out), s.Offset, q.DMA, q.Queue, leg, k, &ds[k])
						}
					}
				}
			}
			out = append(out, lw)
		}
	}
	if derr != nil {
		return Reply{}, derr
	}
	return Reply{Value: out, Blob: blob}, nil
}

func appendDesc(b []byte, word, offset, dma, queue, leg, index int, d *sdma.Desc) []byte {
	length, phase, op, optype, buf := d.Head()
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(word))
	b = le.AppendUint32(b, uint32(offset))
	b = le.AppendUint16(b, uint16(dma))
	b = le.AppendUint16(b, uint16(queue))
	b = append(b, byte(leg), b2u(d.First()), b2u(d.Last()), byte(phase), byte(op), byte(optype))
	b = le.AppendUint32(b, uint32(index))
	b = le.AppendUint32(b, uint32(length))
	b = le.AppendUint64(b, buf)
	return append(b, d[:]...)
}

func b2u(v bool) byte {
	if v {
		return 1
	}
	return 0
}
