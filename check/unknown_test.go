package check

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/isa"
)

// handWord builds a 64-byte word from field-tables §2.1/§2.2 by hand: header
// (opcode, inst_word_len 0x10, debug_cmd, debug_hint), EVENTS at offset 4
// (wait_mode, wait_idx, update_mode, update_idx, semaphore_value u32 LE), and
// an arbitrary payload.
func handWord(op, waitMode, waitIdx, updMode, updIdx byte, value uint32, payload func(i int) byte) []byte {
	w := make([]byte, isa.WordSize)
	w[0], w[1], w[2], w[3] = op, 0x10, 0, 0
	w[4], w[5], w[6], w[7] = waitMode, waitIdx, updMode, updIdx
	w[8], w[9], w[10], w[11] = byte(value), byte(value>>8), byte(value>>16), byte(value>>24)
	for i := 12; i < isa.WordSize; i++ {
		w[i] = payload(i)
	}
	return w
}

// sundaACT is an ACT stream as neff.md §4.7 and §5.1 describe SUNDA's: the
// SET_ORDERING_MODE / PSEUDO_BRANCH_LABEL prologue, ACTIVATION_TABLE_LOAD,
// EVENT_SEMAPHOREs, and many words of opcodes 0x22 and 0x48 that ndma's
// catalog does not name.
func sundaACT(n21 int) (code []byte, n42 int) {
	zero := func(int) byte { return 0 }
	r := rand.New(rand.NewPCG(21, 42))
	code = append(code, handWord(0xb1, 0, 0, 0, 0, 0, zero)...)
	code = append(code, handWord(0xcc, 0, 0, 0, 0, 0, zero)...)
	code = append(code, handWord(0x23, 0, 0, 0, 0, 0, zero)...)
	for i := 0; i < n21; i++ {
		// wait WAIT_FOR_SEM_GT_IMM (0x04) $S[10] > i; update SEM_INC_COMPLETE (0x13) $S[22]
		code = append(code, handWord(0x22, 0x04, 10, 0x13, 22, uint32(i), func(int) byte { return byte(r.Uint32()) })...)
		if i%5 == 4 {
			code = append(code, handWord(0x48, 0, 0, 0x13, 5, 0, func(k int) byte { return byte(k * 7) })...)
			n42++
		}
		if i%64 == 63 {
			code = append(code, handWord(0xa0, 0x04, 11, 0, 0, 0, zero)...)
		}
	}
	return code, n42
}

// SUNDA streams contain opcodes outside ndma's catalog (neff.md §4.7): they
// validate with no error — no has_valid_neuron_header — only the
// is_known_opcode warning, on every generation; neff.Check (which reports
// check.Stream's errors) sees nothing.
func TestUnknownOpcodesNotHeaderErrors(t *testing.T) {
	code, n42 := sundaACT(1408)
	for _, g := range isa.Gens() {
		ps, err := Stream(g, code)
		if err != nil {
			t.Fatal(err)
		}
		if n := Errors(ps); n != 0 {
			t.Fatalf("%s: %d errors, first %s", g, n, firstError(ps))
		}
		unknown, pseudo := 0, 0
		for _, p := range ps {
			switch p.Predicate {
			case pKnownOpcode:
				unknown++
				if op := code[p.Offset]; op != 0x22 && op != 0x48 || p.Severity != Warning || p.Level != "warning" {
					t.Fatalf("%s: %s", g, p)
				}
				if !strings.Contains(p.String(), "warning: is_known_opcode: header.opcode = 0x") ||
					!strings.Contains(p.Want, "unknown to ndma") || !strings.Contains(p.Want, "EVENTS honoured") {
					t.Fatalf("%s: message %q", g, p)
				}
			case pPseudo:
				pseudo++ // the 0xcc label
			default:
				t.Fatalf("%s: unexpected %s", g, p)
			}
		}
		if unknown != 1408+n42 || pseudo != 1 {
			t.Fatalf("%s: %d unknown-opcode warnings (want %d), %d pseudo", g, unknown, 1408+n42, pseudo)
		}
	}
}

