package nkic

import (
	"encoding/binary"
	"math"
	"strings"

	"ndma/dtype"
	"ndma/internal/compute"
)

// The masking and selection calls (docs/nki.md "Selection"): nl.where
// ("select"), nisa.tensor_copy_predicated, nisa.affine_select, nisa.max8 and
// nisa.nc_find_index8. ndma's
// ISA tables have no word for any of them (docs/compute.md lists none; the
// spec names COPY_PREDICATED 0x72 without a layout), so each runs as a Go
// loop on the session's SBUF/PSUM, flagged not exact.

// cmpOps are the comparisons affine_select's predicate may use: each
// holds of the affine value v against 0.
var cmpOps = map[string]func(v int64) bool{
	"equal": func(v int64) bool { return v == 0 }, "not_equal": func(v int64) bool { return v != 0 },
	"greater": func(v int64) bool { return v > 0 }, "greater_equal": func(v int64) bool { return v >= 0 },
	"less": func(v int64) bool { return v < 0 }, "less_equal": func(v int64) bool { return v <= 0 },
}

// max8N is how many values max8 keeps and nc_find_index8 looks up per
// partition; max8Span the elements per partition both read (NKI: "between
// 8 and 16,384 inclusive").
const (
	max8N    = 8
	max8Span = 16384
)

// compileSelect compiles a selection call into a Go loop (not exact).
func (p *Program) compileSelect(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Bytes = false, dst.elems*dst.esize
	lw.Note = "computed by ndma, not by a word (ndma's ISA tables have no " + strings.ToUpper(c.Op) + " word)"
	if c.Op == "tensor_copy_predicated" {
		lw.Note = "computed by ndma, not by a word (the compute spec names COPY_PREDICATED 0x72 without a layout)"
	}
	ls, err := p.sources(c)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		if _, err := p.operand(l, 4); err != nil {
			return nil, err
		}
	}
	if _, err := p.operand(dst, 4); err != nil {
		return nil, err
	}
	switch c.Op {
	case "select":
		return p.compileWhere(lw, c, dst, ls)
	case "tensor_copy_predicated":
		return p.compileCopyPredicated(lw, c, dst, ls)
	case "affine_select":
		return p.compileAffineSelect(lw, c, dst, ls)
	}
	return p.compileTop8(lw, c, dst, ls)
}

// compileWhere: dst = cond ≠ 0 ? x : y, element for element in pattern
// order; y a source or the number c.Value.
func (p *Program) compileWhere(lw *Lowered, c *Call, dst *leg, ls []*leg) (*Lowered, error) {
	if err := checkPick(c, dst, ls, 3, "[condition, x, y] or [condition, x] and value (y a number)"); err != nil {
		return nil, err
	}
	lw.Engine = "vector (DVE)"
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorTensor, dst)
	b := elems{v: c.Value}
	if len(ls) == 3 {
		b = elems{l: ls[2]}
	}
	lw.eval = pick(ls[0], elems{l: ls[1]}, b, false, dst)
	return lw, nil
}

// checkPick checks a pick's sources: n of them, or n−1 and c.Value (the
// last operand a number), each of dst's element count.
func checkPick(c *Call, dst *leg, ls []*leg, n int, form string) error {
	if (len(ls) == n) == (c.Value != nil) || len(ls) < n-1 || len(ls) > n {
		return progErr("%s takes srcs %s; %d sources given", c.Op, form, len(ls))
	}
	for k, l := range ls {
		if l.elems != dst.elems {
			return progErr("srcs[%d] has %d elements, dst %d: %s works element for element", k, l.elems, dst.elems, c.Op)
		}
	}
	return nil
}

