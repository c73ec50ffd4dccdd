package nkic

import (
	"encoding/binary"
	"fmt"
	"math"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// The random calls (docs/nki.md "Random numbers and dropout"): nl.rand
// ("rand"), nl.random_seed and nisa.set_rng_seed ("random_seed"), nl.dropout
// and nisa.dropout ("dropout"), nisa.rng ("rng") and nisa.rand2 ("rand2"). The hardware's generator is not documented and its numbers
// cannot be reproduced, so ndma draws from SplitMix64 (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014),
// one stream per run seeded 0 until a random_seed call reseeds it, each
// element one draw in its dst's pattern order (INFERRED, RATIONALE.md
// "NKI kernels"). Every call is a Go loop flagged not exact.

// splitMix64 is SplitMix64's state: each next adds the golden gamma and
// mixes the sum.
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// uniform is a draw in [0, 1): the top 24 bits over 2^24, exact in FP32
// (nl.rand: "a uniform distribution between 0 and 1").
func (s *splitMix64) uniform() float32 { return float32(int64(s.next()>>40)) * (1.0 / (1 << 24)) }

// randomNote is the random calls' trace note.
const randomNote = "computed by ndma from SplitMix64, not the hardware's generator (no word; its numbers cannot be reproduced)"

// compileRandomSeed: the run's stream reseeded with a 32-bit value — the
// number c.Value, or the first element of the tile src (a 4-byte integer
// tile's bits; any other dtype's value converted to an integer).
func (p *Program) compileRandomSeed(lw *Lowered, c *Call) (*Lowered, error) {
	lw.Exact, lw.Note, lw.Engine = false, randomNote, "gpsimd (POOL)"
	src := c.source()
	if (src == nil) == (c.Value == nil) || c.Dst != nil || len(c.Srcs) > 1 {
		return nil, progErr("random_seed takes a seed: src (a one-element tile) or value, and no dst")
	}
	if src == nil {
		v := *c.Value
		if v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxUint32 {
			return nil, progErr("random_seed value %v is not a 32-bit integer", v)
		}
		seed := uint32(int64(v))
		lw.eval = func(r *runner) error { r.rng = splitMix64(seed); return nil }
		return lw, nil
	}
	l, err := p.resolve(src, "src")
	if err != nil {
		return nil, err
	}
	if l.elems != 1 {
		return nil, illegal("random_seed: the seed tile has %d elements; NKI takes a [1, 1] tile", l.elems)
	}
	if !l.t.chip {
		return nil, illegal("random_seed: the seed tile is in %s; NKI takes one on SBUF or PSUM", l.t.Buffer)
	}
	lw.ns = p.perPartitionNS(lw.Engine, opIota, l)
	lw.eval = func(r *runner) error {
		raw, err := r.readRaw(l)
		if err != nil {
			return err
		}
		switch l.dt {
		case dtype.I32, dtype.U32:
			r.rng = splitMix64(binary.LittleEndian.Uint32(raw))
		default:
			v, err := r.readF32(l)
			if err != nil {
				return err
			}
			// a float converts to an integer only in range: NaN, ±Inf and
			// |v| ≥ 2^63 convert differently by platform (amd64, arm64)
			if f := float64(v[0]); math.IsNaN(f) || math.Abs(f) >= 1<<63 {
				return fmt.Errorf("random_seed: the seed tile holds %v, not an integer a seed can be", v[0])
			}
			r.rng = splitMix64(uint32(int64(v[0])))
		}
		return nil
	}
	return lw, nil
}

// compileRand: dst filled with uniform draws in [0, 1), one per element in
// pattern order, rounded to dst's float dtype by the cast rules.
func (p *Program) compileRand(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Note, lw.Engine, lw.Bytes = false, randomNote, "gpsimd (POOL)", dst.elems*dst.esize
	if c.Src != nil || len(c.Srcs) > 0 {
		return nil, progErr("rand takes no source")
	}
	if !dst.dt.IsFloat() {
		return nil, illegal("rand: dst is %s; uniform values in [0, 1) need a float dtype", dst.t.DType)
	}
	if _, err := p.operand(dst, 4); err != nil {
		return nil, err
	}
	lw.ns = p.perPartitionNS(lw.Engine, opIota, dst)
	lw.eval = func(r *runner) error {
		out := make([]float32, dst.elems)
		g := r.rng // a local state: the loop keeps it in a register
		for k := range out {
			out[k] = g.uniform()
		}
		r.rng = g
		return r.writeF32(dst, out)
	}
	return lw, nil
}

// compileDropout: dst = 0 where a draw u < the drop probability, else the
// data element (cast to dst's dtype), one draw per element in pattern
// order; the probability the number c.Value or, per partition, the (P, 1)
// tile srcs[1] ("each partition contains one drop probability value").
// Kept values are not rescaled (NKI: probability 0.0 keeps "their original
// values").
func (p *Program) compileDropout(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Note, lw.Engine, lw.Bytes = false, randomNote, "vector (DVE)", dst.elems*dst.esize
	ls, err := p.sources(c)
	if err != nil {
		return nil, err
	}
	if len(ls) == 0 || len(ls) > 2 || (len(ls) == 2) == (c.Value != nil) {
		return nil, progErr("dropout takes srcs [data, prob] (prob a (P, 1) tile) or [data] and value (prob a number)")
	}
	data := ls[0]
	if data.elems != dst.elems {
		return nil, progErr("data has %d elements, dst %d: dropout works element for element", data.elems, dst.elems)
	}
	for _, l := range append(ls, dst) {
		if _, err := p.operand(l, 4); err != nil {
			return nil, err
		}
	}
	if !data.dt.IsFloat() && data.dt != dst.dt {
		return nil, illegal("dropout: data is %s, dst %s; NKI: an integer input's output type must match it", data.t.DType, dst.t.DType)
	}
	parts, n, err := p.perPartition(data, "data")
	if err != nil {
		return nil, err
	}
	var prob *leg
	if len(ls) == 2 {
		prob = ls[1]
		if prob.elems != parts {
			return nil, illegal("dropout: prob has %d elements; want one per partition of data (%d)", prob.elems, parts)
		}
	} else if v := *c.Value; !(v >= 0 && v <= 1) {
		return nil, illegal("dropout: prob %v is not a probability in [0, 1]", v)
	}
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorScalar, data)
	lw.eval = func(r *runner) error {
		x, err := r.readElems(data, dst.dt)
		if err != nil {
			return err
		}
		pr := make([]float32, parts)
		if prob == nil {
			for q := range pr {
				pr[q] = float32(*c.Value)
			}
		} else if pr, err = r.readF32(prob); err != nil {
			return err
		}
		es, g := dst.esize, r.rng
		for q, p := range pr {
			for e := int64(q) * n; e < int64(q+1)*n; e++ {
				if g.uniform() < p {
					clear(x[e*es : (e+1)*es]) // zero: all-zero bytes in every dtype
				}
			}
		}
		r.rng = g
		return r.writeElems(dst, x)
	}
	return lw, nil
}

