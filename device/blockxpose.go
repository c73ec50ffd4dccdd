package device

import (
	"fmt"
	"ndma/dtype"
	"strings"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/neff"
)

// Transposes (neff.md §4.7; the reading is INFERRED, RATIONALE.md "NEFF"):
//
//   - the from walk's bytes, in walk order, are a sequence of tiles of
//     transpose_shape [W, Z, Y, X] elements of transpose_element_size bytes,
//     X fastest;
//   - each tile's elements are put in the order transpose_op names, its
//     first letter outermost: "WZXY" is out[w][z][x][y] = in[w][z][y][x],
//     the two fastest dims swapped ("WZYX" would be a plain copy);
//   - the permuted tiles, in order, fill the to walk in walk order;
//   - num_tiling_dimensions k (2 in every observed transpose) says the
//     first k dims of each walk cover exactly one tile: checked, so that a
//     file this reading does not fit is refused, never moved wrongly.
//
// The observed fp32 case reads from_sizes [256,128,2,1], from_steps
// [1,512,256,65536] with transpose_shape [1,1,128,64]: two 128×64 tiles (the
// column halves of a 128×128 matrix of 512-byte rows), each written as 64
// rows of 128 elements (to_sizes [512,64,2,1], to_steps
// [1,262144,16777216,512]) into partitions 0..63 and 64..127 — partition j
// receives column j, the whole matrix transposed.

