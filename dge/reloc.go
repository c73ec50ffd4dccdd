// Package dge lowers the DMA words the way the runtime and the Descriptor
// Generation Engine do (source document 003): a compiler pseudo word is
// relocated into the resolved word its dge_op names, and a resolved word
// becomes a micro-op program (REGWRITE / GENERATE / DIMPUSH) per channel.
package dge

import (
	"errors"
	"fmt"
	"sync"

	"ndma/isa"
)

// Relocation — field-tables §3.3, §3.4, §11.2; neff.md §5.4. The runtime's
// translate_one_pseudo_dge_instr re-packs the 0xd4 into the target layout.

// Errors of relocation (the runtime's own words where it has them).
var (
	ErrNeedsExtension = errors.New("pseudo dma indirect1d instruction must be followed by extension")
	ErrUnsupportedOp  = errors.New("unsupported dynamic dma opcode")
	ErrNotPseudo      = errors.New("not a PSEUDO_DMA_DIRECT2D word")
	ErrMissingVar     = errors.New("variable not in the variable table")
	ErrMissingTable   = errors.New("dge-table index not in the table")
)

// Vars is what relocation resolves PSEUDO_ADDR8 arms against.
type Vars struct {
	Base  map[uint16]uint64 // NEFF var_id → Neuron address of its first byte
	Table []uint16          // the subgraph's dge-table list: index → var_id
}

// address resolves one PSEUDO_ADDR8 into an ADDR8: the var arm to its
// variable's base + offset, the table arm through the dge-table list; the
// SHAPE_REG bit is kept; immediate and register forms are already ADDR8s.
func (v *Vars) address(a isa.Addr8, field string) (uint64, error) {
	shape := uint64(a.Marker()&isa.MarkerShapeReg) << 56
	var id uint16
	var off uint32
	switch a.Form() {
	case "var":
		id, off, _ = a.Var()
	case "tbl":
		var index uint16
		index, off, _ = a.Table()
		if int(index) >= len(v.Table) {
			return 0, fmt.Errorf("%s: dge-table index %d (the table has %d entries): %w", field, index, len(v.Table), ErrMissingTable)
		}
		id = v.Table[index]
	default:
		return a.Raw, nil
	}
	base, ok := v.Base[id]
	if !ok {
		return 0, fmt.Errorf("%s: variable %d: %w", field, id, ErrMissingVar)
	}
	addr := base + uint64(off)
	if addr>>58 != 0 {
		return 0, fmt.Errorf("%s: variable %d + %#x = %#x does not fit an ADDR8 immediate", field, id, off, addr)
	}
	return shape | isa.ImmAddr8(addr), nil
}

// Relocate turns a PSEUDO_DMA_DIRECT2D (with its 0xda extension, when the
// decoder paired one) into the resolved word its dge_op names: 0 → 0xb8
// DMA_DIRECT2D, 1 → 0xbb DMA_INDIRECT1D (needs the extension), 2 → 0xbd
// DMA_DIRECT2D_XPOSE (tile geometry from the extension when present),
// 3 → 0xf1 DMA_GATHER_XPOSE (needs the extension for its index tensor).
func Relocate(in *isa.Inst, vars *Vars) (isa.Inst, error) {
	var out isa.Inst
	if err := RelocateTo(&out, in, vars); err != nil {
		return isa.Inst{}, err
	}
	return out, nil
}

// RelocateTo is Relocate into *dst (a stream's words relocated into one
// slab, not each copied out); on an error *dst holds no word.
func RelocateTo(dst, in *isa.Inst, vars *Vars) error {
	if dst == in { // the word is built in place: not over the word it reads
		out, err := Relocate(in, vars)
		*dst = out
		return err
	}
	err := relocateTo(dst, in, vars)
	if err != nil {
		*dst = isa.Inst{}
	}
	return err
}

