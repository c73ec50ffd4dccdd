package device_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path"
	"sort"
	"strings"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
)

// The style-A shapes of neff.md §4.7 (internal/neffgen's builders) run on the
// engines and on the reference, and leave every byte where an independent
// reading of the blocks' JSON puts it. The test's model is its own: it reads
// def.json and the engine JSON members of the built NEFF with encoding/json,
// walks each descriptor byte by byte (sizes[0] contiguous bytes, higher
// dims repeat counts at byte steps, innermost first, from the offset), maps
// an SB offset partition·2^18 + offset onto the generation's partition
// stride (a table of field-tables §7, not isa.Map), converts casts with its
// own tables (an fp16 encoder that picks the nearest of all 65,536 fp16
// values, math.Float32bits for fp32), and applies the blocks in the order
// the streams fire them. Every byte of every HBM variable and of every SB
// partition of every core must agree, and every block's semaphore must
// have reached 16 — the run did not deadlock.

// sbStride is each generation's SBUF partition stride and the bytes of a
// partition the NEFF's 2^18 space can address (field-tables §7: 192 / 224 /
// 256 / 512 KiB active, 256 KiB / 1 MiB strides).
var sbStride = map[isa.Gen]struct{ stride, active int64 }{
	isa.Sunda: {256 << 10, 192 << 10}, isa.Cayman: {256 << 10, 224 << 10}, isa.Mariana: {256 << 10, 256 << 10},
	isa.Maverick: {1 << 20, 256 << 10},
}

// jdesc, jblock and jvar are the JSON as the test reads it.
type jdesc struct {
	From, To       string
	FromOff        int64   `json:"from_off"`
	ToOff          int64   `json:"to_off"`
	FromSizes      []int64 `json:"from_sizes"`
	ToSizes        []int64 `json:"to_sizes"`
	FromSteps      []int64 `json:"from_steps"`
	ToSteps        []int64 `json:"to_steps"`
	Op             string  `json:"op"`
	FromDtype      string  `json:"from_dtype"`
	ToDtype        string  `json:"to_dtype"`
	TransposeOp    string  `json:"transpose_op"`
	TransposeShape []int64 `json:"transpose_shape"`
	TransposeElem  int64   `json:"transpose_element_size"`
}

type jblock struct {
	Queue     string  `json:"queue"`
	ID        int     `json:"id"`
	Semaphore int     `json:"semaphore"`
	Desc      []jdesc `json:"desc"`
}

type jvar struct {
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	FileName string `json:"file_name"`
}

// model is the test's memory: HBM variables by name (shared by every
// subgraph), one SB of 128 NEFF partitions per subgraph.
type model struct {
	vars map[string][]byte
	sb   [][][]byte
}

// at is the byte of variable v at byte offset o for subgraph sg; an SB
// offset is partition·2^18 + offset (neff.md §4.7).
func (m *model) at(t *testing.T, sg int, v string, o int64) *byte {
	if v == "SB" {
		p, off := o>>18, o&(1<<18-1)
		if o < 0 || p >= 128 {
			t.Fatalf("SB offset %d outside the 128 NEFF partitions", o)
		}
		return &m.sb[sg][p][off]
	}
	b, ok := m.vars[v]
	if !ok || o < 0 || o >= int64(len(b)) {
		t.Fatalf("%s+%d outside the variable", v, o)
	}
	return &b[o]
}

// fp16 values: every finite half, decoded by its fields, for the nearest
// search of toF16 (and 2^16, the first value past 65504, standing for +Inf).
var f16s = func() (vals []struct {
	v    float64
	bits uint16
}) {
	for b := 0; b < 0x7c00; b++ {
		e, m := b>>10, float64(b&0x3ff)
		v := math.Ldexp(m, -24) // subnormal: m · 2^-24
		if e > 0 {
			v = math.Ldexp(1024+m, e-25)
		}
		vals = append(vals, struct {
			v    float64
			bits uint16
		}{v, uint16(b)})
	}
	return append(vals, struct {
		v    float64
		bits uint16
	}{65536, 0x7c00})
}()

