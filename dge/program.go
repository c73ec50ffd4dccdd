package dge

import (
	"fmt"
	"ndma/internal/suggest"
	"strings"

	"ndma/isa"
)

// The DGE micro-op program — source document 003 §3–§5, field-tables §8.
// Per channel DMA[d]: [REGWRITE]* (CAYMAN, MARIANA only), one GENERATE, one
// DIMPUSH per dimension of the backend; then the doorbell (package sdma).
// An indexed word (INDIRECT1D, GATHER_XPOSE) is one GENERATE and its
// DIMPUSHes per gathered row (003 §3.1, 000 §8e).

// Backend is a DGE emit backend (field-tables §8.2).
type Backend uint8

// Backends.
const (
	Auto     Backend = iota
	Pool             // 2 dims: cast, compute_op, bounds
	Software         // the Q7 SW-DGE: 4 dims, indirection
	RTL              // the HW DGE: 5+2 dims, pure transport
	NoDGE            // SUNDA: no DGE emitter; the POOL dma_memcopy kernel writes descriptors
)

var backendNames = [...]string{Auto: "auto", Pool: "pool", Software: "software", RTL: "rtl", NoDGE: "none"}

func (b Backend) String() string { return backendNames[b] }

// ParseBackend reads auto, pool, software (sw) or rtl (hw).
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return Auto, nil
	case "pool":
		return Pool, nil
	case "software", "sw", "swdge":
		return Software, nil
	case "rtl", "hw", "hwdge":
		return RTL, nil
	}
	return Auto, suggest.UnknownAmong("backend", s, []string{"auto", "pool", "software|sw|swdge", "rtl|hw|hwdge"},
		[]string{"auto", "pool", "software", "sw", "swdge", "rtl", "hw", "hwdge"})
}

// Dims is the number of DIMPUSHes the backend issues (field-tables §8.2).
func (b Backend) Dims() int {
	switch b {
	case Pool:
		return 2
	case Software:
		return 4
	case RTL:
		return 7
	}
	return 2
}

// Dir is the direction of a GENERATE: RD is the M2S leg (TDRTP_inc), WR the
// S2M leg (RDRTP_inc).
type Dir uint8

// Directions.
const (
	RD Dir = iota
	WR
)

func (d Dir) String() string { return [...]string{"RD", "WR"}[d] }

// OpKind is a micro-op.
type OpKind uint8

// Micro-ops.
const (
	RegWrite OpKind = iota
	Generate
	DimPush
)

// Op is one pushed micro-op (48 bytes: an indexed word holds five per row).
type Op struct {
	Addr     uint64 // GENERATE: SoC address
	SrcStep  int64  // DIMPUSH, in elements
	DstStep  int64
	ElemSize int32  // GENERATE
	Sem      int32  // GENERATE: sem_num
	SrcNum   uint32 // DIMPUSH
	DstNum   uint32
	Row      int32 // GENERATE of an indexed word: the lane (gathered row) j it moves; 0 otherwise
	Kind     OpKind
	Dir      Dir // GENERATE
}

// maxDims is the most dimensions a shape holds (RTL: 5+2).
const maxDims = 7

// Leg is one side of a transfer: the shape state {elem_size, num_elem[],
// step_elem[], is_src} of field-tables §8.1, with byte steps kept beside.
type Leg struct {
	Addr     uint64 // Neuron address of the first element
	SoC      uint64 // its SoC address (§11.2)
	ElemSize uint32 // bytes per element
	Num      [maxDims]uint32
	Step     [maxDims]int64 // bytes
	Bound    BoundCheck     // the leg's address bound: src_bound_reg / dst_bound_reg (GATHER_XPOSE: its dst_bound_reg only)
	IsSrc    bool
}

// BoundCheck is one BOUND_CHECK_REG, decoded (field-tables §2.3).
type BoundCheck struct {
	Enabled bool  // bc_enabled: checked against r[Reg] (§8.4 layer 1)
	Quiet   bool  // bc_disable_oob_error_notif: past the limit the lane is skipped, not an error (§11.5)
	Reg     uint8 // bc_reg (0..63): the register holding the inclusive upper limit
}

// Limit is b's inclusive limit for a byte at a from the registers regs:
// r[Reg], or in HBM the wide-offset pair r[Reg+1]:r[Reg] (isa.BoundLimit).
func (b BoundCheck) Limit(regs map[uint8]uint32, a uint64) uint64 {
	var hi uint32
	if b.Reg < 63 {
		hi = regs[b.Reg+1]
	}
	return isa.BoundLimit(regs[b.Reg], hi, a)
}

