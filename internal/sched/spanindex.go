package sched

import "slices"

// spanIndex finds the DMAs in flight whose bytes may meet a word's: each
// pending DMA filed under the 4 KiB granules its write and read spans
// touch, so the race check compares a word only with the DMAs in flight
// near its bytes — two streams of n independent copies once cost n² scans
// (issue 30 M6). A DMA spanning more granules than wideGranules is kept on
// one list every query reads; a word that wide compares with every DMA.
type spanIndex struct {
	by   map[uint64][]int    // granule → seqs filed there
	wide []int               // seqs of DMAs too wide to file
	live map[int]*completion // seq → the DMA (a copy: the heap moves its own)
	keys map[int][]uint64    // seq → the granules it is filed under
	seen map[int]struct{}    // query scratch
	out  []int               // query scratch
}

const (
	granuleShift = 12 // 4 KiB
	wideGranules = 256
)

// granules calls f with each granule of spans; false when they touch more
// than wideGranules.
func granules(spans [][2]uint64, f func(uint64)) bool {
	n := 0
	for _, s := range spans {
		if s[1] <= s[0] {
			continue
		}
		lo, hi := s[0]>>granuleShift, (s[1]-1)>>granuleShift
		if n += int(hi-lo) + 1; n > wideGranules {
			return false
		}
	}
	for _, s := range spans {
		if s[1] <= s[0] {
			continue
		}
		for g := s[0] >> granuleShift; g <= (s[1]-1)>>granuleShift; g++ {
			f(g)
		}
	}
	return true
}

// add files DMA c (its writes and, while it may still read, its reads).
func (x *spanIndex) add(c *completion) {
	if x.by == nil {
		x.by, x.live, x.keys, x.seen = map[uint64][]int{}, map[int]*completion{}, map[int][]uint64{}, map[int]struct{}{}
	}
	cp := *c
	x.live[c.seq] = &cp
	var keys []uint64
	collect := func(g uint64) { keys = append(keys, g) }
	if !granules(c.writes, collect) || !granules(c.reads, collect) {
		x.wide = append(x.wide, c.seq)
		x.keys[c.seq] = nil
		return
	}
	slices.Sort(keys) // its writes and reads may share granules: file each once (a sort, not a scan per granule)
	keys = slices.Compact(keys)
	for _, g := range keys {
		x.by[g] = append(x.by[g], c.seq)
	}
	x.keys[c.seq] = keys
}

// remove takes DMA seq out (its completion landed).
func (x *spanIndex) remove(seq int) {
	keys, ok := x.keys[seq]
	if !ok {
		return
	}
	if keys == nil {
		if i := slices.Index(x.wide, seq); i >= 0 {
			x.wide = slices.Delete(x.wide, i, i+1)
		}
	}
	for _, g := range keys {
		x.drop(g, seq)
	}
	delete(x.keys, seq)
	delete(x.live, seq)
}

func (x *spanIndex) drop(g uint64, seq int) {
	l := x.by[g]
	if i := slices.Index(l, seq); i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(x.by, g)
	} else {
		x.by[g] = l
	}
}

// near is every DMA in flight whose spans share a granule with c's (and
// the wide ones), in issue order; all false when c is too wide to look up.
func (x *spanIndex) near(c *completion) (seqs []int, all bool) {
	if x.by == nil {
		return nil, false
	}
	clear(x.seen)
	x.out = x.out[:0]
	pick := func(g uint64) {
		for _, s := range x.by[g] {
			if _, ok := x.seen[s]; !ok {
				x.seen[s] = struct{}{}
				x.out = append(x.out, s)
			}
		}
	}
	if !granules(c.writes, pick) || !granules(c.reads, pick) {
		return nil, true
	}
	x.out = append(x.out, x.wide...)
	slices.Sort(x.out)
	return slices.Compact(x.out), false
}