// compileCopyPredicated: dst = src where the predicate is non-zero (zero
// with c.Reverse0, NKI's reverse_pred), dst unchanged elsewhere; src a tile
// (srcs [predicate, src]) or the number c.Value (srcs [predicate]).
func (p *Program) compileCopyPredicated(lw *Lowered, c *Call, dst *leg, ls []*leg) (*Lowered, error) {
	if err := checkPick(c, dst, ls, 2, "[predicate, src] or [predicate] and value (src a number)"); err != nil {
		return nil, err
	}
	if pt := ls[0].dt; pt != dtype.U8 && pt != dtype.U16 && pt != dtype.U32 {
		return nil, illegal("tensor_copy_predicated: the predicate is %s; NKI takes uint8, uint16 or uint32", ls[0].t.DType)
	}
	if len(ls) == 2 && ls[1].dt != dst.dt {
		return nil, illegal("tensor_copy_predicated: src is %s, dst %s; NKI: \"src and dst must share the same data type\"", ls[1].t.DType, dst.t.DType)
	}
	lw.Engine = "vector (DVE)"
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpCopy, dst)
	a := elems{v: c.Value}
	if len(ls) == 2 {
		a = elems{l: ls[1]}
	}
	lw.eval = pick(ls[0], a, elems{l: dst}, c.Reverse0, dst)
	return lw, nil
}

// compileAffineSelect: dst[i] = pred(i) ? on_true[i] : on_false, pred(i) =
// cmp(offset + Σ coefs[d]·i_d, 0) over dst's pattern indices i (i_0 the
// partition, NKI's channel_multiplier its coefficient).
func (p *Program) compileAffineSelect(lw *Lowered, c *Call, dst *leg, ls []*leg) (*Lowered, error) {
	if len(ls) != 1 {
		return nil, progErr("affine_select takes one source (on_true_tile), %d given", len(ls))
	}
	if ls[0].elems != dst.elems {
		return nil, progErr("on_true_tile has %d elements, dst %d", ls[0].elems, dst.elems)
	}
	if len(c.Coefs) != len(dst.shape) {
		return nil, progErr("affine_select needs one coefficient per dst axis (%d), %d given", len(dst.shape), len(c.Coefs))
	}
	if c.Value == nil {
		return nil, progErr("affine_select needs value (on_false_value)")
	}
	name := strings.TrimPrefix(strings.TrimPrefix(c.ALUOp, "nl."), "np.")
	if name == "" {
		name = "equal" // NKI's default cmp_op
	}
	cmp, ok := cmpOps[name]
	if !ok {
		return nil, illegal("affine_select cmp_op %q: want equal, not_equal, greater, greater_equal, less or less_equal", c.ALUOp)
	}
	var off int64
	if c.Operand0 != nil {
		off = int64(*c.Operand0)
	}
	lw.Engine = "gpsimd (POOL)"
	lw.ns = p.perPartitionNS(lw.Engine, opIota, dst)
	coefs, shape, src, fill := c.Coefs, dst.shape, ls[0], float32(*c.Value)
	lw.eval = func(r *runner) error {
		x, err := r.readElems(src, dst.dt)
		if err != nil {
			return err
		}
		var f [4]byte
		binary.LittleEndian.PutUint32(f[:], math.Float32bits(fill))
		y := make([]byte, dst.esize)
		if err := dtype.Convert(y, dst.dt, f[:], dtype.FP32); err != nil {
			return err
		}
		es := int(dst.esize)
		affineEach(coefs, shape, func(e, v int64) {
			if !cmp(off + v) {
				copy(x[int(e)*es:int(e+1)*es], y)
			}
		})
		return r.writeElems(dst, x)
	}
	return lw, nil
}