// The EVENTS of an unknown word are read at offset 4 (the RAW layout), so a
// scheduler honours them; malformed header bits are still errors.
func TestUnknownOpcodeEventsAndHeader(t *testing.T) {
	w := handWord(0x22, 0x04, 10, 0x13, 22, 7, func(i int) byte { return byte(i) })
	in, err := isa.Decode(isa.Sunda, w)
	if err != nil {
		t.Fatal(err)
	}
	if in.Def().Known() || in.Layout() != isa.Raw() {
		t.Fatalf("0x22 decodes by %s, known %v", in.Layout().Name, in.Def().Known())
	}
	ev, ok := in.Events()
	if !ok || ev.WaitMode() != 0x04 || ev.WaitIdx() != 10 || ev.UpdateMode() != 0x13 || ev.UpdateIdx() != 22 || ev.SemaphoreValue() != 7 {
		t.Fatalf("events %v %+v", ok, ev)
	}
	bad := bytes.Clone(w)
	bad[1] = 0x40 // §9.4: 0x40 is wrong, real words use 0x10
	ps, _ := Stream(isa.Sunda, bad)
	if Errors(ps) != 1 || firstError(ps).Predicate != pHeader || firstError(ps).Field != "header.inst_word_len" {
		t.Fatalf("bad length: %v", ps)
	}
	bad = bytes.Clone(w)
	bad[4] = 0x08 // no WAIT_MODE value
	ps, _ = Stream(isa.Sunda, bad)
	if Errors(ps) != 1 || firstError(ps).Predicate != pEvents {
		t.Fatalf("bad wait_mode: %v", ps)
	}
}

// disasm text of the SUNDA stream assembles back byte for byte, and the
// assembled words still validate without errors (what `ndma asm` checks).
func TestUnknownOpcodesDisasmAsm(t *testing.T) {
	code, _ := sundaACT(200)
	for _, g := range append([]isa.Gen{isa.GenAny}, isa.Gens()...) {
		text, err := asm.Disassemble(g, code)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := asm.Assemble("act.s", text, asm.Options{Gen: g})
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		if !bytes.Equal(obj.Code, code) {
			t.Fatalf("%s: asm(disasm(stream)) != stream", g)
		}
		if g == isa.GenAny {
			continue
		}
		ps, err := Stream(obj.Gen, obj.Code)
		if err != nil || Errors(ps) != 0 {
			t.Fatalf("%s: reassembled stream: %v %s", g, err, firstError(ps))
		}
	}
}

// Over every opcode byte and generation: a word with a well-formed header
// and EVENTS never fails has_valid_neuron_header, and an opcode outside the
// catalog gets exactly the is_known_opcode warning from the common rules.
func TestNoHeaderErrorForAnyOpcode(t *testing.T) {
	for _, g := range isa.Gens() {
		for op := 0; op < 256; op++ {
			w := handWord(byte(op), 0, 0, 0, 0, 0, func(int) byte { return 0 })
			ps, err := Stream(g, w)
			if err != nil {
				t.Fatal(err)
			}
			known := isa.Lookup(isa.Opcode(op)).Known()
			warned := false
			for _, p := range ps {
				if p.Predicate == pHeader {
					t.Fatalf("%s 0x%02x: %s", g, op, p)
				}
				if p.Predicate == pKnownOpcode {
					warned = true
				}
			}
			if warned == known {
				t.Fatalf("%s 0x%02x: known %v, is_known_opcode warned %v", g, op, known, warned)
			}
			if !known && Errors(ps) != 0 {
				t.Fatalf("%s 0x%02x: %s", g, op, firstError(ps))
			}
		}
	}
}

func firstError(ps []Problem) Problem {
	for _, p := range ps {
		if p.Severity == Error {
			return p
		}
	}
	return Problem{}
}