// toF16 rounds a finite value to the nearest fp16, ties to the even bit
// pattern; past the largest the value is +Inf (field-tables §11.4: RNE).
func toF16(f float64) uint16 {
	sign := uint16(0)
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	if f >= 65536 {
		return sign | 0x7c00
	}
	i := sort.Search(len(f16s), func(i int) bool { return f16s[i].v >= f })
	if f16s[i].v == f || i == 0 {
		return sign | f16s[i].bits
	}
	lo, hi := f16s[i-1], f16s[i]
	switch d := (f - lo.v) - (hi.v - f); {
	case d < 0:
		return sign | lo.bits
	case d > 0:
		return sign | hi.bits
	case lo.bits&1 == 0:
		return sign | lo.bits
	}
	return sign | hi.bits
}

// cast converts one element (neff.md §4.7's pairs: the source as int8 or
// float32, the destination float16 or float32).
func cast(t *testing.T, from, to string, src []byte) []byte {
	var v float64
	switch from {
	case "int8":
		v = float64(int8(src[0]))
	case "float32":
		v = float64(math.Float32frombits(binary.LittleEndian.Uint32(src)))
	default:
		t.Fatalf("the test casts no %s", from)
	}
	switch to {
	case "float16":
		return binary.LittleEndian.AppendUint16(nil, toF16(v))
	case "float32":
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v)))
	}
	t.Fatalf("the test casts to no %s", to)
	return nil
}

var dtypeBytes = map[string]int{"int8": 1, "float16": 2, "float32": 4}

// apply moves one descriptor in the model.
func (m *model) apply(t *testing.T, sg int, d jdesc) {
	from, to := samples.Walk(d.FromOff, d.FromSizes, d.FromSteps), samples.Walk(d.ToOff, d.ToSizes, d.ToSteps)
	src := make([]byte, len(from))
	for i, o := range from {
		src[i] = *m.at(t, sg, d.From, o)
	}
	var out []byte
	switch {
	case d.TransposeOp != "":
		out = samples.Permute(src, d.TransposeOp, d.TransposeShape, d.TransposeElem)
	case d.FromDtype != d.ToDtype:
		fs := dtypeBytes[d.FromDtype]
		for i := 0; i < len(src); i += fs {
			out = append(out, cast(t, d.FromDtype, d.ToDtype, src[i:i+fs])...)
		}
	default:
		out = src
	}
	if len(out) != len(to) {
		t.Fatalf("%s → %s: %d bytes for a walk of %d", d.From, d.To, len(out), len(to))
	}
	for i, o := range to {
		*m.at(t, sg, d.To, o) = out[i]
	}
}

// fire is one block a stream fires: subgraph, engine manifest, queue, id.
type fire struct {
	sg       int
	manifest string
	queue    string
	id       int
}