// compileTop8: max8 (src → the 8 largest values per partition, descending)
// and nc_find_index8 (srcs [data, vals] → per partition, the index of the
// first element of data equal to each of the 8 vals; 0xFFFF… where none is).
func (p *Program) compileTop8(lw *Lowered, c *Call, dst *leg, ls []*leg) (*Lowered, error) {
	want := 1
	if c.Op == "nc_find_index8" {
		want = 2
	}
	if len(ls) != want {
		return nil, progErr("%s takes %d sources, %d given", c.Op, want, len(ls))
	}
	parts, n, err := p.perPartition(ls[0], "data")
	if err != nil {
		return nil, err
	}
	dp, dn, err := p.perPartition(dst, "dst")
	if err != nil {
		return nil, err
	}
	switch {
	case n < max8N || n > max8Span:
		return nil, illegal("%s reads %d elements per partition: NKI takes 8 to 16,384", c.Op, n)
	case dp != parts || dn != max8N:
		return nil, illegal("%s: dst is %d partitions × %d elements; want %d × 8", c.Op, dp, dn, parts)
	}
	lw.Engine = "vector (DVE)"
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorReduce, ls[0])
	data := ls[0]
	if c.Op == "max8" {
		lw.eval = func(r *runner) error {
			x, err := r.readF32(data)
			if err != nil {
				return err
			}
			out := make([]float32, parts*max8N)
			for q := range parts {
				top8(out[q*max8N:(q+1)*max8N], x[q*n:(q+1)*n])
			}
			return r.writeF32(dst, out)
		}
		return lw, nil
	}
	vp, vn, err := p.perPartition(ls[1], "vals")
	if err != nil {
		return nil, err
	}
	if vp != parts || vn != max8N {
		return nil, illegal("nc_find_index8: vals is %d partitions × %d elements; want %d × 8", vp, vn, parts)
	}
	if dst.dt != dtype.U32 && dst.dt != dtype.U16 {
		return nil, illegal("nc_find_index8: dst is %s; NKI writes uint16 or uint32 indices", dst.t.DType)
	}
	vals := ls[1]
	none := uint64(1)<<(8*dst.esize) - 1 // the all-ones sentinel of dst's dtype
	lw.eval = func(r *runner) error {
		x, v, err := r.readF32Pair(data, vals)
		if err != nil {
			return err
		}
		out := make([]uint64, 0, parts*max8N)
		for q := range parts {
			row := x[q*n : (q+1)*n]
			for _, want := range v[q*max8N : (q+1)*max8N] {
				at := none
				for i, e := range row {
					if e == want {
						at = uint64(i)
						break
					}
				}
				out = append(out, at)
			}
		}
		return r.writeUints(dst, out)
	}
	return lw, nil
}

// elems is a selection's operand: a leg's elements, or (l nil) the number
// *v in every element.
type elems struct {
	l *leg
	v *float64
}

// bytes are the operand's elements as dst's element bytes, in pattern order.
func (e elems) bytes(r *runner, dst *leg) ([]byte, error) {
	if e.l == nil {
		return splat(float32(*e.v), dst), nil
	}
	return r.readElems(e.l, dst.dt)
}

// pick is dst = cond ≠ 0 ? a : b element for element (cond = 0 with rev),
// every operand read before dst is written (b may be dst itself).
func pick(cond *leg, a, b elems, rev bool, dst *leg) func(r *runner) error {
	return func(r *runner) error {
		c, err := r.readF32(cond)
		if err != nil {
			return err
		}
		x, err := a.bytes(r, dst)
		if err != nil {
			return err
		}
		out, err := b.bytes(r, dst)
		if err != nil {
			return err
		}
		es := int(dst.esize)
		for i, v := range c {
			if (v != 0) != rev {
				copy(out[i*es:(i+1)*es], x[i*es:(i+1)*es])
			}
		}
		return r.writeElems(dst, out)
	}
}