// transposePieces resolves a transpose descriptor: one piece per tile.
func transposePieces(gen isa.Gen, sg *neff.Subgraph, d *neff.Desc, place map[int]uint64) ([]piece, int64, error) {
	switch {
	case d.Op != "" && d.Op != "copy" && d.Op != "transpose":
		return nil, 0, fmt.Errorf("op %q with transpose_op: a transpose moves bytes unchanged (no cast or compute, docs/field-tables.md §3.6)", d.Op)
	case len(d.FromArr) > 0:
		return nil, 0, fmt.Errorf("from_arr with transpose_op is not modelled")
	case d.TransposeOp == "" || d.TransposeShape == nil || d.TransposeElementSize == 0:
		return nil, 0, fmt.Errorf("a transpose needs transpose_op, transpose_shape and transpose_element_size (has %q, %v, %d)", d.TransposeOp, d.TransposeShape, d.TransposeElementSize)
	}
	toS := d.ToDtype
	if toS == "" {
		toS = d.FromDtype
	}
	if toS != d.FromDtype {
		return nil, 0, fmt.Errorf("from_dtype %s, to_dtype %s: a transpose does not cast (docs/field-tables.md §3.6)", orRaw(d.FromDtype), orRaw(toS))
	}
	dtD, err := dtype.FromNEFF(d.FromDtype)
	if err != nil {
		return nil, 0, fmt.Errorf("from_dtype: %w", err)
	}
	dt := uint8(dtD) // the words' DTYPE field
	es := d.TransposeElementSize
	if es < 1 || es > 64 {
		return nil, 0, fmt.Errorf("transpose_element_size %d: out of range (1..64 bytes)", es)
	}
	if len(d.TransposeShape) != 4 {
		return nil, 0, fmt.Errorf("transpose_shape %v: want 4 dims [W, Z, Y, X]", d.TransposeShape)
	}
	tile := int64(1)
	for k, n := range d.TransposeShape {
		if n < 1 || n > MaxRuns {
			return nil, 0, fmt.Errorf("transpose_shape[%d] = %d: out of range (1..%d)", k, n, MaxRuns)
		}
		if tile *= n; tile > MaxRuns {
			return nil, 0, fmt.Errorf("transpose_shape %v: a tile of more than %d elements", d.TransposeShape, MaxRuns)
		}
	}
	perm, err := letters(d.TransposeOp)
	if err != nil {
		return nil, 0, err
	}
	from, err := mkSide(gen, sg, "from", d.From, d.FromOff, d.FromSizes, d.FromSteps, es, place)
	if err != nil {
		return nil, 0, err
	}
	to, err := mkSide(gen, sg, "to", d.To, d.ToOff, d.ToSizes, d.ToSteps, es, place)
	if err != nil {
		return nil, 0, err
	}
	src, err := from.walk(nil)
	if err != nil {
		return nil, 0, err
	}
	dst, err := to.walk(nil)
	if err != nil {
		return nil, 0, err
	}
	tb := tile * es
	if k := d.NumTilingDimensions; k != 0 {
		if k < 1 || k > len(d.FromSizes) || k > len(d.ToSizes) {
			return nil, 0, fmt.Errorf("num_tiling_dimensions %d: the walks have %d and %d dims", k, len(d.FromSizes), len(d.ToSizes))
		}
		for _, w := range []struct {
			name  string
			sizes []int64
		}{{"from", d.FromSizes}, {"to", d.ToSizes}} {
			if b := tileBytes(w.sizes, k); b != tb {
				return nil, 0, fmt.Errorf("num_tiling_dimensions %d: %s_sizes%v covers %d bytes per tile, transpose_shape %v of %d-byte elements is %d", k, w.name, w.sizes[:k], b, d.TransposeShape, es, tb)
			}
		}
	}
	srcE, err := elements(src, es)
	if err != nil {
		return nil, 0, fmt.Errorf("from: %w", err)
	}
	dstE, err := elements(dst, es)
	if err != nil {
		return nil, 0, fmt.Errorf("to: %w", err)
	}
	switch n := int64(len(srcE)); {
	case n != int64(len(dstE)):
		return nil, 0, fmt.Errorf("from moves %d bytes, to takes %d", n*es, int64(len(dstE))*es)
	case n == 0:
		return nil, 0, fmt.Errorf("moves no bytes")
	case n%tile != 0:
		return nil, 0, fmt.Errorf("from moves %d bytes, not a whole number of %d-byte tiles (transpose_shape %v of %d-byte elements)", n*es, tb, d.TransposeShape, es)
	}
	order := tileOrder(d.TransposeShape, perm)
	// the words' element type: a dtype of es bytes (the tile's own when it
	// has that size), else bytes; a tile element is es/ws word elements
	wt, ws := wordType(dt, es)
	xposeOK := isa.Lookup(isa.OpDMATranspose).Gens.Has(gen) && gen != isa.GenAny
	var out []piece
	nw := 0
	for t := int64(0); t*tile < int64(len(srcE)); t++ {
		s, dd := srcE[t*tile:(t+1)*tile], dstE[t*tile:(t+1)*tile]
		cs := make([]chunk, 0, tile)
		for o, i := range order { // output element o is input element i
			cs = append(cs, chunk{s[i], dd[o], es / ws})
		}
		words, err := foldWords(gen, cs, ws, ws, isa.DGEComputeOpNone, wt, wt)
		if err != nil {
			return nil, 0, fmt.Errorf("tile %d: %w", t, err)
		}
		if nw += len(words); nw > MaxWords {
			return nil, 0, fmt.Errorf("needs more than %d DMA_DIRECT2D words: the tiles' elements do not line up into regular pieces", MaxWords)
		}
		p := piece{words: words}
		if xposeOK && (es == 2 || es == 4) {
			p.xpose = xposeWord(gen, s, dd, order, d.TransposeShape[perm[3]], es, wt)
		}
		out = append(out, p)
	}
	return out, int64(len(dstE)) * es, nil
}

// letters reads transpose_op: a permutation of the letters W Z Y X, each
// naming a dim of the tile [W, Z, Y, X]; the result is the tile dim (0..3)
// of each output dim, outermost first.
func letters(op string) ([4]int, error) {
	var perm [4]int
	if len(op) != 4 {
		return perm, fmt.Errorf("transpose_op %q: want the four letters W Z Y X in some order", op)
	}
	seen := 0
	for k := 0; k < 4; k++ {
		i := strings.IndexByte("WZYX", op[k])
		if i < 0 || seen&(1<<i) != 0 {
			return perm, fmt.Errorf("transpose_op %q: want the four letters W Z Y X in some order", op)
		}
		seen |= 1 << i
		perm[k] = i
	}
	return perm, nil
}