func relocateTo(dst, in *isa.Inst, vars *Vars) error {
	if vars == nil {
		vars = &Vars{}
	}
	if IsPseudoMem2D(in.Opcode()) { // 0xcd/0xce → 0xab/0xaa (reloc_mem2d.go)
		v, err := relocateMem2D(in, vars)
		*dst = v
		return err
	}
	if in.Opcode() != isa.OpPseudoDMADirect2D {
		return fmt.Errorf("%s: %w", in.Def().Mnemonic(), ErrNotPseudo)
	}
	p, _ := in.PseudoDirect2D()
	r := repack{src: in, p: p, gen: in.Gen, out: dst}
	r.ext, r.hasExt = in.Ext()
	for k, a := range [2]isa.Addr8{p.SrcStartAddr(), p.DstStartAddr()} {
		v, err := vars.address(a, [2]string{"src_start_addr", "dst_start_addr"}[k])
		if err != nil {
			return err
		}
		r.addr[k] = v
	}
	op := p.DGEOp()
	switch op {
	case isa.DGEOpcodeDMADirect2D:
		return r.direct2D()
	case isa.DGEOpcodeDMAIndirect1D:
		if !r.hasExt {
			return ErrNeedsExtension
		}
		return r.indirect1D()
	case isa.DGEOpcodeDMATranspose:
		return r.xpose()
	case isa.DGEOpcodeDMAGatherTranspose:
		if !r.hasExt {
			return fmt.Errorf("a gather transpose takes its index tensor from the extension word: %w", ErrNeedsExtension)
		}
		return r.gatherXpose()
	}
	return fmt.Errorf("%w %d", ErrUnsupportedOp, op)
}

// repack copies fields from the pseudo word (and its extension) into a new
// word of another layout, by spec path: the two layouts' fields pair up by
// name, so the path is the key.
type repack struct {
	src    *isa.Inst
	p      isa.PseudoDirect2DView // src
	ext    isa.Inst
	hasExt bool
	gen    isa.Gen
	addr   [2]uint64 // resolved src, dst ADDR8
	out    *isa.Inst // the new word, built in place
	err    error
}

// begin starts the new word of opcode op with the pseudo word's EVENTS
// (field-tables §2.2: the same block in every layout).
func (r *repack) begin(op isa.Opcode) {
	*r.out = isa.Inst{} // as isa.New: whatever *dst held is gone
	r.out.Reset(r.gen, op)
	r.out.CopyEvents(r.src)
}

// copy moves fields whose path is the same in both layouts.
func (r *repack) copy(paths ...string) {
	for _, p := range paths {
		r.move(p, p)
	}
}

// copies is a list of field moves (to, from), the same for every word of
// one pair of layouts: its leaf indices are looked up once per pair
// (leafPlan), not a path at a time for every word of a NEFF.
type copies struct {
	id    int // the list's key in the plan cache
	pairs [][2]string
}

// planKey names a leaf plan: the pseudo word's layout, the resolved word's, the list.
type planKey struct {
	src, dst *isa.Struct
	id       int
}

// plans caches each planKey's leaf pairs (to, from); nil: a path one layout lacks.
var plans sync.Map

// moves applies a copy list: the fields of the planned leaves, or, where a
// path does not resolve or a value does not fit, move by move (its error,
// word for word the one the moves give).
func (r *repack) moves(c *copies) {
	if r.err != nil {
		return
	}
	key := planKey{r.src.Layout(), r.out.Layout(), c.id}
	pl, ok := plans.Load(key)
	if !ok {
		pl, _ = plans.LoadOrStore(key, leafPlan(key, c))
	}
	if leaves := pl.([][2]int); leaves != nil {
		done := true
		for _, l := range leaves {
			if r.out.SetLeaf(l[0], r.src.Leaf(l[1])) != nil {
				done = false
				break
			}
		}
		if done {
			return
		}
	}
	for _, p := range c.pairs {
		r.move(p[0], p[1])
	}
}

// leafPlan resolves a copy list's paths in the two layouts (nil when one does not resolve).
func leafPlan(key planKey, c *copies) [][2]int {
	out := make([][2]int, 0, len(c.pairs))
	for _, p := range c.pairs {
		to, ok1 := key.dst.LeafIndex(p[0])
		from, ok2 := key.src.LeafIndex(p[1])
		if !ok1 || !ok2 {
			return nil
		}
		out = append(out, [2]int{to, from})
	}
	return out
}

// same is a copy list of fields whose path is the same in both layouts.
func same(id int, groups ...[]string) *copies {
	c := &copies{id: id}
	for _, g := range groups {
		for _, p := range g {
			c.pairs = append(c.pairs, [2]string{p, p})
		}
	}
	return c
}