// compileRng: each dst element the low bits of a 32-bit draw (the top half
// of a SplitMix64 output), dst an integer dtype (NKI: "truncates each 32-bit
// random value to the specified data type, taking the least significant
// bits").
func (p *Program) compileRng(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Note, lw.Engine, lw.Bytes = false, randomNote, "vector (DVE)", dst.elems*dst.esize
	if c.Src != nil || len(c.Srcs) > 0 {
		return nil, progErr("rng takes no source")
	}
	if dst.dt.IsFloat() {
		return nil, illegal("rng: dst is %s; NKI: \"The output dst tile must be an integer type\"", dst.t.DType)
	}
	if _, err := p.operand(dst, 4); err != nil {
		return nil, err
	}
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorScalar, dst)
	lw.eval = func(r *runner) error {
		out, g := make([]uint64, dst.elems), r.rng
		for k := range out {
			out[k] = g.next() >> 32
		}
		r.rng = g
		return r.writeUints(dst, out)
	}
	return lw, nil
}

// compileRand2: dst = min + u·(max − min) in fp32, u a uniform draw in
// [0, 1), min and max numbers (operand0, operand1) or (P, 1) tiles
// (operand0_tile, operand1_tile); cast to dst's dtype. NeuronCore-v4 and
// newer (NKI: "Available only on NeuronCore-v4 and newer").
func (p *Program) compileRand2(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Note, lw.Engine, lw.Bytes = false, randomNote, "vector (DVE)", dst.elems*dst.esize
	if p.gen < isa.Mariana {
		return nil, illegal("rand2 is NeuronCore-v4 and newer (trn3), not %s", p.gen)
	}
	if c.Src != nil || len(c.Srcs) > 0 {
		return nil, progErr("rand2 takes no source (min and max are operand0 and operand1)")
	}
	P, F, err := p.rows(dst, "dst")
	if err != nil {
		return nil, err
	}
	lo, hi, err := p.perRowPair(c, "min", "max", P)
	if err != nil {
		return nil, err
	}
	if lo.l == nil && hi.l == nil && !(lo.v < hi.v) {
		return nil, illegal("rand2: min %v is not below max %v; NKI: \"min < max for valid range\"", lo.v, hi.v)
	}
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorScalar, dst)
	lw.eval = func(r *runner) error {
		a, b, err := readPerRows(r, lo, hi, P)
		if err != nil {
			return err
		}
		out, g := make([]float32, P*F), r.rng
		for q := range P {
			for i := range F {
				out[q*F+i] = a[q] + g.uniform()*(b[q]-a[q])
			}
		}
		r.rng = g
		return r.writeF32(dst, out)
	}
	return lw, nil
}
