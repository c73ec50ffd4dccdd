package neff

import (
	"encoding/json"
	"fmt"
	"sort"
)

// SBPartitionStride is the partition stride of a NEFF's own SB space: an SB
// offset in a descriptor block is partition·2^18 + offset on every target
// the compiler was seen to write, sunda and cayman alike (neff.md §4.7). It
// is not the generation's stride (v5's is 1 MiB, field-tables §7): a walk
// maps each partition onto the generation's address map.
const SBPartitionStride = 1 << 18

// Block is one `dma[]` descriptor block of an engine JSON (or of def.json's
// own `dma` list): the transfers a PSEUDO_DMA_TRIGGER fires by queue name
// and block id (neff.md §4.5, §5.2, §4.7).
type Block struct {
	Queue     string // `queue`, or `instance_name` (<queue>_defId_<n>)
	ID        int    // `id`
	Semaphore *int   // `semaphore`: the block's own completion semaphore (neff.md §4.7), nil when absent
	Comment   string // `#comment` ("I-5-0-block-1"), for listings
	Desc      []Desc // `desc`
	Where     string // the member and index it came from: "sg00/pool.json dma[0]"
}

// Desc is one `desc[]` element: a walk over a source variable and one over
// a destination variable. Sizes and steps are innermost first; sizes[0] is
// the contiguous run in bytes, higher dims repeat counts, steps in bytes, on
// each side in its own dtype (a cast reads and writes different byte
// counts); the offsets are added to the walk's base (neff.md §4.5, §4.7).
// The keys added since the C08220 shape are omitted from the JSON when
// zero, so older synthetic NEFFs keep their bytes.
type Desc struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	FromOff   int64   `json:"from_off,omitempty"`
	ToOff     int64   `json:"to_off,omitempty"`
	FromSizes []int64 `json:"from_sizes"`
	ToSizes   []int64 `json:"to_sizes"`
	FromSteps []int64 `json:"from_steps"`
	ToSteps   []int64 `json:"to_steps"`
	FromArr   []Desc  `json:"from_arr"` // partial sources, concatenated in order (gathers)
	Op        string  `json:"op"`       // copy (default), cast, add, max, min; fma refused
	FromDtype string  `json:"from_dtype"`
	ToDtype   string  `json:"to_dtype"`
	// NumTilingDimensions is how many leading dims of each walk cover one
	// transpose tile (2 in every observed transpose, 1 elsewhere).
	NumTilingDimensions int `json:"num_tiling_dimensions,omitempty"`
	// TransposeOp names the output order of the tile's dims W Z Y X
	// ("WZXY"); TransposeShape is the tile [W, Z, Y, X] in elements of
	// TransposeElementSize bytes (neff.md §4.7, INFERRED reading).
	TransposeOp          string  `json:"transpose_op,omitempty"`
	TransposeShape       []int64 `json:"transpose_shape,omitempty"`
	TransposeElementSize int64   `json:"transpose_element_size,omitempty"`
	// Unmodelled lists the compute-on-DMA keys of neff.md §4.5 the
	// descriptor carries that ndma does not model (scale, constant, …):
	// such a descriptor is refused by key, never moved without them.
	Unmodelled []string `json:"-"`
}

// unmodelledKeys are §4.5's compute-on-DMA options ndma has no meaning for:
// moving the bytes without them would be silently wrong.
var unmodelledKeys = []string{"scale", "scale_dtype", "constant", "constant_dtype", "cast"}

// UnmarshalJSON reads a descriptor and notes the keys of unmodelledKeys it
// carries (Desc.Unmodelled).
func (d *Desc) UnmarshalJSON(b []byte) error {
	type plain Desc
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	p.Unmodelled = nil
	for _, k := range unmodelledKeys {
		if _, ok := keys[k]; ok {
			p.Unmodelled = append(p.Unmodelled, k)
		}
	}
	sort.Strings(p.Unmodelled)
	*d = Desc(p)
	return nil
}

// parseBlocks reads a `dma` list; where names the member for messages.
func parseBlocks(raw json.RawMessage, where string) ([]Block, error) {
	var list []struct {
		Queue        string `json:"queue"`
		InstanceName string `json:"instance_name"`
		ID           *int   `json:"id"`
		Semaphore    *int   `json:"semaphore"`
		Comment      string `json:"#comment"`
		Desc         []Desc `json:"desc"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s dma: %w", where, err)
	}
	out := make([]Block, 0, len(list))
	type key struct {
		q  string
		id int
	}
	seen := make(map[key]string, len(list))
	for i, b := range list {
		at := fmt.Sprintf("%s dma[%d]", where, i)
		q := b.Queue
		if q == "" {
			q = b.InstanceName
		}
		switch {
		case q == "":
			return nil, fmt.Errorf("%s: no queue or instance_name", at)
		case b.ID == nil:
			return nil, fmt.Errorf("%s (queue %s): no id", at, q)
		}
		if prev, dup := seen[key{q, *b.ID}]; dup {
			return nil, fmt.Errorf("%s: queue %s block id %d repeats %s", at, q, *b.ID, prev)
		}
		seen[key{q, *b.ID}] = at
		out = append(out, Block{Queue: q, ID: *b.ID, Semaphore: b.Semaphore, Comment: b.Comment, Desc: b.Desc, Where: at})
	}
	return out, nil
}

// Block finds the block a trigger on engine en fires: queue name and id, in
// the engine's JSON first, then in def.json's own list.
func (sg *Subgraph) Block(en *Engine, queue string, id int) (*Block, bool) {
	for _, list := range [][]Block{en.Blocks, sg.Blocks} {
		for i := range list {
			if list[i].Queue == queue && list[i].ID == id {
				return &list[i], true
			}
		}
	}
	return nil, false
}
