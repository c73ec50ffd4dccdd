package neff

import (
	"encoding/json"
	"fmt"
)

// Block is one `dma[]` descriptor block of an engine JSON (or of def.json's
// own `dma` list): the transfers a PSEUDO_DMA_TRIGGER fires by queue name
// and block id (neff.md §4.5, §5.2).
type Block struct {
	Queue string // `queue`, or `instance_name` (<queue>_defId_<n>)
	ID    int    // `id`
	Desc  []Desc // `desc`
	Where string // the member and index it came from: "sg00/pool.json dma[0]"
}

// Desc is one `desc[]` element: a walk over a source variable and one over
// a destination variable. Sizes and steps are innermost first; sizes[0] is
// the contiguous run in bytes, higher dims repeat counts, steps in bytes
// (neff.md §4.5, INFERRED there; RATIONALE.md).
type Desc struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	FromSizes []int64 `json:"from_sizes"`
	ToSizes   []int64 `json:"to_sizes"`
	FromSteps []int64 `json:"from_steps"`
	ToSteps   []int64 `json:"to_steps"`
	FromArr   []Desc  `json:"from_arr"` // partial sources, concatenated in order (gathers)
	Op        string  `json:"op"`       // copy (default), add, max, min; fma and transpose are refused
	FromDtype string  `json:"from_dtype"`
	ToDtype   string  `json:"to_dtype"`
}

// parseBlocks reads a `dma` list; where names the member for messages.
func parseBlocks(raw json.RawMessage, where string) ([]Block, error) {
	var list []struct {
		Queue        string `json:"queue"`
		InstanceName string `json:"instance_name"`
		ID           *int   `json:"id"`
		Desc         []Desc `json:"desc"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s dma: %w", where, err)
	}
	out := make([]Block, 0, len(list))
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
		for _, o := range out {
			if o.Queue == q && o.ID == *b.ID {
				return nil, fmt.Errorf("%s: queue %s block id %d repeats %s", at, q, *b.ID, o.Where)
			}
		}
		out = append(out, Block{Queue: q, ID: *b.ID, Desc: b.Desc, Where: at})
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
