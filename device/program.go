package device

import (
	"fmt"

	"ndma/asm"
	"ndma/dge"
	"ndma/internal/sched"
	"ndma/isa"
)

// Program is what runs on a device: its instruction streams, every word
// resolved once before execution (pseudo words relocated, triggers fired).
// The resolved steps are what executes and what a lowering lists.
type Program struct {
	Gen     isa.Gen
	Streams []Stream
}

// Stream is one engine's instruction stream on one core.
type Stream struct {
	Engine string // a NEURON_ENGINE name ("POOL", …); "" when the program names none
	Core   int
	Steps  []sched.Step
	Err    error // a decode error after the last step
}

// Name is how reports name the stream: "POOL core 0" ("stream core 0"
// without an engine).
func (s *Stream) Name() string {
	name := s.Engine
	if name == "" {
		name = "stream"
	}
	return fmt.Sprintf("%s core %d", name, s.Core)
}

// FromObject is an assembled or binary program with its pseudo words
// (0xd4) relocated through vars (field-tables §9; nil: left as they are,
// and an executor refuses them).
func FromObject(obj *asm.Object, vars *dge.Vars) *Program {
	p := &Program{Gen: obj.Gen}
	for k, s := range obj.Streams {
		steps, err := Resolve(obj.Gen, obj.StreamCode(k), vars)
		p.Streams = append(p.Streams, Stream{Engine: s.Engine, Core: s.Core, Steps: steps, Err: err})
	}
	return p
}

// Resolve decodes a stream and relocates its pseudo words once: a word
// that cannot be relocated keeps the reason in its step (the run stops
// there, after the words before it); err is a decode error after the last
// step.
func Resolve(gen isa.Gen, code []byte, vars *dge.Vars) ([]sched.Step, error) {
	steps, err := sched.Decode(gen, code)
	if vars == nil {
		return steps, err
	}
	for i := range steps {
		s := &steps[i]
		if s.Word.Opcode() != isa.OpPseudoDMADirect2D && !dge.IsPseudoMem2D(s.Word.Opcode()) {
			continue
		}
		r, rerr := dge.Relocate(&s.Word, vars)
		if rerr != nil {
			s.Err = rerr
			continue
		}
		s.Run = []isa.Inst{r}
	}
	return steps, err
}

// cores is the number of cores the program's streams name (at least 1).
func (p *Program) cores() int {
	n := 1
	for _, s := range p.Streams {
		n = max(n, s.Core+1)
	}
	return n
}
