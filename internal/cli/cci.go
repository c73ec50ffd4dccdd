package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"ndma/asm"
	"ndma/internal/cci"
	"ndma/isa"
	"ndma/mem"
)

// runCCI is `ndma cci`: a COMPACT_CONTROL_INST block alone — assembled (the
// block's lines with or without the `compact_control_inst` line), listed
// slot by slot, run on fresh MAVERICK memory, optionally single-stepped
// with the registers each slot changed (docs/cci.md).
func runCCI(e *env, args []string) error {
	cl := newCmdLine(e, "cci", "FILE|-", "maverick", "generation (MAVERICK: the only one with 0xb6)")
	var regs, sems multi
	cl.fs.Var(&regs, "reg", "register, rN=V; repeatable")
	cl.fs.Var(&sems, "sem", "semaphore, N=V; repeatable")
	step := cl.fs.Bool("step", false, "print every executed slot and the registers it changed")
	maxSteps := cl.fs.Int("max-steps", cci.DefaultMaxSteps, "slots the word may execute")
	pos, gen, err := cl.parse(args, 1, "want one FILE (a CCI block, or a word with it; - for stdin)")
	if err != nil {
		return err
	}
	if *maxSteps <= 0 {
		return usagef("--max-steps %d: want a positive slot count", *maxSteps)
	}
	src, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	var in isa.Inst
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) { // a binary word: disassemble and run it
		if len(src) != isa.WordSize {
			return fmt.Errorf("%s: %d bytes: want one 64-byte COMPACT_CONTROL_INST word", pos[0], len(src))
		}
		g := gen
		if g == isa.GenAny {
			g = isa.Maverick
		}
		if in, err = isa.Decode(g, src); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		return cciRun(e, &in, regs, sems, *step, *maxSteps)
	}
	name := pos[0]
	if name == "-" {
		name = "stdin"
	}
	// The block's lines alone, or a whole word (its compact_control_inst
	// line first): either way diagnostics name the file's own lines.
	obj, err := asm.Assemble(name, src, asm.Options{Gen: gen, CCIBlock: !hasMnemonicLine(src)})
	if err != nil {
		if list, ok := err.(asm.ErrorList); ok {
			return diagnostics{list}
		}
		return err
	}
	if len(obj.Code) != isa.WordSize {
		return fmt.Errorf("%s: %d words: want one COMPACT_CONTROL_INST", name, len(obj.Code)/isa.WordSize)
	}
	if in, err = isa.Decode(obj.Gen, obj.Code); err != nil {
		return err
	}
	return cciRun(e, &in, regs, sems, *step, *maxSteps)
}

// hasMnemonicLine reports whether the text is a whole word: a statement
// (comments and a label aside) that is compact_control_inst.
func hasMnemonicLine(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) > 1 && strings.HasSuffix(f[0], ":") {
			f = f[1:]
		}
		if len(f) > 0 && strings.EqualFold(f[0], "compact_control_inst") {
			return true
		}
	}
	return false
}

// The listing and the steps so far stay when the word faults: they show
// where it stopped (a step limit, a misaligned access).
func init() { keepsPartial["cci"] = true }

// cciRun lists a CCI word's slots and runs it (with --step, slot by slot:
// the steps are streamed, so memory follows the step, not the run's length).
func cciRun(e *env, in *isa.Inst, regs, sems multi, step bool, maxSteps int) error {
	if in.Opcode() != isa.OpCompactControlInst {
		return fmt.Errorf("%s is not COMPACT_CONTROL_INST", in.Def().Mnemonic())
	}
	rv, err := regValues(regs)
	if err != nil {
		return err
	}
	var r [64]uint32
	for k, v := range rv {
		if k >= 64 {
			return usagef("--reg r%d: there are 64 registers", k)
		}
		r[k] = v
	}
	sv, err := semValues(sems)
	if err != nil {
		return err
	}
	m := mem.New(isa.Maverick)
	for n, v := range sv {
		m.Sems[n] = v
	}
	out := e.stdout
	var bw *bufio.Writer
	if step {
		e.stream()
		bw = bufio.NewWriterSize(e.stdout, 64<<10)
		defer bw.Flush() // the steps so far, on a fault too
		out = bw
	}
	lines := strings.Split(strings.TrimRight(string(asm.AppendInst(nil, in)), "\n"), "\n")[1:]
	for k, l := range lines {
		fmt.Fprintf(out, "slot %2d  %s\n", k, strings.TrimSpace(l))
	}
	before, prev := r, r
	var hook func(int, *[64]uint32)
	if step {
		fmt.Fprintln(out, "--- steps")
		n := 0
		var line []byte
		hook = func(slot int, now *[64]uint32) {
			n++
			line = fmt.Appendf(line[:0], "%4d  slot %2d  %-28s ", n, slot, strings.TrimSpace(lines[slot]))
			sep := ""
			for k := range now {
				if now[k] != prev[k] {
					line = fmt.Appendf(append(line, sep...), "r%d = %#x", k, now[k])
					sep = ", "
				}
			}
			out.Write(append(line, '\n'))
			prev = *now
		}
	}
	semsBefore := m.Sems
	steps, err := cci.RunSteps(in, &r, m, maxSteps, hook)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "--- %d steps\n", steps)
	for k := range r {
		if r[k] != before[k] {
			fmt.Fprintf(out, "r%d = %#x (%d)\n", k, r[k], int32(r[k]))
		}
	}
	for k := range m.Sems {
		if m.Sems[k] != semsBefore[k] {
			fmt.Fprintf(out, "$S[%d] = %d\n", k, m.Sems[k])
		}
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}