// affineEach calls f with each index i of shape, in C order (the pattern
// order of a leg of that shape), as its position e and Σ coefs[d]·i_d:
// iota's values, affine_select's predicate before its constant.
func affineEach(coefs, shape []int64, f func(e, v int64)) {
	n := int64(1)
	for _, k := range shape {
		n *= k
	}
	if len(shape) == 0 || n == 0 {
		return
	}
	last, step := shape[len(shape)-1], coefs[len(shape)-1]
	idx := make([]int64, len(shape)-1) // the outer index; the innermost axis a run
	for e := int64(0); e < n; e += last {
		base := int64(0)
		for d, i := range idx {
			base += coefs[d] * i
		}
		for j := range last {
			f(e+j, base+step*j)
		}
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// top8 writes the max8N largest of row (n ≥ max8N) into best, largest
// first, equal values each kept: an insertion into the best so far.
func top8(best, row []float32) {
	k := 0
	for _, v := range row {
		if k == max8N && !greater32(v, best[max8N-1]) {
			continue
		}
		i := min(k, max8N-1)
		for i > 0 && greater32(v, best[i-1]) {
			best[i] = best[i-1]
			i--
		}
		best[i] = v
		k = min(k+1, max8N)
	}
}

// greater32 orders max8's values: larger first, NaN above every number
// (INFERRED, RATIONALE.md "NKI kernels": the docs do not say where NaN goes).
func greater32(a, b float32) bool {
	an, bn := a != a, b != b
	if an || bn {
		return an && !bn
	}
	return a > b
}

// perPartition is a leg's partitions and elements per partition, its
// pattern walking the partitions outermost (so pattern order is partition
// after partition).
func (p *Program) perPartition(l *leg, what string) (parts, n int64, err error) {
	stride := p.partStride(l.t)
	parts, outer := int64(1), false         // outer: a dimension of more than one element seen outside
	for k := len(l.dims) - 1; k >= 0; k-- { // outermost first
		d := l.dims[k]
		if d.n == 1 {
			continue
		}
		if d.step != 0 && d.step%stride == 0 {
			if outer {
				return 0, 0, illegal("%s %q: the partitions are not its outermost dimension", what, l.t.Name)
			}
			parts = d.n
		}
		outer = true
	}
	return parts, l.elems / parts, nil
}

// splat is dst.elems copies of v as dst's element bytes (the cast rules).
func splat(v float32, dst *leg) []byte {
	var f [4]byte
	binary.LittleEndian.PutUint32(f[:], math.Float32bits(v))
	out := make([]byte, dst.elems*dst.esize)
	_ = dtype.Convert(out[:dst.esize], dst.dt, f[:], dtype.FP32) // FP32 converts to every dtype
	for k := dst.esize; k < int64(len(out)); k *= 2 {
		copy(out[k:], out[:k])
	}
	return out
}

// runs are a leg's contiguous runs in pattern order: their start addresses
// and the elements in each (the innermost dimensions that step one element).
func (l *leg) runs() (starts []uint64, n int64) {
	n, k := 1, 0
	for k < len(l.dims) && (l.dims[k].n == 1 || l.dims[k].step == n*l.esize) {
		n *= l.dims[k].n
		k++
	}
	outer := leg{addr: l.addr, dims: l.dims[k:], elems: l.elems / n}
	return outer.addrs(), n
}

// readRaw reads a leg's element bytes in pattern order, a run at a time.
func (r *runner) readRaw(l *leg) ([]byte, error) {
	out := make([]byte, l.elems*l.esize)
	return out, r.readRawInto(l, out)
}

// readRawInto is readRaw into out (the leg's elements × their size).
func (r *runner) readRawInto(l *leg, out []byte) error {
	starts, n := l.runs()
	run := n * l.esize
	for i, a := range starts {
		if err := r.m.Read(a, out[int64(i)*run:int64(i+1)*run]); err != nil {
			return err
		}
	}
	return nil
}

// writeRaw writes element bytes of the leg's dtype in pattern order, a run
// at a time.
func (r *runner) writeRaw(l *leg, b []byte) error {
	starts, n := l.runs()
	run := n * l.esize
	for i, a := range starts {
		if err := r.m.Write(a, b[int64(i)*run:int64(i+1)*run]); err != nil {
			return err
		}
	}
	return nil
}

// readElems reads a leg's elements in pattern order as elements of dt:
// the bytes themselves when the leg is of dt (a selection moves them
// unchanged), else each converted through FP32 by the cast rules.
func (r *runner) readElems(l *leg, dt dtype.DType) ([]byte, error) {
	raw, err := r.readRaw(l)
	if err != nil || l.dt == dt {
		return raw, err
	}
	f := make([]byte, 4*l.elems)
	if err := dtype.Convert(f, dtype.FP32, raw, l.dt); err != nil {
		return nil, err
	}
	out := make([]byte, l.elems*int64(dt.Size()))
	if err := dtype.Convert(out, dt, f, dtype.FP32); err != nil {
		return nil, err
	}
	return out, nil
}

// writeElems writes element bytes of the leg's dtype, in pattern order.
func (r *runner) writeElems(l *leg, b []byte) error { return r.writeRaw(l, b) }

// writeUints writes unsigned integers into a leg of an unsigned dtype (its
// low bytes, little-endian), in pattern order.
func (r *runner) writeUints(l *leg, vals []uint64) error {
	b := make([]byte, int64(len(vals))*l.esize)
	var w [8]byte
	for k, v := range vals {
		binary.LittleEndian.PutUint64(w[:], v)
		copy(b[int64(k)*l.esize:], w[:l.esize])
	}
	return r.writeRaw(l, b)
}