// Byte is the packed BOUND_CHECK_REG byte the $S dump prints (§2.3: reg 0–5, notif 6, enabled 7).
func (b BoundCheck) Byte() uint8 {
	v := b.Reg & 0x3f
	if b.Quiet {
		v |= 0x40
	}
	if b.Enabled {
		v |= 0x80
	}
	return v
}

// Tile is the DRE tile a DMA_TRANSPOSE is cut into (field-tables §3.6, §11.5).
type Tile struct {
	Rows uint32 // tile_src_rows: src rows per tile (16)
	Cols uint32 // tile_src_cols: src columns per tile; edge tiles are smaller
}

// IndexMode is INDIRECT_DMA_ADDRESSING_MODE (field-tables §5.2): which legs are indexed.
type IndexMode uint8

// Index modes, the field's codes; the 2-bit field's value 3 is kept as read and indexes both legs, like SrcDst.
const (
	IndexSrc    = IndexMode(isa.IndirectModeSrc)    // gather: dst[j] = src[idx_s[j]]
	IndexDst    = IndexMode(isa.IndirectModeDst)    // scatter: dst[idx_d[j]] = src[j]
	IndexSrcDst = IndexMode(isa.IndirectModeSrcDst) // both
)

// SrcIndexed reports a src leg addressed through the src index tensor.
func (m IndexMode) SrcIndexed() bool { return m != IndexDst }

// DstIndexed reports a dst leg addressed through the dst index tensor.
func (m IndexMode) DstIndexed() bool { return m != IndexSrc }

// Indexing is what an indexed word says of its index tensors: DMA_INDIRECT_FLAGS
// and the index bounds of INDIRECT1D (field-tables §2.5, §3.5), the
// gather_dim and src_idx_bound_reg of GATHER_XPOSE (§3.7).
type Indexing struct {
	Mode         IndexMode     // flags.indirect_mode; GATHER_XPOSE: IndexSrc
	BoundIsErr   bool          // flags.idx_bound_is_err: an index past its bound is an error, else its lane is skipped (§11.5)
	NonUniqueDst bool          // flags.non_unique_dst_idx: repeated dst indices apply in order (§11.5)
	GatherDim    uint8         // flags.gather_dim (INDIRECT_DIM: 0 X … 3 W)
	ScatterDim   uint8         // flags.scatter_dim (INDIRECT1D only)
	Bound        [2]BoundCheck // src_idx_bound_reg, dst_idx_bound_reg: they bound the index, not the data (§3.5)
}

// Elements is the element count of the leg.
func (l *Leg) Elements() uint64 {
	n := uint64(1)
	for _, x := range l.Num {
		n *= uint64(x)
	}
	return n
}

// Bytes is the leg's byte count.
func (l *Leg) Bytes() uint64 { return l.Elements() * uint64(l.ElemSize) }

// extent is the lowest and one-past-the-highest byte address the leg touches
// (isa.WalkExtent from Addr). A count of 0 walks once here, as lowering
// normalises it, where WalkExtent would touch nothing.
func (l *Leg) extent() (lo, hi uint64) {
	var num [maxDims]uint32
	for d, n := range l.Num {
		num[d] = max(n, 1)
	}
	lo64, hi64 := isa.WalkExtent(int64(l.ElemSize), num[:], l.Step[:])
	return uint64(int64(l.Addr) + lo64), uint64(int64(l.Addr) + hi64)
}

// Channel is the share of one DMA channel.
type Channel struct {
	DMA      int
	Src, Dst Leg
	SemInc   int // its share of sem_increment
	Ops      []Op
}

// Kind names what the resolved word moves.
type Kind uint8

// Kinds, by DGE_OPCODE.
const (
	KindDirect2D Kind = iota
	KindIndirect1D
	KindTranspose
	KindGatherTranspose
)

func (k Kind) String() string {
	return [...]string{"DIRECT2D", "INDIRECT", "TRANSPOSE", "GATHER TRANSPOSE"}[k]
}