// boundMoves is a copy list moving the pseudo word's bound registers
// src_bound_reg and dst_bound_reg to the resolved word's srcBound, dstBound.
func boundMoves(id int, srcBound, dstBound string) *copies {
	c := &copies{id: id}
	for _, pr := range [2][2]string{{srcBound, "src_bound_reg"}, {dstBound, "dst_bound_reg"}} {
		tp, fp := boundPaths[pr[0]], boundPaths[pr[1]]
		for i := range tp {
			c.pairs = append(c.pairs, [2]string{tp[i], fp[i]})
		}
	}
	return c
}

// The copy lists of the resolved forms (their fields, in the order the moves
// were written; ends sets the addresses between the copies and the bounds).
var (
	direct2DCopies = same(0, header, []string{"dma_configs.priority_class", "dma_configs.reserved", "semaphore", "sem_increment",
		"src_elem_size", "dst_elem_size", "in_dtype", "out_dtype"}, legPaths["src"], legPaths["dst"])
	direct2DBounds = boundMoves(1, "src_bound_reg", "dst_bound_reg")
)

// move sets the new word's `to` from the pseudo word's `from`.
func (r *repack) move(to, from string) {
	v, err := r.src.Uint(from)
	r.set(to, v, err)
}

// fromExt sets `to` from the extension's `from`.
func (r *repack) fromExt(to, from string) {
	v, err := r.ext.Uint(from)
	r.set(to, v, err)
}

func (r *repack) set(to string, v uint64, err error) {
	if r.err == nil && err == nil {
		err = r.out.SetUint(to, v)
	}
	if r.err == nil && err != nil {
		r.err = fmt.Errorf("relocating to %s: %w", to, err)
	}
}

var (
	header = []string{"header.debug_cmd", "header.debug_hint"}
	bound  = []string{"bc_reg", "bc_disable_oob_error_notif", "bc_enabled"}
)

// paths joins a prefix to each name, once per prefix: relocation reads and
// writes by path for every word of a NEFF, and a joined string allocates.
func paths(join func(string) []string, prefixes ...string) map[string][]string {
	m := make(map[string][]string, len(prefixes))
	for _, p := range prefixes {
		m[p] = join(p)
	}
	return m
}

// boundPaths are each bound register's field paths, in bound's order.
var boundPaths = paths(func(reg string) []string {
	var out []string
	for _, b := range bound {
		out = append(out, reg+"."+b)
	}
	return out
}, "src_bound_reg", "dst_bound_reg", "src_idx_bound_reg", "dst_idx_bound_reg")

// legPaths are a 2-D leg's step and count paths.
var legPaths = paths(func(leg string) []string {
	return []string{leg + "_step_elem[0]", leg + "_step_elem[1]", leg + "_num_elem[0]", leg + "_num_elem[1]"}
}, "src", "dst")

func (r *repack) boundReg(to, from string) {
	tp, fp := boundPaths[to], boundPaths[from]
	for i := range tp {
		r.move(tp[i], fp[i])
	}
}

// ends sets the resolved addresses and moves the pseudo word's two bound
// registers to the resolved word's srcBound and dstBound.
func (r *repack) ends(srcBound, dstBound string) {
	r.set("src_start_addr", r.addr[0], nil)
	r.set("dst_start_addr", r.addr[1], nil)
	r.boundReg(srcBound, "src_bound_reg")
	r.boundReg(dstBound, "dst_bound_reg")
}

func (r *repack) leg2D(leg string) {
	r.copy(legPaths[leg]...)
}

func (r *repack) done() error {
	if r.err != nil {
		return r.err
	}
	return nil
}

func (r *repack) direct2D() error {
	r.begin(isa.OpDMAMemcpy)
	r.moves(direct2DCopies) // header, configs, semaphore, sizes, dtypes, both legs' steps and counts
	r.set("src_start_addr", r.addr[0], nil)
	r.set("dst_start_addr", r.addr[1], nil)
	r.moves(direct2DBounds)
	if r.hasExt { // an extension after a DIRECT2D carries the in-flight compute op
		r.fromExt("compute_op", "compute_op")
	}
	return r.done()
}

