package pybridge

import (
	"encoding/json"
	"fmt"

	"ndma/internal/nkic"
	"ndma/isa"
)

// ndma.nki's entry points (docs/nki.md): a kernel runs as it is traced, in
// a session — each batch of tensors and calls compiled and run at once on
// one core whose SBUF and PSUM are Python's NumPy arrays (buffers passed
// every batch, used in place: the words and NumPy's compute share them).

type pyNKI struct {
	s   *nkic.Session
	buf []byte // the last batch's trace JSON (reused: a fresh buffer a batch faults its pages in again)
}

// nkiArgs are nki_add's arguments: the batch and which buffers follow.
// Buffers: sbuf (if SBUF), psum (if PSUM), then one per Inputs name.
type nkiArgs struct {
	Handle  uint64          `json:"handle"`
	Tensors []*nkic.Tensor  `json:"tensors"`
	Calls   json.RawMessage `json:"calls"` // nkic.DecodeCalls: numbers may be "inf", "-inf", "nan" (docs/nki.md "Program form")
	SBUF    bool            `json:"sbuf"`
	PSUM    bool            `json:"psum"`
	Inputs  []string        `json:"inputs"`
	Trace   bool            `json:"trace"` // reply with the batch's call traces, a JSON array as the blob (else their count and time only)
	// Packed: the calls are the records of the buffer after the inputs
	// (nkic.DecodePacked), Strings their string table, Calls the ones
	// they send as JSON.
	Packed  bool     `json:"packed"`
	Strings []string `json:"strings"`
	// PackedTensors: the tensors are the records of the buffer after the
	// packed calls (nkic.DecodePackedTensors), Tensors the JSON ones.
	PackedTensors bool     `json:"packed_tensors"`
	Where         []string `json:"where"` // tensors whose placement to return
}

func init() {
	Register("nki_open", func(c *Call) (Reply, error) {
		var a struct {
			Target string `json:"target"`
			Exec   string `json:"exec"`
			Detail bool   `json:"detail"`
			Words  bool   `json:"words"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		var opt nkic.Options
		switch a.Exec {
		case "", "fast":
			opt.Fast = true
		case "sim":
		case "ref":
			opt.Ref = true
		default:
			return Reply{}, &ArgError{Name: "exec", Msg: fmt.Sprintf("exec %q: want fast, sim or ref", a.Exec)}
		}
		opt.Detail, opt.Brief = a.Detail, !a.Words
		s, err := nkic.NewSession(a.Target, opt)
		if err != nil {
			return Reply{}, &ArgError{Name: "target", Msg: err.Error()}
		}
		m := isa.Map(s.Program().Gen())
		return Reply{Value: map[string]any{"handle": newHandle(&pyNKI{s: s}), "target": s.Trace().Target, "model": s.Trace().Model,
			"partitions": m.Partitions, "sbuf_active": m.SBUFActive, "psum_active": m.PSUMActive}}, nil
	})
	Register("nki_add", nkiAdd)
	Register("nki_read", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64   `json:"handle"`
			Names  []string `json:"names"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		pn, err := handle[*pyNKI](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		for i, name := range a.Names {
			b, err := c.Buf(i, "tensor "+name)
			if err != nil {
				return Reply{}, err
			}
			if err := pn.s.Read(name, b); err != nil {
				return Reply{}, &ArgError{Name: name, Msg: err.Error()}
			}
		}
		return Reply{}, nil
	})
	Register("nki_time", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64        `json:"handle"`
			Call   *nkic.NumCall `json:"call"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		pn, err := handle[*pyNKI](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		if a.Call == nil {
			return Reply{}, &ArgError{Name: "call", Msg: "no call given"}
		}
		ct, err := pn.s.TimeOf((*nkic.Call)(a.Call))
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: map[string]any{"time_ns": ct.TimeNS, "engine": ct.Engine}}, nil
	})
	Register("nki_trace", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
			From   int    `json:"from"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		pn, err := handle[*pyNKI](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		tr := *pn.s.Trace()
		if a.From < 0 || a.From > len(tr.Calls) {
			return Reply{}, &ArgError{Name: "from", Msg: fmt.Sprintf("from %d: the trace has %d calls", a.From, len(tr.Calls))}
		}
		tr.Calls = tr.Calls[a.From:]
		return Reply{Value: &tr}, nil
	})
}

// nkiAdd runs one batch: the on-chip buffers shared, the inputs written,
// the tensors placed, the calls run.
func nkiAdd(c *Call) (Reply, error) {
	var a nkiArgs
	if err := c.Decode(&a); err != nil {
		return Reply{}, err
	}
	pn, err := handle[*pyNKI](a.Handle)
	if err != nil {
		return Reply{}, err
	}
	s := pn.s
	k := 0
	var sbuf, psum []byte
	if a.SBUF {
		if sbuf, err = c.Buf(k, "sbuf"); err != nil {
			return Reply{}, err
		}
		k++
	}
	if a.PSUM {
		if psum, err = c.Buf(k, "psum"); err != nil {
			return Reply{}, err
		}
		k++
	}
	if err := s.ShareOnchip(sbuf, psum); err != nil {
		return Reply{}, &ArgError{Name: "sbuf", Msg: err.Error()}
	}
	n0 := len(s.Trace().Calls)
	// buffers: inputs, then the packed calls, then the packed tensors
	kc := k + len(a.Inputs)
	calls, err := nkic.DecodeCalls(a.Calls)
	if err != nil {
		return Reply{}, &ArgError{Name: "calls", Msg: err.Error()}
	}
	tensors := a.Tensors
	for _, pk := range []struct {
		on     bool
		name   string
		decode func([]byte) error
	}{
		{a.Packed, "calls", func(b []byte) (err error) { calls, err = nkic.DecodePacked(b, a.Strings, calls); return }},
		{a.PackedTensors, "tensors", func(b []byte) (err error) {
			tensors, err = nkic.DecodePackedTensors(b, a.Strings, a.Tensors)
			return
		}},
	} {
		if !pk.on {
			continue
		}
		b, err := c.Buf(kc, "packed "+pk.name)
		if err != nil {
			return Reply{}, err
		}
		if err := pk.decode(b); err != nil {
			return Reply{}, &ArgError{Name: pk.name, Msg: err.Error()}
		}
		kc++
	}
	// tensors first (an input's bytes need its placement), then inputs, then calls
	if err := s.Add(tensors, nil); err != nil {
		return Reply{}, err
	}
	for _, name := range a.Inputs {
		b, err := c.Buf(k, "input "+name)
		if err != nil {
			return Reply{}, err
		}
		k++
		if err := s.Write(name, b); err != nil {
			return Reply{}, &ArgError{Name: name, Msg: err.Error()}
		}
	}
	where := map[string]nkic.Placement{}
	for _, name := range a.Where {
		w, err := s.Where(name)
		if err != nil {
			return Reply{}, &ArgError{Name: name, Msg: err.Error()}
		}
		where[name] = w
	}
	runErr := s.Add(nil, calls)
	tr := s.Trace()
	out := map[string]any{"where": where, "calls": len(tr.Calls) - n0, "dma_ns": tr.DMANS}
	var blob []byte
	if a.Trace { // the batch's call traces as the blob: encoding/json's bytes, written without reflection into the session's buffer
		pn.buf = nkic.AppendCallsJSON(pn.buf[:0], tr.Calls[n0:])
		blob = pn.buf
	}
	if runErr != nil {
		return Reply{}, runErr
	}
	return Reply{Value: out, Blob: blob}, nil
}
