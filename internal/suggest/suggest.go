// Package suggest is the one "unknown X" message of every ndma tool: the
// name given, the nearest valid names, and the list of valid ones (issue 34).
package suggest

import (
	"fmt"
	"sort"
	"strings"
)

// Error is an unknown name: Kind ("opcode", "dtype", "input", …), the name
// given, the nearest valid names (best first) and every valid name.
type Error struct {
	Kind  string
	Got   string
	Near  []string
	Valid []string
	// Sentinel is the package's error of this kind (isa.ErrUnknownOpcode),
	// for errors.Is; nil when there is none.
	Sentinel error
}

// Unwrap is the sentinel.
func (e *Error) Unwrap() error { return e.Sentinel }

// maxListed bounds the list in the message; a longer list is cut with its count.
const maxListed = 40

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q", e.Kind, e.Got)
	if len(e.Near) > 0 {
		fmt.Fprintf(&b, " (did you mean %s?)", strings.Join(e.Near, " or "))
	}
	if len(e.Valid) > 0 {
		list := e.Valid
		more := ""
		if len(list) > maxListed {
			more = fmt.Sprintf(", … (%d in all)", len(list))
			list = list[:maxListed]
		}
		fmt.Fprintf(&b, "; valid: %s%s", strings.Join(list, ", "), more)
	} else {
		b.WriteString("; there are none")
	}
	return b.String()
}

// Unknown is the error for name got of kind among valid (order kept for the list).
func Unknown(kind, got string, valid []string) *Error {
	return &Error{Kind: kind, Got: got, Near: Nearest(got, valid), Valid: valid}
}

// UnknownAmong is Unknown where a valid value has several spellings: list
// is what the message shows (one entry per value, e.g. "FP32|fp32|float32"),
// names every spelling the nearest are chosen from.
func UnknownAmong(kind, got string, list, names []string) *Error {
	return &Error{Kind: kind, Got: got, Near: Nearest(got, names), Valid: list}
}

// Nearest returns up to three valid names closest to got by edit distance,
// case-insensitively: those within a third of the longer name (at least 2),
// (one for names of up to 4 bytes), or containing got / contained in it
// (3 bytes and more); nearest first, then in valid's order.
func Nearest(got string, valid []string) []string {
	g := strings.ToLower(got)
	type cand struct {
		name string
		d, i int
	}
	var cs []cand
	seen := map[string]bool{}
	for i, v := range valid {
		if seen[v] {
			continue
		}
		seen[v] = true
		l := strings.ToLower(v)
		d := distance(g, l)
		limit := 1 // a short name: one edit; longer, a third of it
		if n := max(len(g), len(l)); n > 4 {
			limit = max(2, n/3)
		}
		if d <= limit || (len(g) >= 3 && (strings.Contains(l, g) || strings.Contains(g, l) && len(l) >= 3)) {
			cs = append(cs, cand{v, d, i})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].d < cs[b].d })
	var out []string
	for _, c := range cs {
		if len(out) == 3 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// distance is the Levenshtein distance with a transposition of neighbours
// counted once (optimal string alignment), over bytes.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