func (r *repack) indirect1D() error {
	for k, n := range [2]uint64{r.p.SrcNumElem(1), r.p.DstNumElem(1)} {
		if n > 1 {
			return fmt.Errorf("%s_num_elem[1] = %d: an INDIRECT1D moves a 1-D pattern", [2]string{"src", "dst"}[k], n)
		}
	}
	r.begin(isa.OpDMAIndirect)
	r.copy(header...)
	r.copy("dma_configs.priority_class", "dma_configs.reserved", "semaphore", "sem_increment",
		"src_elem_size", "dst_elem_size", "in_dtype", "out_dtype")
	r.move("src_step_elem", "src_step_elem[0]")
	r.move("src_num_elem", "src_num_elem[0]")
	r.move("dst_step_elem", "dst_step_elem[0]")
	r.move("dst_num_elem", "dst_num_elem[0]")
	r.ends("src_idx_bound_reg", "dst_idx_bound_reg") // the pseudo's bound registers bound the indices (INFERRED)
	for _, f := range []string{"indirect_mode", "idx_bound_is_err", "non_unique_dst_idx", "gather_dim", "scatter_dim"} {
		r.fromExt("flags."+f, "flags."+f)
	}
	r.fromExt("idx_num_active_channels", "idx_num_active_channels")
	r.fromExt("src_idx_start_addr", "src_idx_start_addr")
	r.fromExt("dst_idx_start_addr", "dst_idx_start_addr")
	r.fromExt("compute_op", "compute_op")
	return r.done()
}

func (r *repack) xpose() error {
	r.begin(isa.OpDMATranspose)
	r.copy(header...)
	r.copy("dma_configs.priority_class", "dma_configs.reserved", "semaphore", "in_dtype", "out_dtype")
	r.leg2D("src")
	r.leg2D("dst")
	r.ends("src_bound_reg", "dst_bound_reg")
	// tile_src_row_step is i32: its raw bits are copied
	rows, cols, step := uint64(16), tileCols(r.p.SrcNumElem(0), r.p.OutDType(), r.gen), uint64(uint32(r.p.SrcStepElem(1)))
	if x, ok := r.ext.PseudoExt(); ok && r.hasExt { // the extension's tile geometry, where it gives one
		if v := x.TileSrcRows(); v != 0 {
			rows = v
		}
		if v := x.TileSrcCols(); v != 0 {
			cols = v
		}
		if v := uint64(uint32(x.TileSrcRowStep())); v != 0 {
			step = v
		}
	}
	r.set("tile_src_rows", rows, nil)
	r.set("tile_src_cols", cols, nil)
	r.set("tile_src_row_step", step, nil)
	return r.done()
}

// tileCols is the widest xbar tile (≤ 128 columns for 2-byte types, ≤ 64 for
// 4-byte) that divides the row (field-tables §11.5).
func tileCols(n uint64, dtype isa.DTypeCode, g isa.Gen) uint64 {
	limit := uint64(128)
	if bits, _ := isa.DTypeBits(uint8(dtype), g); bits == 32 {
		limit = 64
	}
	for c := min(n, limit); c > 1; c-- {
		if n%c == 0 {
			return c
		}
	}
	return 1
}

func (r *repack) gatherXpose() error {
	r.begin(isa.OpDMAGatherTranspose)
	r.copy(header...)
	r.copy("dma_configs.priority_class", "dma_configs.reserved", "semaphore")
	r.leg2D("src")
	r.copy("dst_num_elem[0]", "dst_num_elem[1]")
	r.move("dst_step_elem_1", "dst_step_elem[1]")
	r.move("elem_size", "src_elem_size")
	r.ends("src_idx_bound_reg", "dst_bound_reg")
	in, out := uint64(r.p.InDType()), uint64(r.p.OutDType())
	if in > 0xF || out > 0xF {
		return fmt.Errorf("in_dtype %#x / out_dtype %#x do not fit the DTYPE_PAIR nibbles of a gather transpose", in, out)
	}
	r.set("dtype.dtype_lo", in, nil)
	r.set("dtype.dtype_hi", out, nil)
	r.fromExt("idx_num_active_channels", "idx_num_active_channels")
	r.fromExt("src_idx_start_addr", "src_idx_start_addr")
	r.fromExt("flags.gather_dim", "flags.gather_dim")
	return r.done()
}
