package asm

import (
	"ndma/internal/suggest"
	"strconv"
	"strings"
	"sync"

	"ndma/isa"
)

// The keys of a layout (isa's Struct.Keys, docs/asm.md "Keys"): an item is a
// scalar leaf, a whole array, or a byte range; it is spelled by its full
// path, by the last part of the path where that is unique, and array elements
// by path[i].

type item struct {
	index int        // position in keyTable.items
	path  string     // full path: "events.wait_mode", "src_num_elem"
	name  string     // canonical spelling: short where unique
	field *isa.Field //
	first int        // first leaf index
	nleaf int        // leaves in the item
	count int        // array elements (0 = scalar)
	chunk int        // leaves per element (byte ranges longer than 8 are chunked)
	width int        // bits of one scalar element
	sign  bool
}

type keyRef struct {
	it   *item
	elem int // -1 = the whole item
}

type keyTable struct {
	lay   *isa.Struct
	items []*item
	keys  map[string]keyRef
	names []string // every accepted spelling, for "did you mean"
}

var keyTables sync.Map // *isa.Struct → *keyTable

func keysOf(lay *isa.Struct) *keyTable {
	if t, ok := keyTables.Load(lay); ok {
		return t.(*keyTable)
	}
	t := buildKeys(lay)
	keyTables.Store(lay, t)
	return t
}

func buildKeys(lay *isa.Struct) *keyTable {
	t := &keyTable{lay: lay, keys: map[string]keyRef{}}
	for _, k := range lay.Keys() {
		it := &item{index: len(t.items), path: k.Path, name: k.Name, field: k.Field, first: k.First, nleaf: k.NLeaf,
			count: k.Count, chunk: k.Chunk, width: k.Width, sign: k.Signed}
		t.items = append(t.items, it)
		if it.name != it.path {
			t.add(it.name, keyRef{it, -1})
		}
		t.add(it.path, keyRef{it, -1})
		for e := 0; e < it.count; e++ {
			t.add(it.path+"["+strconv.Itoa(e)+"]", keyRef{it, e})
			if it.name != it.path {
				t.add(it.name+"["+strconv.Itoa(e)+"]", keyRef{it, e})
			}
		}
	}
	return t
}

func (t *keyTable) add(k string, r keyRef) {
	if _, dup := t.keys[k]; !dup {
		t.names = append(t.names, k)
	}
	t.keys[k] = r
}

func last(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// didYouMean is " (did you mean X?)" for the candidate closest to k (the
// one rule of every "unknown X", internal/suggest), or "".
func didYouMean(k string, candidates []string) string {
	near := suggest.Nearest(k, candidates)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + near[0] + "?)"
}

// mnemonics are the lower-case opcode names that have a layout.
var mnemonics = sync.OnceValue(func() []string {
	var out []string
	for _, d := range isa.Catalog() {
		if d.Decoded() {
			out = append(out, strings.ToLower(d.Name))
		}
	}
	return out
})
