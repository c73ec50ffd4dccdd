package nkic

import (
	"fmt"
	"slices"

	"ndma/device"
	"ndma/isa"
)

// Session is a kernel run as it is traced (the Python front end's path):
// tensors and calls arrive in batches and each batch runs at once on one
// core, whose SBUF and PSUM may be the caller's memory (ShareOnchip) — so
// the calls ndma runs as words and the ones the front end computes in
// NumPy act on one memory, in program order. Calls are numbered across
// batches; the trace grows with them.
type Session struct {
	p  *Program
	r  *runner
	tr *Trace
}

// NewSession starts an empty kernel on target (trn1, trn2, trn3).
func NewSession(target string, opt Options) (*Session, error) {
	p := &Program{Target: target}
	if err := p.check(); err != nil {
		return nil, err
	}
	d := device.New(p.gen, 1)
	s := &Session{p: p, r: newRunner(p, d.Core(0), opt)}
	s.tr = s.r.newTrace(0)
	return s, nil
}

// Program is the kernel so far: every tensor and call added.
func (s *Session) Program() *Program { return s.p }

// Trace is the calls run so far.
func (s *Session) Trace() *Trace { return s.tr }

// ShareOnchip makes sbuf (and psum, on generations that have it) the
// core's SBUF and PSUM storage: partition-major, each partition its
// active bytes (field-tables §11.2). Either may be nil (the core's own).
func (s *Session) ShareOnchip(sbuf, psum []byte) error {
	if sbuf != nil {
		if err := s.r.m.ShareOnchip(isa.SBUF, sbuf); err != nil {
			return fmt.Errorf("%w: %v", ErrInput, err)
		}
	}
	if psum != nil {
		if err := s.r.m.ShareOnchip(isa.PSUM, psum); err != nil {
			return fmt.Errorf("%w: %v", ErrInput, err)
		}
	}
	return nil
}

// Add checks and places tensors, then compiles and runs calls in order.
// A tensor or call refused stops the batch: the calls before it have run
// (their trace entries are in Trace), the error names the one refused.
func (s *Session) Add(tensors []*Tensor, calls []*Call) error {
	p := s.p
	m := isa.Map(p.gen)
	if len(p.Tensors)+len(tensors) > MaxTensors*16 {
		return progErr("more than %d tensors", MaxTensors*16)
	}
	if len(p.Calls)+len(calls) > MaxCalls*16 {
		return progErr("more than %d calls", MaxCalls*16)
	}
	for _, t := range tensors {
		if t == nil {
			return progErr("tensor %d is null", len(p.Tensors))
		}
		if err := t.check(m); err != nil {
			return progErr("tensor %d %q: %v", len(p.Tensors), t.Name, err)
		}
		if p.byName[t.Name] != nil {
			return progErr("tensor %d: the name %q is taken", len(p.Tensors), t.Name)
		}
		if err := p.placeOne(m, t); err != nil {
			return err
		}
		t.id = len(p.Tensors)
		p.byName[t.Name] = t
		p.Tensors = append(p.Tensors, t)
		if p.relocVars != nil {
			p.relocVars.Base[uint16(t.id)] = t.addr
		}
	}
	for _, c := range calls {
		if c == nil {
			return progErr("call %d is null", len(p.Calls))
		}
		c.index = len(p.Calls)
		if c.Index != nil && *c.Index >= 0 {
			c.index = *c.Index
		}
		p.Calls = append(p.Calls, c)
		if err := p.checkCall(c); err != nil {
			return locate(c, err)
		}
		lw, err := p.compileCall(c)
		if err != nil {
			return locate(c, err)
		}
		if err := s.r.step(s.tr, lw); err != nil {
			return err
		}
	}
	return nil
}

// Write stores a tensor's bytes (C order; an input's, or any tensor's).
func (s *Session) Write(name string, data []byte) error {
	t := s.p.byName[name]
	if t == nil {
		return fmt.Errorf("%w: no tensor %q", ErrInput, name)
	}
	if int64(len(data)) != t.elems*int64(t.esize) {
		return fmt.Errorf("%w: %d bytes for tensor %q (%s %v: %d bytes)", ErrInput, len(data), name, t.DType, t.Shape, t.elems*int64(t.esize))
	}
	if err := device.LoadArray(s.r.m, t.addr, t.Shape, data); err != nil {
		return fmt.Errorf("%w: tensor %q: %v", ErrInput, name, err)
	}
	return nil
}

// Read fills out with a tensor's bytes in C order (out's length is the
// tensor's size).
func (s *Session) Read(name string, out []byte) error {
	t := s.p.byName[name]
	if t == nil {
		return fmt.Errorf("%w: no tensor %q", ErrInput, name)
	}
	if int64(len(out)) != t.elems*int64(t.esize) {
		return fmt.Errorf("%w: a %d-byte buffer for tensor %q (%d bytes)", ErrInput, len(out), name, t.elems*int64(t.esize))
	}
	if !t.chip { // contiguous in HBM: straight into out, no array of its size in between
		return s.r.m.Read(t.addr, out)
	}
	b, err := device.ReadArray(s.r.m, t.addr, t.Shape, t.esize)
	if err != nil {
		return err
	}
	copy(out, b)
	return nil
}

// Placement is where a tensor is: its Neuron address and, on chip, the
// first partition and the byte offset within it.
type Placement struct {
	Addr      uint64 `json:"addr"`
	Partition int    `json:"partition"`
	Offset    uint64 `json:"offset"`
}

// Where is tensor name's placement.
func (s *Session) Where(name string) (Placement, error) {
	t := s.p.byName[name]
	if t == nil {
		return Placement{}, fmt.Errorf("%w: no tensor %q", ErrInput, name)
	}
	r, part, off := isa.Map(s.p.gen).Split(t.addr)
	if r == isa.HBM {
		part = 0
	}
	return Placement{Addr: t.addr, Partition: part, Offset: off}, nil
}

// Outputs are the tensors of kind output, read.
func (s *Session) Outputs() (map[string]*Array, error) {
	outs := map[string]*Array{}
	for _, t := range s.p.Tensors {
		if t.Kind != "output" {
			continue
		}
		b, err := device.ReadArray(s.r.m, t.addr, t.Shape, t.esize)
		if err != nil {
			return nil, fmt.Errorf("reading output %q: %w", t.Name, err)
		}
		outs[t.Name] = &Array{DType: t.dt, Shape: slices.Clone(t.Shape), Data: b}
	}
	return outs, nil
}