// Program is the lowering of one resolved word: everything the expansion
// (package sdma) and the engines need is here, read from the word once, so
// what the dump prints is what runs.
type Program struct {
	Gen          isa.Gen
	Core         int // the NeuronCore the SoC addresses are for (Options.Core, field-tables §11.2)
	Kind         Kind
	Backend      Backend
	Src, Dst     Leg // the whole transfer
	Semaphore    int
	SemIncrement int
	InDtype      uint8
	OutDtype     uint8
	ComputeOp    uint8
	Channels     []Channel
	reshapeLog   reshapeLog // the reshape analysis; its lines are ReshapeLines
	BoundLimit   [2]uint64  // each leg's limit where it starts (isa.BoundLimit: r[bc_reg], or in HBM r[bc_reg+1]:r[bc_reg]), for the dump
	Tile         Tile       // KindTranspose only
	Index        Indexing   // KindIndirect1D and KindGatherTranspose only
	// Indices are the index values the rows were generated from (src, dst
	// tensor; nil where the leg is not indexed): read once by Lower, and the
	// values the expansion (package sdma) uses, so the descriptors follow from
	// the rows. IndicesAssumed: Options.Index was nil, they are the identity.
	Indices        [2][]uint32
	IndicesAssumed bool
	RowBytes       int   // GATHER_XPOSE: the word's elem_size, the bytes of one gathered row (000 §8e)
	Skipped        []int // the lanes whose index is out of range or past its bound, or whose row is outside the map: no GENERATE (sdma errors or skips them)

	rows    rowPlan     // an indexed word's rows when they are not stored (Options.NoRowOps)
	opSlab  []Op        // the storage of the channels' Ops (LowerInto reuses it)
	idxSlab [2][]uint32 // the storage of Indices (likewise)
}

// IndexValue is index j of tensor which (0 src, 1 dst) as the rows used it
// (the sdma.IndexFunc of the program).
func (p *Program) IndexValue(which, j int) (uint32, error) {
	if which < 0 || which > 1 || j < 0 || j >= len(p.Indices[which]) {
		return 0, fmt.Errorf("index %d of the %s index tensor: not read by the lowering", j, [...]string{"src", "dst"}[min(max(which, 0), 1)])
	}
	return p.Indices[which][j], nil
}

// PerRow reports a program of one GENERATE per gathered row: an indexed word.
func (p *Program) PerRow() bool { return p.Kind == KindIndirect1D || p.Kind == KindGatherTranspose }

// IndirectionDim is the word's INDIRECT_DIM the software $S dump prints:
// gather_dim for a gathered source, scatter_dim for a scattered destination
// (field-tables §2.5, §3.5, §3.7); 0 for the words without indices.
func (p *Program) IndirectionDim() uint8 {
	switch {
	case p.Kind == KindGatherTranspose, p.Kind == KindIndirect1D && p.Index.Mode.SrcIndexed():
		return p.Index.GatherDim
	case p.Kind == KindIndirect1D:
		return p.Index.ScatterDim
	}
	return 0
}

// Reshape kinds ndma numbers (INFERRED, RATIONALE.md: field-tables §8.1 "Reshape
// Strategy / Kind integer values: NOT recoverable"): what the reshape does to
// the walk — 003 §5.2 "A transpose is realized as a permutation of the
// step_elem[] / num_elem[] arrays", and the pair assessment's "#DMA fan-out".
const (
	ReshapeNone      = 0 // the legs walk as the word writes them
	ReshapeTranspose = 1 // the axis permutation of DMA_TRANSPOSE / DMA_GATHER_TRANSPOSE (003 §5.3)
	ReshapeSplit     = 2 // the walk split over more than one DMA along its partition dimension
)

// RequestedReshapeKind is the reshape the word asks for: a transpose for the
// two transposing words (their DGE_OPCODE, 003 §9), none otherwise.
func (p *Program) RequestedReshapeKind() int {
	if p.Kind == KindTranspose || p.Kind == KindGatherTranspose {
		return ReshapeTranspose
	}
	return ReshapeNone
}

// ReshapeKind is the final kind the pair assessment resolves (003 §5.2) and
// the software dump's reshape_kind: the requested transpose, else a split
// when the transfer fans out over several DMAs, else none.
func (p *Program) ReshapeKind() int {
	switch {
	case p.RequestedReshapeKind() != ReshapeNone:
		return p.RequestedReshapeKind()
	case len(p.Channels) > 1:
		return ReshapeSplit
	}
	return ReshapeNone
}

// Ring is what the DGE context setup of one channel binds (003 §7.2 "DGE
// setup binds the (tx,rx) context"): the engine queue and the SoC bases of
// the channel's M2S (tx) and S2M (rx) rings, which package sdma lays out.
type Ring struct {
	Queue  int
	Tx, Rx uint64
}
