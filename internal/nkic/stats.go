package nkic

import (
	"fmt"
	"strings"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// The DVE's statistics and scan calls (docs/nki.md "Statistics, scans and
// scalar_tensor_tensor"): nisa.bn_stats, bn_aggr, tensor_tensor_scan and
// scalar_tensor_tensor. docs/compute.md has no field table for their words
// (it names SCALAR_TENSOR_TENSOR 0x9d/0x9e and no BN_STATS, BN_AGGR or scan
// opcode), so each is a Go loop over the rows of its operands, one row a
// partition, flagged not exact; its time is a DVE word's over the source.

// BNStatsFMax is nl.tile_size.bn_stats_fmax: the most elements per
// partition one bn_stats reads (the NKI API reference's bn_stats page).
const BNStatsFMax = 512

// bnStatsWidth and bnAggrWidth are the elements per partition bn_stats and
// bn_aggr write: (count, mean, variance·count) of the even elements then of
// the odd ones; mean then variance.
const (
	bnStatsWidth = 6
	bnAggrWidth  = 2
)

// rows is a leg read as P rows of F elements: the pattern's outermost
// dimension steps partitions (or counts 1, or the leg is one partition's
// run), every inner one stays in its partition.
func (p *Program) rows(l *leg, what string) (P, F int64, err error) {
	if !l.t.chip {
		return 0, 0, illegal("%s %q is in %s: compute engines read and write SBUF/PSUM", what, l.t.Name, l.t.Buffer)
	}
	if l.ind >= 0 || l.dynamic {
		return 0, 0, illegal("%s %q: a compute operand has no vector or scalar offset", what, l.t.Name)
	}
	stride := p.partStride(l.t)
	part := func(d dim) bool { return d.n > 1 && d.step != 0 && d.step%stride == 0 }
	P = 1
	for k, d := range l.dims { // innermost first
		switch {
		case k == len(l.dims)-1 && part(d):
			P = d.n
		case part(d) || d.n > 1 && (d.step >= stride || d.step <= -stride):
			return 0, 0, illegal("%s %q: only its first axis may step partitions (step %d bytes)", what, l.t.Name, d.step)
		}
	}
	return P, l.elems / P, nil
}

// rowsLike resolves a and checks it is P rows of F elements (F < 0: any).
func (p *Program) rowsLike(a *AP, what string, P, F int64) (*leg, int64, error) {
	l, err := p.resolve(a, what)
	if err != nil {
		return nil, 0, err
	}
	q, f, err := p.rows(l, what)
	if err != nil {
		return nil, 0, err
	}
	if q != P || F >= 0 && f != F {
		want := fmt.Sprintf("%d partitions × %d elements", P, F)
		if F < 0 {
			want = fmt.Sprintf("%d partitions", P)
		}
		return nil, 0, illegal("%s %q spans %d partitions × %d elements: want %s", what, l.t.Name, q, f, want)
	}
	return l, f, nil
}

// floatOp is the float32 form of an arithmetic operator name.
func floatOp(name, what string) (func(a, b float32) float32, error) {
	op, err := aluOp(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	f, ok := compute.FloatOp(op)
	if !ok {
		return nil, illegal("%s %q is not an arithmetic operator (bitvec operators are not allowed here)", what, name)
	}
	return f, nil
}

// compileStats compiles bn_stats, bn_aggr, tensor_tensor_scan and
// scalar_tensor_tensor.
func (p *Program) compileStats(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	srcs := c.sourceAPs()
	need := map[string]int{"bn_stats": 1, "bn_aggr": 1, "tensor_tensor_scan": 2, "scalar_tensor_tensor": 2}[c.Op]
	if len(srcs) != need {
		return nil, progErr("%s takes %d source operands, %d given", c.Op, need, len(srcs))
	}
	src, err := p.resolve(srcs[0], "src")
	if err != nil {
		return nil, err
	}
	P, F, err := p.rows(src, "src")
	if err != nil {
		return nil, err
	}
	lw.Exact, lw.Engine, lw.Bytes = false, "vector (DVE)", dst.elems*dst.esize
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorTensor, src)
	switch c.Op {
	case "bn_stats":
		return p.bnStats(lw, src, dst, P, F)
	case "bn_aggr":
		return p.bnAggr(lw, src, dst, P, F)
	}
	names := map[string][2]string{"tensor_tensor_scan": {"data0", "data1"}, "scalar_tensor_tensor": {"data", "operand1"}}[c.Op]
	src1, _, err := p.rowsLike(srcs[1], names[1], P, F)
	if err != nil {
		return nil, err
	}
	if src.t.Buffer == "psum" && src1.t.Buffer == "psum" {
		return nil, illegal("%s and %s are both in PSUM: at most one may be", names[0], names[1])
	}
	if _, _, err := p.rowsLike(c.Dst, "dst", P, F); err != nil {
		return nil, err
	}
	op0, err := floatOp(c.ALUOp, "op0")
	if err != nil {
		return nil, err
	}
	op1, err := floatOp(c.ALUOp1, "op1")
	if err != nil {
		return nil, err
	}
	// the per-partition scalar: scan's initial, scalar_tensor_tensor's operand0
	val, tile, sname := c.Initial, c.InitialTile, "initial"
	if c.Op == "scalar_tensor_tensor" {
		val, tile, sname = c.Operand0, c.Operand0Tile, "operand0"
	}
	var sc *leg
	if tile != nil {
		if sc, _, err = p.rowsLike(tile, sname+" tile", P, 1); err != nil {
			return nil, err
		}
	} else if val == nil {
		return nil, progErr("%s needs %s (a number or a (P, 1) tile)", c.Op, sname)
	}
	k := float32(0)
	if val != nil {
		k = float32(*val)
	}
	f := stepScan
	lw.Note = "computed by ndma in float32, not by a word: docs/compute.md has no scan (TENSOR_TENSOR_SCAN) layout"
	if c.Op == "scalar_tensor_tensor" {
		words, why := p.sttWords(c, src, src1, dst)
		if why == "" {
			lw.Exact, lw.Note, lw.Run, lw.Words, lw.ns = true, "", words, words, 0
			for k := range words {
				lw.ns += p.wordNS(lw.Engine, &words[k])
			}
			return lw, nil
		}
		f, lw.Note = stepSTT, "computed by ndma in float32, not by words: "+why
	}
	rev0, rev1 := c.Reverse0, c.Reverse1
	lw.eval = func(r *runner) error {
		a, b, err := r.readF32Pair(src, src1)
		if err != nil {
			return err
		}
		s := make([]float32, P)
		for i := range s {
			s[i] = k
		}
		if sc != nil {
			if s, err = r.readF32(sc); err != nil {
				return err
			}
		}
		out := make([]float32, len(a))
		for q := range P {
			row := q * F
			f(out[row:row+F], a[row:row+F], b[row:row+F], s[q], op0, op1, rev0, rev1)
		}
		return r.writeF32(dst, out)
	}
	return lw, nil
}

// apply is op(a, b), or op(b, a) reversed.
func apply(op func(a, b float32) float32, a, b float32, rev bool) float32 {
	if rev {
		return op(b, a)
	}
	return op(a, b)
}

// stepScan is one partition's tensor_tensor_scan: out[i] = op1(op0(a[i],
// out[i−1]), b[i]), out[−1] the initial value; reverse0/reverse1 swap the
// operands of op0/op1 (the running value the lhs of op0, b[i] the lhs of op1).
func stepScan(out, a, b []float32, init float32, op0, op1 func(a, b float32) float32, rev0, rev1 bool) {
	acc := init
	for i := range out {
		acc = apply(op1, apply(op0, a[i], acc, rev0), b[i], rev1)
		out[i] = acc
	}
}

// stepSTT is one partition's scalar_tensor_tensor: out[i] = op1(op0(a[i],
// s), b[i]); reverse0 makes s the lhs of op0, reverse1 b[i] the lhs of op1.
func stepSTT(out, a, b []float32, s float32, op0, op1 func(a, b float32) float32, rev0, rev1 bool) {
	for i := range out {
		out[i] = apply(op1, apply(op0, a[i], s, rev0), b[i], rev1)
	}
}

// perRow makes lw write, per partition, the width values fn makes of the
// source's row (float64 inside, rounded once to dst's dtype): bn_stats and
// bn_aggr.
func (p *Program) perRow(lw *Lowered, name string, src, dst *leg, P, F, width int64, fn func(row []float32, out []float32) []float32) (*Lowered, error) {
	if _, _, err := p.rows(dst, "dst"); err != nil {
		return nil, err
	}
	if dst.elems != P*width {
		return nil, illegal("%s writes %d elements per partition over %d partitions: dst has %d elements", name, width, P, dst.elems)
	}
	lw.Note = "computed by ndma (float64, rounded once), not by a word: docs/compute.md has no " + strings.ToUpper(name) + " layout"
	lw.eval = func(r *runner) error {
		x, err := r.readF32(src)
		if err != nil {
			return err
		}
		out := make([]float32, 0, P*width)
		for q := range P {
			out = fn(x[q*F:(q+1)*F], out)
		}
		return r.writeF32(dst, out)
	}
	return lw, nil
}

// bnStats: per partition, (count, mean, variance·count) of the elements at
// even positions, then of those at odd positions (an empty half: 0, 0, 0).
func (p *Program) bnStats(lw *Lowered, src, dst *leg, P, F int64) (*Lowered, error) {
	if F > BNStatsFMax {
		return nil, illegal("bn_stats reads %d elements per partition: at most %d (nl.tile_size.bn_stats_fmax)", F, BNStatsFMax)
	}
	return p.perRow(lw, "bn_stats", src, dst, P, F, bnStatsWidth, func(row, out []float32) []float32 {
		for half := range 2 {
			var n, sum float64
			for i := half; i < len(row); i += 2 {
				n, sum = n+1, sum+float64(row[i])
			}
			mean, m2 := 0.0, 0.0
			if n > 0 {
				mean = sum / n
				for i := half; i < len(row); i += 2 {
					d := float64(row[i]) - mean
					m2 += d * d
				}
			}
			out = append(out, float32(n), float32(mean), float32(m2))
		}
		return out
	})
}

// bnAggr: per partition, the (count, mean, variance·count) triples combined
// (Chan et al.'s pairwise update) into the mean and the variance (the
// squared deviations over the count; a total count of 0 gives 0, 0).
func (p *Program) bnAggr(lw *Lowered, src, dst *leg, P, F int64) (*Lowered, error) {
	if F == 0 || F%3 != 0 {
		return nil, illegal("bn_aggr reads (count, mean, variance·count) triples: %d elements per partition is not a multiple of 3", F)
	}
	return p.perRow(lw, "bn_aggr", src, dst, P, F, bnAggrWidth, func(row, out []float32) []float32 {
		var n, mean, m2 float64
		for i := 0; i < len(row); i += 3 {
			nb, mb, m2b := float64(row[i]), float64(row[i+1]), float64(row[i+2])
			if nb == 0 {
				continue
			}
			t := n + nb
			d := mb - mean
			mean += d * nb / t
			m2 += m2b + d*d*n*nb/t
			n = t
		}
		if n == 0 {
			return append(out, 0, 0)
		}
		return append(out, float32(mean), float32(m2/n))
	})
}

// sttWords forms scalar_tensor_tensor as the two words the NKI page says
// it equals ("temp_result = tensor_scalar(data, op0, operand0)", then
// "dst = tensor_tensor(temp_result, op1, operand1)"): a TENSOR_SCALAR into
// dst and a TENSOR_TENSOR of dst and operand1 into dst. The words give the
// single instruction's values when dst is FP32 (the intermediate is not
// rounded) and does not hold operand1 (the first word would overwrite it);
// why says what keeps a call from them (SCALAR_TENSOR_TENSOR itself,
// 0x9d/0x9e, has no field table in docs/compute.md).
func (p *Program) sttWords(c *Call, data, operand1, dst *leg) ([]isa.Inst, string) {
	const why = "SCALAR_TENSOR_TENSOR (0x9d/0x9e) has no field table in docs/compute.md, and "
	switch {
	case dst.dt != dtype.FP32:
		return nil, why + "its TENSOR_SCALAR + TENSOR_TENSOR form rounds the intermediate into a " + dst.dt.String() + " dst"
	case dst.t == operand1.t:
		return nil, why + "its TENSOR_SCALAR + TENSOR_TENSOR form would overwrite operand1 (dst is its tensor)"
	case dst.t == data.t && dst.addr != data.addr:
		return nil, why + "its TENSOR_SCALAR + TENSOR_TENSOR form needs dst and data apart or alike"
	}
	ts := &Call{Op: "tensor_scalar", ALUOp: c.ALUOp, Operand0: c.Operand0, Operand0Tile: c.Operand0Tile, Reverse0: c.Reverse0}
	w1, _, err := p.computeWord(ts, dst, []*leg{data})
	if err != nil {
		return nil, why + "its TENSOR_SCALAR does not form: " + err.Error()
	}
	legs := []*leg{dst, operand1}
	if c.Reverse1 {
		legs[0], legs[1] = operand1, dst
	}
	w2, _, err := p.computeWord(&Call{Op: "tensor_tensor", ALUOp: c.ALUOp1}, dst, legs)
	if err != nil {
		return nil, why + "its TENSOR_TENSOR does not form: " + err.Error()
	}
	return []isa.Inst{w1, w2}, ""
}
