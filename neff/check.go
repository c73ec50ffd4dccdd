package neff

import (
	"fmt"
	"strings"
)

// Problem is one finding of a check (CheckDef here, device.Check of the
// words), located: subgraph, engine (or the
// def.json / block it concerns), word offset.
type Problem struct {
	Subgraph string
	Engine   string // "" for def.json findings
	Offset   int    // byte offset of the word in its stream; -1 when not a word
	Msg      string
}

func (p Problem) String() string {
	switch {
	case p.Engine == "":
		return fmt.Sprintf("%s def.json: %s", p.Subgraph, p.Msg)
	case p.Offset < 0:
		return fmt.Sprintf("%s %s: %s", p.Subgraph, p.Engine, p.Msg)
	}
	return fmt.Sprintf("%s %s offset %#x: %s", p.Subgraph, p.Engine, p.Offset, p.Msg)
}

// CheckDef applies the cross-checks of neff.md §9.6 that read def.json
// alone: dense var ids and an output, every variable of a kind §4.4 names
// with a size and backing offset that are not negative, and each dge-table
// list entry naming a variable that holds bytes. The words and the blocks
// they fire are checked by the runtime (device.Check).
func (sg *Subgraph) CheckDef() []Problem {
	var out []Problem
	report := func(format string, a ...any) { // a def.json finding: no engine, no word
		out = append(out, Problem{sg.Name, "", -1, fmt.Sprintf(format, a...)})
	}
	vars := sg.Variables()
	byID, outputs := map[int]Variable{}, 0
	var beyond []string
	for _, v := range vars {
		if _, dup := byID[v.ID]; dup {
			report("var id %d repeats: %q and %q", v.ID, byID[v.ID].Name, v.Name)
		}
		if v.ID < 0 || v.ID >= len(vars) {
			beyond = append(beyond, fmt.Sprintf("%q has %d", v.Name, v.ID))
		}
		byID[v.ID] = v
		if v.Type == "output" {
			outputs++
		}
	}
	if len(beyond) > 0 {
		var missing []int
		for i := range vars {
			if _, ok := byID[i]; !ok {
				missing = append(missing, i)
			}
		}
		report("var ids are not dense 0..%d: %v missing; %s", len(vars)-1, missing, strings.Join(beyond, ", "))
	}
	if outputs == 0 {
		report("no output variable")
	}
	for i, id := range sg.Table() {
		if v, ok := byID[int(id)]; !ok || v.Type == "dge-table" {
			report("dge-table list[%d] = %d names no variable that holds bytes", i, id)
		}
	}
	for _, v := range vars {
		switch v.Type {
		case "input", "output", "state-buffer", "virtual", "file", "dge-table", "tmp-buf",
			"pointer", "list", "remote", "shared", "sharded", "local": // the kinds of neff.md §4.4 (observed and REF)
		default: // a type the runtime would not know how to place
			report("var %d %q has type %q: not a variable kind of docs/neff.md §4.4 (input, output, state-buffer, virtual, file, dge-table, tmp-buf, …)", v.ID, v.Name, v.Type)
		}
		if v.Size < 0 {
			report("var %d %q has size %d", v.ID, v.Name, v.Size)
		}
		if v.BackingOff < 0 {
			report("var %d %q has backing_variable_off %d", v.ID, v.Name, v.BackingOff)
		}
		if a := v.Alignment; a < 0 || a&(a-1) != 0 { // 0: none given
			report("var %d %q has alignment %d: not a power of two", v.ID, v.Name, a)
		}
	}
	for _, q := range sg.Queues() {
		if q.NumQueues < 0 || q.NumQueues > 16 { // 0: none given (INFERRED: a DMA engine has 16 queues, neff.md §4.6)
			report("queue %q has num_queues %d: want 1..16", q.Name, q.NumQueues)
		}
		for i, sem := range q.Semaphores {
			if sem < 0 || sem > 255 {
				report("queue %q semaphore_set[%d] = %d: not a semaphore index (0..255)", q.Name, i, sem)
			}
		}
		if q.Semaphore != nil && (*q.Semaphore < 0 || *q.Semaphore > 255) {
			report("queue %q semaphore %d: not a semaphore index (0..255)", q.Name, *q.Semaphore)
		}
	}
	return out
}
