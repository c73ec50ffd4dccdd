package sdma

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/dge"
)

// transposeRuns' tile loop (a run per tile row and per tile column, stepped)
// against the DRE's walk element by element (field-tables §11.5: M2S reads
// each tile row by row, S2M writes it column by column, edge tiles smaller),
// each element merged with the run before when contiguous (appendRun): the
// same runs, their boundaries included — the descriptors are cut from them.
// The shapes take in tiles that divide the block and tiles that do not,
// negative and zero row steps, and rows that continue each other (whole-row
// tiles read the block as one run).
func TestTransposeRunsAsElementWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	type shape struct {
		rows, cols, tr, tc int
		es                 uint32
		ss, ds             int64 // row steps (bytes)
	}
	shapes := []shape{
		{1024, 1024, 16, 128, 2, 2048, 2048}, {64, 128, 16, 128, 2, 256, 128}, {32, 8, 16, 8, 2, 16, 64},
		{33, 17, 16, 5, 4, 68, 132}, {7, 3, 16, 128, 8, 24, 56}, {40, 40, 8, 8, 2, -80, 80},
		{16, 16, 16, 16, 1, 0, 16}, {20, 6, 3, 2, 2, 12, -40},
	}
	for range 40 {
		es := []uint32{1, 2, 4}[rng.IntN(3)]
		rows, cols := 1+rng.IntN(50), 1+rng.IntN(50)
		ss, ds := int64(cols)*int64(es), int64(rows)*int64(es)
		if rng.IntN(2) == 0 {
			ss += int64(es) * int64(rng.IntN(4))
		}
		if rng.IntN(3) == 0 {
			ds = -ds
		}
		shapes = append(shapes, shape{rows, cols, 1 + rng.IntN(20), 1 + rng.IntN(20), es, ss, ds})
	}
	for _, s := range shapes {
		name := fmt.Sprintf("%d×%d in %d×%d tiles of %d B, steps %d, %d", s.rows, s.cols, s.tr, s.tc, s.es, s.ss, s.ds)
		src := handLeg(0x10_0000, s.es, []uint32{uint32(s.cols), uint32(s.rows)}, []int64{int64(s.es), s.ss}, true)
		dst := handLeg(0x80_0000, s.es, []uint32{uint32(s.rows), uint32(s.cols)}, []int64{int64(s.es), s.ds}, false)
		p := handProgram(dge.KindTranspose, src, dst)
		p.Tile = dge.Tile{Rows: uint32(s.tr), Cols: uint32(s.tc)}
		var ws, wd []run
		at := func(l *dge.Leg, i0, i1 int) uint64 {
			return uint64(int64(l.Addr) + int64(i0)*l.Step[0] + int64(i1)*l.Step[1])
		}
		for rb := 0; rb < s.rows; rb += s.tr {
			for cb := 0; cb < s.cols; cb += s.tc {
				for r := rb; r < min(s.rows, rb+s.tr); r++ {
					for c := cb; c < min(s.cols, cb+s.tc); c++ {
						ws = appendRun(ws, at(&src, c, r), uint64(s.es))
					}
				}
				for c := cb; c < min(s.cols, cb+s.tc); c++ {
					for r := rb; r < min(s.rows, rb+s.tr); r++ {
						wd = appendRun(wd, at(&dst, r, c), uint64(s.es))
					}
				}
			}
		}
		gs, gd, keep, err := transposeRuns(p, &p.Channels[0], nil, MaxDescriptors, nil, nil)
		if err != nil || keep != nil {
			t.Fatalf("%s: %v (keep %v)", name, err, keep != nil)
		}
		if fmt.Sprint(gs) != fmt.Sprint(ws) {
			t.Errorf("%s: M2S runs differ from the element walk:\n got %v\nwant %v", name, head(gs), head(ws))
		}
		if fmt.Sprint(gd) != fmt.Sprint(wd) {
			t.Errorf("%s: S2M runs differ from the element walk:\n got %v\nwant %v", name, head(gd), head(wd))
		}
	}
}

// head is the first runs of rs (a failure's message).
func head(rs []run) []run { return rs[:min(len(rs), 8)] }
