package cli

import (
	"fmt"

	"ndma/dtype"
	"ndma/neff"
)

// outputType is the .npy dtype and shape a variable's n bytes are written
// in by `neff run --out` and `--dump VAR=`: neff.json's, when it gives a
// dtype ndma knows and a shape of non-negative dimensions covering exactly
// n bytes; else the n bytes as they are (|u1 [n]). warn, when neff.json
// gives the variable a dtype and shape that do not fit, says so naming the
// variable (a variable neff.json does not type, or types "" — raw bytes —
// is written as bytes without one).
func outputType(tensors map[string]neff.Tensor, name string, n int) (descr string, shape []int, warn string) {
	t, ok := tensors[name]
	if !ok || t.Dtype == "" {
		return "|u1", []int{n}, ""
	}
	raw := func(why string) (string, []int, string) {
		return "|u1", []int{n}, fmt.Sprintf("neff.json gives %s the dtype %q and shape %v, %s: written as its %d bytes (|u1)", name, t.Dtype, t.Shape, why, n)
	}
	dt, err := dtype.FromNEFF(t.Dtype)
	if err != nil {
		return raw("a dtype ndma does not know")
	}
	if dt.Size() == 0 {
		return raw("a dtype of no whole byte size")
	}
	k := dt.Size()
	for _, d := range t.Shape {
		if d < 0 {
			return raw(fmt.Sprintf("a negative dimension (%d)", d))
		}
		if d > 0 && k > n/d {
			return raw(fmt.Sprintf("more bytes than the variable's %d", n))
		}
		k *= d
	}
	if k != n {
		return raw(fmt.Sprintf("%d bytes, not the variable's %d", k, n))
	}
	return dt.Descr(), append([]int(nil), t.Shape...), ""
}
