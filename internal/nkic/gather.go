package nkic

import (
	"encoding/binary"
	"math"
	"strings"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// range_select, select_reduce, nc_match_replace8 and gather_flattened
// (docs/nki.md "Selection"): like the other selections, no word of ndma's
// ISA tables computes them, so each is a Go loop on the session's
// SBUF/PSUM over the operands' rows (a row a partition, its free elements
// in pattern order), flagged not exact, timed as a DVE word over the
// source's elements per partition.

// selNote is their trace note.
func selNote(op string) string {
	return "computed by ndma, not by a word (ndma's ISA tables have no " + strings.ToUpper(op) + " word)"
}

// noWord marks lw a call ndma computes itself (no word in its ISA
// tables: selNote's note) on engine, writing dst, and times it as the one
// word of op it stands for over sized's elements per partition.
func (p *Program) noWord(lw *Lowered, c *Call, engine string, op isa.Opcode, dst, sized *leg) {
	lw.Exact, lw.Engine, lw.Bytes, lw.Note = false, engine, dst.elems*dst.esize, selNote(c.Op)
	lw.ns = p.perPartitionNS(engine, op, sized)
}

// perRow is a per-partition operand: the number v in every row, or the
// (P, 1) tile l read at run time.
type perRow struct {
	l *leg
	v float32
}

// perRowOf resolves a per-partition operand of P rows: tile, else the
// number val (missing both: an error naming what).
func (p *Program) perRowOf(tile *AP, val *float64, what string, P int64) (perRow, error) {
	if tile != nil {
		l, _, err := p.rowsLike(tile, what+" tile", P, 1)
		return perRow{l: l}, err
	}
	if val == nil {
		return perRow{}, progErr("needs %s (a number or a (P, 1) tile)", what)
	}
	return perRow{v: float32(*val)}, nil
}

// perRowPair resolves operand0(_tile) and operand1(_tile) as per-partition
// operands, named n0 and n1 in messages.
func (p *Program) perRowPair(c *Call, n0, n1 string, P int64) (a, b perRow, err error) {
	if a, err = p.perRowOf(c.Operand0Tile, c.Operand0, n0, P); err != nil {
		return a, b, err
	}
	b, err = p.perRowOf(c.Operand1Tile, c.Operand1, n1, P)
	return a, b, err
}

// readPerRows reads two per-partition operands.
func readPerRows(r *runner, a, b perRow, P int64) ([]float32, []float32, error) {
	x, err := a.read(r, P)
	if err != nil {
		return nil, nil, err
	}
	y, err := b.read(r, P)
	return x, y, err
}

func (o perRow) read(r *runner, P int64) ([]float32, error) {
	if o.l != nil {
		return r.readF32(o.l)
	}
	out := make([]float32, P)
	for i := range out {
		out[i] = o.v
	}
	return out, nil
}

// reduceRes resolves a call's reduce_res: nil, or a (P, 1) float tile of
// each row's max ("reduce_op only supports max"; "reduce_res dtype must of
// float type").
func (p *Program) reduceRes(c *Call, P int64) (*leg, error) {
	if c.ReduceRes == nil {
		return nil, nil
	}
	l, _, err := p.rowsLike(c.ReduceRes, "reduce_res", P, 1)
	if err != nil {
		return nil, err
	}
	if !l.dt.IsFloat() {
		return nil, illegal("%s: reduce_res is %s; NKI: \"reduce_res dtype must of float type\"", c.Op, l.t.DType)
	}
	return l, nil
}

// rowMax writes each row's max of out (F per row) into res, if any; a row
// with NaN gives NaN (the ALU's MAX propagates it, docs/compute.md §14).
func rowMax(r *runner, res *leg, out []float32, P, F int64) error {
	if res == nil {
		return nil
	}
	m := make([]float32, P)
	for q := range P {
		v := float32(math.Inf(-1))
		for _, x := range out[q*F : (q+1)*F] {
			if x != x || x > v {
				v = x
				if x != x {
					break
				}
			}
		}
		m[q] = v
	}
	return r.writeF32(res, m)
}

// cmpCodes number range_select's comparisons for holds.
var cmpCodes = map[string]int8{"equal": 0, "not_equal": 1, "greater": 2, "greater_equal": 3, "less": 4, "less_equal": 5}

// holds is a cmp b for comparison code op, in fp32 (NaN: only not_equal
// holds, as IEEE compares); a switch the compiler inlines into the loop.
func holds(op int8, a, b float32) bool {
	switch op {
	case 0:
		return a == b
	case 1:
		return a != b
	case 2:
		return a > b
	case 3:
		return a >= b
	case 4:
		return a < b
	}
	return a <= b
}

// lowestF32 is FP32's lowest finite value, range_select's default
// on_false_value (INFERRED from the NKI page's note that an all-fill row
// gives "FP32_MIN - FP32_MIN = 0").
const lowestF32 = -math.MaxFloat32

// pair resolves a call's two sources (srcs [a, b], named so in messages)
// and the rows of the one at index rowsOf: its partitions and elements per
// partition.
func (p *Program) pair(c *Call, a, b string, rowsOf int) (la, lb *leg, P, F int64, err error) {
	ls, err := p.sources(c)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if len(ls) != 2 {
		return nil, nil, 0, 0, progErr("%s takes srcs [%s, %s], %d given", c.Op, a, b, len(ls))
	}
	P, F, err = p.rows(ls[rowsOf], []string{a, b}[rowsOf])
	return ls[0], ls[1], P, F, err
}

// compileRangeSelect: dst[q, i] = on_true[q, i] where cmp0(i + range_start,
// bound0[q]) and cmp1(i + range_start, bound1[q]) hold, i the free index
// in pattern order, else on_false_value; reduce_res the row max.
// Fields: src on_true_tile, alu_op/alu_op1 the comparisons,
// operand0(_tile)/operand1(_tile) the bounds, value on_false_value.
func (p *Program) compileRangeSelect(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	if c.Src == nil || len(c.Srcs) > 0 {
		return nil, progErr("range_select takes one source, src (on_true_tile)")
	}
	src, err := p.resolve(c.Src, "on_true_tile")
	if err != nil {
		return nil, err
	}
	P, F, err := p.rows(src, "on_true_tile")
	if err != nil {
		return nil, err
	}
	if _, _, err := p.rowsLike(c.Dst, "dst", P, F); err != nil {
		return nil, err
	}
	var cmp [2]int8
	for k, name := range []string{c.ALUOp, c.ALUOp1} {
		f, ok := cmpCodes[strings.TrimPrefix(strings.TrimPrefix(name, "nl."), "np.")]
		if !ok {
			return nil, illegal("range_select comp_op%d %q: want a comparison (equal, not_equal, greater, greater_equal, less, less_equal)", k, name)
		}
		cmp[k] = f
	}
	b0, b1, err := p.perRowPair(c, "bound0", "bound1", P)
	if err != nil {
		return nil, err
	}
	res, err := p.reduceRes(c, P)
	if err != nil {
		return nil, err
	}
	start, fill := float32(0), float32(lowestF32)
	if c.RangeStart != nil {
		start = float32(*c.RangeStart)
	}
	if c.Value != nil {
		fill = float32(*c.Value)
	}
	p.noWord(lw, c, "vector (DVE)", compute.OpTensorTensor, dst, src)
	lw.eval = func(r *runner) error {
		x, err := r.readF32(src)
		if err != nil {
			return err
		}
		lo, hi, err := readPerRows(r, b0, b1, P)
		if err != nil {
			return err
		}
		keep := make([]bool, F)
		for q := range P {
			for i := range F {
				v := float32(i) + start
				keep[i] = holds(cmp[0], v, lo[q]) && holds(cmp[1], v, hi[q])
			}
			row := x[q*F : (q+1)*F]
			for i, k := range keep {
				if !k {
					row[i] = fill
				}
			}
		}
		if err := r.writeF32(dst, x); err != nil {
			return err
		}
		return rowMax(r, res, x, P, F)
	}
	return lw, nil
}

// compileSelectReduce: dst = predicate ≠ 0 (= 0 with reverse0) ? on_true :
// on_false, on_false a number (value) or a (P, 1) tile (operand0_tile);
// reduce_res the row max. srcs [predicate, on_true].
func (p *Program) compileSelectReduce(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	pred, on, P, F, err := p.pair(c, "predicate", "on_true", 1)
	if err != nil {
		return nil, err
	}
	for _, o := range []struct {
		l    *leg
		what string
	}{{pred, "predicate"}, {dst, "dst"}} {
		if q, f, err := p.rows(o.l, o.what); err != nil {
			return nil, err
		} else if q != P || f != F {
			return nil, illegal("select_reduce: %s is %d × %d, on_true %d × %d: NKI: \"identical shapes\"", o.what, q, f, P, F)
		}
	}
	if pred.dt.IsFloat() {
		return nil, illegal("select_reduce: the predicate is %s; NKI takes an integer type", pred.t.DType)
	}
	if pred.t.Buffer == "psum" && on.t.Buffer == "psum" {
		return nil, illegal("select_reduce: on_true and predicate are both in PSUM; NKI: \"not both simultaneously\"")
	}
	off, err := p.perRowOf(c.Operand0Tile, c.Value, "on_false", P)
	if err != nil {
		return nil, err
	}
	res, err := p.reduceRes(c, P)
	if err != nil {
		return nil, err
	}
	rev := c.Reverse0
	p.noWord(lw, c, "vector (DVE)", compute.OpTensorTensor, dst, on)
	lw.eval = func(r *runner) error {
		pv, x, err := r.readF32Pair(pred, on)
		if err != nil {
			return err
		}
		f, err := off.read(r, P)
		if err != nil {
			return err
		}
		for k, v := range pv {
			if (v != 0) == rev {
				x[k] = f[int64(k)/F]
			}
		}
		if err := r.writeF32(dst, x); err != nil {
			return err
		}
		return rowMax(r, res, x, P, F)
	}
	return lw, nil
}

// compileMatchReplace8: dst = data with, per partition, the first
// not yet matched element equal to each of the 8 vals replaced by imm
// (value), vals taken in reverse order (slot 7 first: the NKI page's
// "processes vals in reverse order (i = 7, 6, ..., 0)"); dst_idx, if
// given, gets each slot's matched index, all ones where none matched (as
// nc_find_index8's sentinel — INFERRED). srcs [data, vals].
func (p *Program) compileMatchReplace8(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	if c.Value == nil {
		return nil, progErr("nc_match_replace8 needs value (imm)")
	}
	data, _, P, F, err := p.pair(c, "data", "vals", 0)
	if err != nil {
		return nil, err
	}
	if F > max8Span {
		return nil, illegal("nc_match_replace8 reads %d elements per partition: at most 16,384 (as max8)", F)
	}
	if _, _, err := p.rowsLike(c.Dst, "dst", P, F); err != nil {
		return nil, err
	}
	vals, _, err := p.rowsLike(c.sourceAPs()[1], "vals", P, max8N)
	if err != nil {
		return nil, err
	}
	var idx *leg
	none := uint64(0)
	if c.DstIdx != nil {
		if idx, _, err = p.rowsLike(c.DstIdx, "dst_idx", P, max8N); err != nil {
			return nil, err
		}
		if idx.dt != dtype.U32 && idx.dt != dtype.U16 {
			return nil, illegal("nc_match_replace8: dst_idx is %s; ndma writes uint16 or uint32 indices (as nc_find_index8)", idx.t.DType)
		}
		none = uint64(1)<<(8*idx.esize) - 1
	}
	imm := float32(*c.Value)
	p.noWord(lw, c, "vector (DVE)", compute.OpTensorReduce, dst, data)
	lw.eval = func(r *runner) error {
		x, v, err := r.readF32Pair(data, vals)
		if err != nil {
			return err
		}
		at := make([]uint64, P*max8N)
		taken := make([]bool, F)
		for q := range P {
			row := x[q*F : (q+1)*F]
			clear(taken)
			for k := max8N - 1; k >= 0; k-- {
				want, slot := v[q*max8N+int64(k)], none
				for i, e := range row {
					if e == want && !taken[i] {
						taken[i], slot = true, uint64(i)
						break
					}
				}
				at[q*max8N+int64(k)] = slot
			}
			for i, t := range taken {
				if t {
					row[i] = imm
				}
			}
		}
		if err := r.writeF32(dst, x); err != nil {
			return err
		}
		if idx != nil {
			return r.writeUints(idx, at)
		}
		return nil
	}
	return lw, nil
}

// compileGatherFlattened: dst[q, j] = data[q, indices[q, j]], each row's
// free elements flattened (NKI: "equivalent to … np.take_along_axis" on
// the flattened rows); indices uint32. NKI returns "garbage values" for an
// index out of bounds: ndma refuses it at run time (ErrOOB) rather than
// invent values. srcs [data, indices]; dst of indices' shape.
func (p *Program) compileGatherFlattened(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	data, ix, P, F, err := p.pair(c, "data", "indices", 0)
	if err != nil {
		return nil, err
	}
	_, N, err := p.rowsLike(c.sourceAPs()[1], "indices", P, -1)
	if err != nil {
		return nil, err
	}
	if ix.dt != dtype.U32 {
		return nil, illegal("gather_flattened: indices are %s; NKI: \"The indices tensor must contain uint32 values\"", ix.t.DType)
	}
	if _, _, err := p.rowsLike(c.Dst, "dst", P, N); err != nil {
		return nil, err
	}
	p.noWord(lw, c, "gpsimd (POOL)", opIota, dst, dst)
	es := int64(dst.esize)
	lw.eval = func(r *runner) error {
		x, err := r.readElems(data, dst.dt)
		if err != nil {
			return err
		}
		raw, err := r.readRaw(ix)
		if err != nil {
			return err
		}
		out := make([]byte, P*N*es)
		for q := range P {
			for j := range N {
				k := q*N + j
				i := int64(binary.LittleEndian.Uint32(raw[4*k:]))
				if i >= F {
					return &OOBError{Lane: int(k), Index: i, Bound: F, Axis: 1}
				}
				copy(out[k*es:(k+1)*es], x[(q*F+i)*es:(q*F+i+1)*es])
			}
		}
		return r.writeElems(dst, out)
	}
	return lw, nil
}