// tileOrder is, for each output element of a tile in output order, the
// input element it holds (input [W, Z, Y, X] row-major, X fastest).
func tileOrder(shape []int64, perm [4]int) []int64 {
	var stride [4]int64 // input strides of W, Z, Y, X
	stride[3] = 1
	for k := 2; k >= 0; k-- {
		stride[k] = stride[k+1] * shape[k+1]
	}
	n := shape[0] * shape[1] * shape[2] * shape[3]
	out := make([]int64, 0, n)
	var idx [4]int64 // over the output dims, perm[0] outermost
	for {
		i := int64(0)
		for k := 0; k < 4; k++ {
			i += idx[k] * stride[perm[k]]
		}
		out = append(out, i)
		k := 3
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[perm[k]] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// elements lists the address of every es-byte element of a walk's runs.
func elements(rs []run, es int64) ([]uint64, error) {
	var n int64
	for _, r := range rs {
		n += r.n / es
	}
	if n > MaxRuns {
		return nil, fmt.Errorf("walks more than %d elements", MaxRuns)
	}
	out := make([]uint64, 0, n)
	for _, r := range rs {
		for k := int64(0); k < r.n/es; k++ {
			out = append(out, r.addr+uint64(k*es))
		}
	}
	return out, nil
}

// wordType is the DTYPE a transpose's words move and its size: dt when it
// is es bytes wide and a memcpy dtype, else UINT32/UINT16/UINT8 — the
// largest dividing es (a transpose moves bytes unchanged).
func wordType(dt uint8, es int64) (uint8, int64) {
	if n, ok := num.Size(dt); ok && int64(n) == es && !wide(dt) {
		return dt, es
	}
	switch {
	case es%4 == 0:
		return uint8(isa.DTypeUint32), 4
	case es%2 == 0:
		return uint8(isa.DTypeUint16), 2
	}
	return uint8(isa.DTypeUint8), 1
}

// xposeWord is a tile as one DMA_TRANSPOSE (field-tables §3.6, §11.5), or
// nil when the tile does not fit the word's rules: output element
// o = r + c·R (R = the fastest output dim's size) must sit at
// dst + r·es + c·d1 and hold the input element at src + c·es + r·s1 — a
// 2-D tile of R source rows of C contiguous elements (W = Z = 1, or the
// outer dims untouched and contiguous), written as C rows of R contiguous
// elements — with R a multiple of 16 (tile_src_rows), the destination a
// 32-byte aligned SBUF address, d1 a multiple of 32 (unless C = 1), every
// count and step in its field.
func xposeWord(gen isa.Gen, src, dst []uint64, order []int64, r int64, es int64, dt uint8) *isa.Inst {
	n := int64(len(order))
	if r < 16 || r%16 != 0 || n%r != 0 {
		return nil
	}
	c := n / r
	s0, d0 := es, es
	sAt, dAt := src[order[0]], dst[0]
	var s1, d1 int64
	if c > 1 {
		d1 = int64(dst[r]) - int64(dAt)
	}
	s1 = int64(src[order[1]]) - int64(sAt)
	for o := int64(0); o < n; o++ {
		ri, ci := o%r, o/r
		if dst[o] != uint64(int64(dAt)+ri*d0+ci*d1) || src[order[o]] != uint64(int64(sAt)+ci*s0+ri*s1) {
			return nil
		}
	}
	m := isa.Map(gen)
	maxCols := int64(128)
	if es == 4 {
		maxCols = 64
	}
	cols := int64(0)
	for k := min(c, maxCols); k >= 1; k-- {
		if c%k == 0 {
			cols = k
			break
		}
	}
	lo, hi := isa.WalkExtent(es, []int64{r, c}, []int64{d0, d1})
	rl, _, _ := m.Split(uint64(int64(dAt) + lo))
	rh, _, _ := m.Split(uint64(int64(dAt) + hi - 1))
	if rl != isa.SBUF || rh != isa.SBUF || dAt%32 != 0 || (c > 1 && d1%32 != 0) || r > 65535 || c > 65535 ||
		!fitsI32(s1) || !fitsI32(d1) {
		return nil
	}
	w := isa.New(gen, isa.OpDMATranspose)
	v, _ := w.Xpose()
	if firstErr(
		v.SetInDType(isa.DTypeCode(dt)), v.SetOutDType(isa.DTypeCode(dt)),
		v.SetSrcStepElem(0, s0), v.SetSrcStepElem(1, s1), v.SetSrcNumElem(0, c), v.SetSrcNumElem(1, r),
		v.SetTileSrcRowStep(s1),
		v.SetDstStepElem(0, d0), v.SetDstStepElem(1, d1), v.SetDstNumElem(0, r), v.SetDstNumElem(1, c),
		v.SetTileSrcRows(16), v.SetTileSrcCols(cols),
	) != nil {
		return nil
	}
	v.SetSrcStartAddr(sAt)
	v.SetDstStartAddr(dAt)
	return &w
}
