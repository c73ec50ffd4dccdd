package neffgen

import (
	"fmt"
	"strings"
)

// Compute words as assembly text (docs/compute.md), for the synthetic
// NEFFs' engine streams: Word("tensor_tensor", Ev{...}, fields...) with
// operands written by Pat.

// Pat is a compute operand's access pattern: region ("sbuf" or "psum"),
// first partition, byte offset, element steps and counts (dimension 0
// innermost; missing dimensions are 1 with step 0).
type Pat struct {
	Region    string
	Part      int
	Off       int64
	Step, Num []int64
}

// Row is n contiguous elements at byte offset off of SBUF partition 0.
func Row(off int64, n int64) Pat { return Pat{"sbuf", 0, off, []int64{1}, []int64{n}} }

// Arg is the pattern as the fields of name (a TENSOR3D with dims 3, a
// TENSOR4D with dims 4).
func (p Pat) Arg(name string, dims int) string {
	step, num := make([]string, dims), make([]string, dims)
	for d := range dims {
		step[d], num[d] = "0", "1"
		if d < len(p.Num) {
			step[d], num[d] = fmt.Sprint(p.Step[d]), fmt.Sprint(p.Num[d])
		}
	}
	return fmt.Sprintf("%[1]s.start_addr=%[2]s:%[3]d:%#[4]x, %[1]s.step_elem=[%[5]s], %[1]s.num_elem=[%[6]s]",
		name, p.Region, p.Part, p.Off, strings.Join(step, ", "), strings.Join(num, ", "))
}

// Ev is a word's EVENTS: a wait GE on semaphore Wait (≥ Value; -1 none)
// and an increment of Inc at completion (-1 none). The one
// semaphore_value field serves both.
type Ev struct{ Wait, Value, Inc int }

// NoEv is no wait and no update.
var NoEv = Ev{-1, 0, -1}

func (e Ev) args() []string {
	var a []string
	if e.Wait >= 0 {
		a = append(a, fmt.Sprintf("wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=%d, semaphore_value=%d", e.Wait, e.Value))
	}
	if e.Inc >= 0 {
		a = append(a, fmt.Sprintf("update_mode=SEM_INC_COMPLETE, update_idx=%d", e.Inc))
	}
	return a
}

// Word is one compute word's assembly line.
func Word(mnemonic string, ev Ev, fields ...string) string {
	a := append(ev.args(), fields...)
	return mnemonic + " " + strings.Join(a, ", ") + "\n"
}
