package device

import (
	"context"
	"errors"
	"testing"

	"ndma/isa"
)

// counter is an observer that counts what it sees, per stream.
type counter struct {
	before, issued, refused map[string]int
}

func (c *counter) Before(at *At, in *isa.Inst) *isa.Inst {
	c.before[at.Stream.Name()]++
	return nil
}

func (c *counter) After(at *At, _ *isa.Inst, err error) {
	switch {
	case err == nil:
		c.issued[at.Stream.Name()]++
	case errors.Is(err, ErrBlocked):
		c.refused[at.Stream.Name()]++
	}
}

// Every word a NEFF run issues passes the observer once (more Befores only
// for refusals): per stream, the words its steps execute — counted by a
// walk of the Program's steps here — are the observer's issued words.
func TestObserverSeesEveryWord(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	p, err := FromNEFF(f, sgs, isa.GenAny)
	if err != nil {
		t.Fatal(err)
	}
	if p.Gen != isa.Cayman {
		t.Fatalf("gen %s, want the file's target cayman", p.Gen)
	}
	want := map[string]int{}
	for k := range p.Streams {
		for i := range p.Streams[k].Steps {
			want[p.Streams[k].Name()] += len(p.Streams[k].Steps[i].Words())
		}
	}
	for _, exec := range []Exec{Ref, Sim} {
		c := &counter{before: map[string]int{}, issued: map[string]int{}, refused: map[string]int{}}
		res, err := Run(context.Background(), p, Options{Exec: exec, Observer: c})
		if err != nil {
			t.Fatalf("%s: %v", exec, err)
		}
		for name, n := range want {
			if c.issued[name] != n {
				t.Errorf("%s: %s issued %d words, its steps hold %d", exec, name, c.issued[name], n)
			}
			if c.before[name] != c.issued[name]+c.refused[name] {
				t.Errorf("%s: %s: %d Befores for %d issued and %d refused", exec, name, c.before[name], c.issued[name], c.refused[name])
			}
		}
		refusals := 0
		for _, r := range res.Subgraphs {
			refusals += r.Stats.Refusals
		}
		total := 0
		for _, n := range c.refused {
			total += n
		}
		if total != refusals {
			t.Errorf("%s: the observer saw %d refusals, the scheduler counted %d", exec, total, refusals)
		}
	}
}

// A cancelled context stops a run before its first turn, with the
// context's error; the same program runs through with a live one.
func TestRunCancelled(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	p, err := FromNEFF(f, sgs, isa.GenAny)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, p, Options{Exec: Sim})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if len(res.Subgraphs) != 1 || res.Subgraphs[0].Stats.Words != 0 {
		t.Fatalf("a cancelled run issued words: %+v", res.Subgraphs)
	}
	if _, err := Run(context.Background(), p, Options{Exec: Sim}); err != nil {
		t.Fatal(err)
	}
}

// Several problems of one step are each their own (Problems), and read as
// one line joined by "; ".
func TestProblems(t *testing.T) {
	err := problemsOf([]string{"a walk leaves x", "table index 9 is past the list"})
	ps := Problems(err)
	if len(ps) != 2 || ps[0].Error() != "a walk leaves x" || ps[1].Error() != "table index 9 is past the list" {
		t.Fatalf("Problems: %v", ps)
	}
	if got := err.Error(); got != "a walk leaves x; table index 9 is past the list" {
		t.Fatalf("Error: %q", got)
	}
	one := errors.New("var 3 is not placed")
	if ps := Problems(one); len(ps) != 1 || ps[0] != one {
		t.Fatalf("Problems of one error: %v", ps)
	}
}