func TestStyleARuns(t *testing.T) {
	order := func(sgs int, manifest string, qids ...any) []fire {
		var out []fire
		for sg := 0; sg < sgs; sg++ {
			for i := 0; i < len(qids); i += 2 {
				out = append(out, fire{sg, manifest, qids[i].(string), qids[i+1].(int)})
			}
		}
		return out
	}
	vadd := func(n int) []fire {
		return order(n, "SP.json", "qSPIn", 0, "qSPIn", 1, "qSPIn", 2, "qSPIn", 3, "qSPOut", 0, "qSPOut", 1)
	}
	casts := order(1, "Pool.json", "qPoolIn", 0, "qPoolIn", 1, "qPoolIn", 2, "qPoolOut", 0)
	xposes := order(1, "Activation.json", "qActIn", 0, "qActIn", 1, "qActIn", 2)
	weights := order(1, "Pool.json", "qPoolIn", 0, "qPoolData", 0, "qPoolData", 1, "qPoolData", 2)
	for _, tc := range []struct {
		name   string
		gen    isa.Gen
		p      *neffgen.Program
		fires  []fire
		counts map[int]int32 // semaphores other than the blocks' (expected values)
	}{
		{"vector-add cayman, two subgraphs", isa.Cayman, neffgen.VectorAdd("cayman", 2), vadd(2), map[int]int32{6: 2}},
		{"vector-add sunda", isa.Sunda, neffgen.VectorAdd("sunda", 1), vadd(1), map[int]int32{6: 2}},
		{"vector-add sunda, 1408 ACT words of opcode 0x22", isa.Sunda, unknownACT(neffgen.VectorAdd("sunda", 1)), vadd(1), map[int]int32{6: 2, 7: 1}},
		{"vector-add maverick (1 MiB partitions)", isa.Maverick, neffgen.VectorAdd("maverick", 1), vadd(1), map[int]int32{6: 2}},
		{"casts cayman", isa.Cayman, neffgen.Casts("cayman"), casts, nil},
		{"casts sunda", isa.Sunda, neffgen.Casts("sunda"), casts, nil},
		{"transposes cayman", isa.Cayman, neffgen.Transposes("cayman"), xposes, nil},
		{"transposes sunda", isa.Sunda, neffgen.Transposes("sunda"), xposes, nil},
		{"transposes maverick", isa.Maverick, neffgen.Transposes("maverick"), xposes, nil},
		{"weights cayman", isa.Cayman, neffgen.Weights("cayman", false), weights, nil},
		{"weights sunda", isa.Sunda, neffgen.Weights("sunda", false), weights, nil},
		{"weights HBM to HBM", isa.Cayman, neffgen.Weights("cayman", true), append(weights[:1:1], fire{0, "Pool.json", "qPoolIn", 1}, weights[1], weights[2], weights[3]), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, sgs, err := tc.p.Open(neff.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			problems, _, err := device.Check(tc.gen, f, sgs)
			if err != nil || len(problems) > 0 {
				t.Fatalf("check: %v %v", err, problems)
			}
			// the model: variables from def.json, inputs random, files from their .npy
			m := &model{vars: map[string][]byte{}}
			inputs := map[string]device.Input{}
			var semSets [][]int // per subgraph: the blocks' semaphores
			for sg, g := range tc.p.Subgraphs {
				m.sb = append(m.sb, make([][]byte, 128))
				for p := range m.sb[sg] {
					m.sb[sg][p] = make([]byte, 1<<18)
				}
				var def struct {
					Var map[string]jvar `json:"var"`
				}
				member(t, f, g.Name+"/def.json", &def)
				for name, v := range def.Var {
					if _, done := m.vars[name]; done || v.Type == "state-buffer" {
						continue
					}
					b := make([]byte, v.Size)
					switch v.Type {
					case "input":
						fill(name, b)
						inputs[name] = device.Input{Data: append([]byte(nil), b...)}
					case "file":
						npy, ok := f.Member(g.Name + "/" + v.FileName)
						if !ok || len(npy) < 10 || string(npy[1:6]) != "NUMPY" {
							t.Fatalf("file %s: no .npy member", v.FileName)
						}
						copy(b, npy[10+int(binary.LittleEndian.Uint16(npy[8:])):])
					}
					m.vars[name] = b
				}
				semSets = append(semSets, nil)
			}
			for _, fr := range tc.fires {
				var man struct {
					DMA []jblock `json:"dma"`
				}
				member(t, f, path.Join(tc.p.Subgraphs[fr.sg].Name, fr.manifest), &man)
				found := false
				for _, b := range man.DMA {
					if b.Queue == fr.queue && b.ID == fr.id {
						for _, d := range b.Desc {
							m.apply(t, fr.sg, d)
						}
						semSets[fr.sg] = append(semSets[fr.sg], b.Semaphore)
						found = true
					}
				}
				if !found {
					t.Fatalf("no block %s %d in %s", fr.queue, fr.id, fr.manifest)
				}
			}
			for _, exec := range []device.Exec{device.Sim, device.Ref} {
				im, err := device.Load(tc.gen, f, sgs, inputs)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := im.Run(device.NEFFOptions{Exec: exec}); err != nil { // a deadlock is an error
					t.Fatalf("%s: %v", exec, err)
				}
				for name, want := range m.vars {
					got, err := im.Var(name)
					if err != nil {
						t.Fatal(err)
					}
					if i := firstDiff(got, want); i >= 0 {
						t.Errorf("%s: %s byte %d is %#x, the walk says %#x", exec, name, i, got[i], want[i])
					}
				}
				g := sbStride[tc.gen]
				for sg := range tc.p.Subgraphs {
					core := im.Device.Core(sg)
					for p := int64(0); p < 128; p++ {
						got := make([]byte, g.active)
						if err := core.Read(uint64(p*g.stride), got); err != nil {
							t.Fatal(err)
						}
						if i := firstDiff(got, m.sb[sg][p][:g.active]); i >= 0 {
							t.Fatalf("%s sg%02d: SB partition %d offset %d is %#x, the walk says %#x", exec, sg, p, i, got[i], m.sb[sg][p][i])
						}
					}
					for _, s := range semSets[sg] {
						if v := core.Sems[s]; v != 16 {
							t.Errorf("%s sg%02d: $S[%d] = %d, want 16 (16 engines completing once)", exec, sg, s, v)
						}
					}
					for s, want := range tc.counts {
						if v := core.Sems[s]; v != want {
							t.Errorf("%s sg%02d: $S[%d] = %d, want %d", exec, sg, s, v, want)
						}
					}
				}
			}
		})
	}
}

// Worked by hand from neff.md §4.7's reading, not by any walk: the fp32
// transpose block puts column j of the 128×128 matrix w32 (512-byte rows)
// into SB partition j — element i of partition j is w32[i][j] — and the
// fp16 one column j of w16 at offset 512 of partition j.
func TestStyleATransposeByHand(t *testing.T) {
	for _, gen := range []isa.Gen{isa.Cayman, isa.Sunda, isa.Maverick} {
		f, sgs, err := neffgen.Transposes(strings.ToLower(gen.String())).Open(neff.Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		w32, w16 := make([]byte, 128*512), make([]byte, 128*256)
		for i := range w32 {
			w32[i] = byte(i*7 + i>>8)
		}
		for i := range w16 {
			w16[i] = byte(i*5 + i>>8 + 3)
		}
		for _, exec := range []device.Exec{device.Sim, device.Ref} {
			im, err := device.Load(gen, f, sgs, map[string]device.Input{"w32": {Data: w32}, "w16": {Data: w16}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := im.Run(device.NEFFOptions{Exec: exec}); err != nil {
				t.Fatalf("%s %s: %v", gen, exec, err)
			}
			stride := uint64(sbStride[gen].stride)
			for j := 0; j < 128; j++ {
				col := make([]byte, 512+256)
				if err := im.Device.Core(0).Read(uint64(j)*stride, col); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 128; i++ {
					if got, want := col[4*i:4*i+4], w32[512*i+4*j:512*i+4*j+4]; !bytes.Equal(got, want) {
						t.Fatalf("%s %s: fp32 partition %d element %d is % x, w32[%d][%d] is % x", gen, exec, j, i, got, i, j, want)
					}
					if got, want := col[512+2*i:512+2*i+2], w16[256*i+2*j:256*i+2*j+2]; !bytes.Equal(got, want) {
						t.Fatalf("%s %s: fp16 partition %d element %d is % x, w16[%d][%d] is % x", gen, exec, j, i, got, i, j, want)
					}
				}
			}
		}
	}
}

// fill is an input's data: random bytes, but for x32 (the fp32 source of a
// cast) finite fp32 values — first the rounding cases of fp32 → fp16 (ties
// to even at 1 + 2^-11 and 1 + 3·2^-11, 65519 and 65520 at the top, the
// subnormal tie 2^-25, signed zeros, overflow), then random bit patterns of
// every finite exponent.
func fill(name string, b []byte) {
	r := rand.New(rand.NewPCG(uint64(len(name)), uint64(len(b))))
	if name != "x32" {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return
	}
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1 + 1.0/2048, 1 + 3.0/2048, 65504, 65519, 65520, -65520, 1e6,
		float32(math.Ldexp(1, -24)), float32(math.Ldexp(1, -25)), float32(math.Ldexp(3, -26)), 1e-30, 1.0 / 3, 0.1, -2.5e-5}
	for i := 0; i < len(b)/4; i++ {
		bits := r.Uint32()
		if bits>>23&0xff == 0xff { // no Inf or NaN: a cast of those has no single right answer to hold ndma to
			bits &^= 1 << 23
		}
		if i < len(edges) {
			bits = math.Float32bits(edges[i])
		}
		binary.LittleEndian.PutUint32(b[4*i:], bits)
	}
}

// unknownACT gives p's subgraphs an ACT stream of 1,408 words of opcode 0x22
// (neff.md §4.7: SUNDA's ACT streams), the last waiting ≥ 16 on qSPIn
// block 0's $S[8] and incrementing $S[7]: its EVENTS must be honoured.
func unknownACT(p *neffgen.Program) *neffgen.Program {
	neffgen.UnknownACT(p, 1408, 8, 7)
	return p
}

// member decodes a JSON member of f.
func member(t *testing.T, f *neff.File, name string, v any) {
	t.Helper()
	b, ok := f.Member(name)
	if !ok {
		t.Fatalf("no member %s", name)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}
