//go:build !gentyped

package isa

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// typedLayouts are the layouts with a view, and an opcode that decodes by each.
func typedLayouts(t *testing.T) map[*Struct]Opcode {
	m := map[*Struct]Opcode{rawLayout: 0x00}
	for _, d := range catalog {
		if d.Layout != nil {
			m[d.Layout] = d.Opcode
		}
	}
	for _, lay := range append(allLayouts, pseudoTriggerLayout) {
		if _, ok := m[lay]; !ok {
			t.Fatalf("%s: no opcode decodes by it", lay.Name)
		}
	}
	return m
}

// typedWord is a word of opcode op whose other bytes are random, biased to
// small values so that both arms of the unions come up.
func typedWord(r *rand.Rand, op Opcode) Inst {
	var b [WordSize]byte
	for i := range b {
		switch r.IntN(3) {
		case 0:
			b[i] = byte(r.IntN(4))
		default:
			b[i] = byte(r.Uint32())
		}
	}
	b[0] = byte(op)
	in, err := Decode(GenAny, b[:])
	if err != nil {
		panic(err)
	}
	return in
}

// enumTypes maps each enum to the Go type of its generated constants.
func enumTypes(t *testing.T) map[*Enum]reflect.Type {
	m := map[*Enum]reflect.Type{}
	for _, c := range typedEnumProbe() {
		typ := reflect.TypeOf(c.c)
		if prev, ok := m[c.e]; ok && prev != typ {
			t.Fatalf("%s: constants of two types, %v and %v", c.e.Name, prev, typ)
		}
		m[c.e] = typ
	}
	return m
}

// Every getter of every view returns what the string-path API returns for
// the same path, in the Go type the field's kind gives it (an enum field its
// enum's type); the views together cover every leaf.
func TestTypedGettersMatchPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 5))
	types := enumTypes(t)
	for lay, op := range typedLayouts(t) {
		for n := 0; n < 200; n++ {
			in := typedWord(r, op)
			acc := typedProbe(&in)
			if len(acc) == 0 {
				t.Fatalf("%s: no typed accessors", lay.Name)
			}
			covered := make([]bool, len(lay.Leaves()))
			for _, a := range acc {
				l := &lay.Leaves()[a.leaf]
				if l.Path != a.path && l.Path != a.path+"#0" {
					t.Fatalf("%s: accessor of %s reads leaf %d, which is %s", lay.Name, a.path, a.leaf, l.Path)
				}
				chunks := 1
				if l.Field.Kind == KBytes && l.Field.Size > 8 {
					chunks = (l.Field.Size + 7) / 8
				}
				for k := 0; k < chunks; k++ {
					covered[a.leaf+k] = true
				}
				if err := checkGet(&in, l, a, types); err != nil {
					t.Fatalf("%s: %v", lay.Name, err)
				}
			}
			for i, ok := range covered {
				if !ok {
					t.Fatalf("%s: leaf %s has no typed accessor", lay.Name, lay.Leaves()[i].Path)
				}
			}
		}
	}
}

func checkGet(in *Inst, l *Leaf, a typedAccess, types map[*Enum]reflect.Type) error {
	got := a.get()
	f := l.Field
	var want any
	switch {
	case f.Kind == KUint && f.Enum != nil:
		u, _ := in.Uint(a.path)
		if reflect.TypeOf(got) != types[f.Enum] {
			return fmt.Errorf("%s is %s, typed %T, want %v", a.path, f.Enum.Name, got, types[f.Enum])
		}
		if s := fmt.Sprint(got); s != f.Enum.Format(u) {
			return fmt.Errorf("%s prints %q, want %q", a.path, s, f.Enum.Format(u))
		}
		return eq(a.path, reflect.ValueOf(got).Uint(), u)
	case f.Kind == KUint || f.Kind == KDMAAddr:
		want, _ = in.Uint(a.path)
	case f.Kind == KInt:
		want, _ = in.Int(a.path)
	case f.Kind == KAddr8 || f.Kind == KPseudoAddr8:
		want, _ = in.Addr8(a.path)
	case f.Kind == KAddr4:
		u, _ := in.Uint(a.path)
		want = Addr4(u)
	case f.Kind == KCCInst:
		u, _ := in.Uint(a.path)
		want = CCInst(u)
	case f.Kind == KBytes:
		b, err := in.Bytes(a.path)
		if err != nil {
			return err
		}
		v := reflect.ValueOf(got)
		g := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(g), v)
		if !bytes.Equal(g, b) {
			return fmt.Errorf("%s = % x, string path % x", a.path, g, b)
		}
		return nil
	default:
		return fmt.Errorf("%s: kind %d not checked", a.path, f.Kind)
	}
	return eq(a.path, got, want)
}

func eq(path string, got, want any) error {
	if got != want {
		return fmt.Errorf("%s = %v (%T), string path %v (%T)", path, got, got, want, want)
	}
	return nil
}

// Every setter stores what the string-path setter stores and fails where
// and as it fails (the same message); reserved fields and the opcode byte
// have none.
func TestTypedSettersMatchPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	xs := []int64{0, 1, -1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 1<<31 - 1, 1 << 31, -1 << 31, -1<<31 - 1, 1 << 32, 1<<62 + 3}
	for lay, op := range typedLayouts(t) {
		for n := 0; n < 20; n++ {
			base := typedWord(r, op)
			for k, a := range typedProbe(&base) {
				l := &lay.Leaves()[a.leaf]
				f := l.Field
				if want := !f.Reserved && f.Name != "opcode"; (a.set != nil) != want {
					t.Fatalf("%s: %s has a setter: %v, want %v", lay.Name, a.path, a.set != nil, want)
				}
				if a.set == nil {
					continue
				}
				for _, x := range append(xs, int64(r.Uint64())) {
					typed, path := base, base
					err1 := typedProbe(&typed)[k].set(x)
					var err2 error
					switch {
					case f.Kind == KUint && f.Enum != nil:
						err2 = path.Set(a.path, int64(uint8(x)))
					case f.Kind == KUint || f.Kind == KInt:
						err2 = path.Set(a.path, x)
					case f.Kind == KAddr8 || f.Kind == KPseudoAddr8 || f.Kind == KDMAAddr:
						err2 = path.SetUint(a.path, uint64(x))
					case f.Kind == KAddr4 || f.Kind == KCCInst:
						err2 = path.SetUint(a.path, uint64(uint32(x)))
					case f.Kind == KBytes:
						for c := 0; c*8 < f.Size; c++ {
							m := ^uint64(0) // probeBytes repeats x's bytes per chunk: a chunk holds x's low bytes
							if w := f.Size - c*8; w < 8 {
								m = 1<<(8*w) - 1
							}
							if err := path.SetUint(fmt.Sprintf("%s#%d", a.path, c), uint64(x)&m); err != nil {
								t.Fatal(err)
							}
						}
					}
					if fmt.Sprint(err1) != fmt.Sprint(err2) {
						t.Fatalf("%s: set %s = %d: typed %v, string path %v", lay.Name, a.path, x, err1, err2)
					}
					if !typed.Equal(&path) {
						t.Fatalf("%s: set %s = %#x: the typed setter and the string path leave different words", lay.Name, a.path, x)
					}
				}
			}
		}
	}
}

// Every constant of every enum: the value and spec name of its row, and
// every row has a constant.
func TestTypedEnumConstants(t *testing.T) {
	byEnum := map[*Enum]map[string]bool{}
	for _, c := range typedEnumProbe() {
		v, ok := c.e.Parse(c.name)
		if !ok {
			t.Fatalf("%s has no value %s", c.e.Name, c.name)
		}
		if got := reflect.ValueOf(c.c).Uint(); got != v {
			t.Errorf("%s %s = %#x, the table says %#x", c.e.Name, c.name, got, v)
		}
		if e := c.c.(interface{ Enum() *Enum }).Enum(); e != c.e {
			t.Errorf("%s %s: Enum() is %s", c.e.Name, c.name, e.Name)
		}
		if s := fmt.Sprint(c.c); s != c.name {
			t.Errorf("%s %s prints %q", c.e.Name, c.name, s)
		}
		if byEnum[c.e] == nil {
			byEnum[c.e] = map[string]bool{}
		}
		byEnum[c.e][c.name] = true
	}
	for _, e := range []*Enum{dTypeEnum, waitModeEnum, updateModeEnum, traceModeEnum, dgeOpcodeEnum, dgeComputeOpEnum, indirectDimEnum, indirectModeEnum,
		dmaEngineCountEnum, dmaDescModeEnum, semaSyncEnum, testEvtSemModeEnum, dataSrcEnum, lncSizeFmtEnum, neuronEngineEnum, dmaAddrModeEnum,
		dmaSemaUpdateModeEnum, ccInstTypeEnum, ccOpEnum} {
		for _, v := range e.Values {
			if !byEnum[e][v.Name] {
				t.Errorf("%s %s has no constant", e.Name, v.Name)
			}
		}
	}
	if s := WaitModeWaitForSemGEImm.String(); s != "WAIT_FOR_SEM_GE_IMM" {
		t.Errorf("WaitModeWaitForSemGEImm prints %q", s)
	}
	if s := DTypeCode(0x17).String(); s != "0x17" {
		t.Errorf("an unnamed DTYPE prints %q, want 0x17", s)
	}
}

// The CCINST member getters return what CCInst.Get returns, for every op.
func TestTypedCCMembers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for n := 0; n < 20000; n++ {
		c := CCInst(r.Uint32())
		if n < 256 {
			c = c&^0xff | CCInst(n)
		}
		member, fields := typedCCProbe(c)
		if want := c.Member(); member != want && !(want == "RAW" && member == "") {
			t.Fatalf("%#x: member %q, want %q", uint32(c), member, want)
		}
		if member == "" {
			continue
		}
		m, names := CCMemberFields(c.Op())
		if m != member || len(fields) != len(names)+1 {
			t.Fatalf("%#x: %d getters for member %s's op + %v", uint32(c), len(fields), m, names)
		}
		for _, f := range fields {
			want, err := c.Get(f.name)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			switch v := f.get().(type) {
			case int64:
				got = v
			case uint64:
				got = int64(v)
			case CCOpCode:
				got = int64(v)
			default:
				t.Fatalf("%s.%s is %T", member, f.name, v)
			}
			if got != want {
				t.Fatalf("%#x: %s.%s = %d, Get says %d", uint32(c), member, f.name, got, want)
			}
		}
	}
}

// A view of the wrong layout is refused; Header and Events exist exactly
// where the layout has those fields.
func TestTypedViewsRefuse(t *testing.T) {
	var zero Inst
	if _, ok := zero.Direct2D(); ok {
		t.Error("an empty instruction has a direct2DLayout view")
	}
	if _, ok := zero.Events(); ok {
		t.Error("an empty instruction has EVENTS")
	}
	for lay, op := range typedLayouts(t) {
		in := New(GenAny, op)
		_, hasEv := lay.LeafIndex("events.wait_mode")
		_, hasHd := lay.LeafIndex("header.opcode")
		if _, ok := in.Events(); ok != hasEv {
			t.Errorf("%s: eventsLayout ok = %v", lay.Name, ok)
		}
		if _, ok := in.Header(); ok != hasHd {
			t.Errorf("%s: headerLayout ok = %v", lay.Name, ok)
		}
		if _, ok := in.Direct2D(); ok != (lay == direct2DLayout) {
			t.Errorf("%s: direct2DLayout view ok = %v", lay.Name, ok)
		}
	}
	w := New(GenAny, OpDMAMemcpy)
	v, _ := w.Direct2D()
	defer func() {
		if recover() == nil {
			t.Error("SrcNumElem(2) of a 2-element array did not panic")
		}
	}()
	v.SrcNumElem(2)
}

// typed_gen.go is what gentyped writes from the tables now: regenerate and
// compare, so the file cannot drift from them.
func TestTypedGenUpToDate(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), "typed_gen.go")
	cmd := exec.Command(goBin, "run", "-tags", "gentyped", "./internal/gentyped", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gentyped: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("typed_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(have, []byte("// Code generated by gentyped; DO NOT EDIT.\n")) {
		t.Error("typed_gen.go lacks the generated-code header")
	}
	if !bytes.Equal(got, have) {
		gl, hl := strings.Split(string(got), "\n"), strings.Split(string(have), "\n")
		for i := 0; i < min(len(gl), len(hl)); i++ {
			if gl[i] != hl[i] {
				t.Fatalf("typed_gen.go is stale (run go generate ./isa): line %d is\n\t%s\nwant\n\t%s", i+1, hl[i], gl[i])
			}
		}
		t.Fatalf("typed_gen.go is stale (run go generate ./isa): %d lines, want %d", len(hl), len(gl))
	}
}

// The shared rules against what the callers wrote out by hand.
func TestSharedRules(t *testing.T) {
	if ElemBytes(0) != 65536 || ElemBytes(1) != 1 || ElemBytes(65535) != 65535 {
		t.Error("ElemBytes")
	}
	r := rand.New(rand.NewPCG(2, 2))
	for n := 0; n < 2000; n++ {
		elem := int64(1 + r.IntN(8))
		num := []int64{int64(r.IntN(4)), int64(r.IntN(4))}
		step := []int64{int64(r.IntN(21) - 10), int64(r.IntN(41) - 20)}
		lo, hi := WalkExtent(elem, num, step)
		blo, bhi, any := int64(0), int64(0), false // brute force over every element
		for j := int64(0); j < num[1]; j++ {
			for i := int64(0); i < num[0]; i++ {
				o := i*step[0] + j*step[1]
				if !any || o < blo {
					blo = o
				}
				if !any || o+elem > bhi {
					bhi = o + elem
				}
				any = true
			}
		}
		if lo != blo || hi != bhi {
			t.Fatalf("WalkExtent(%d, %v, %v) = [%d, %d), brute force [%d, %d)", elem, num, step, lo, hi, blo, bhi)
		}
		if u := []uint32{uint32(num[0]), uint32(num[1])}; true {
			if l2, h2 := WalkExtent(elem, u, step); l2 != lo || h2 != hi {
				t.Fatal("WalkExtent over uint32 counts differs")
			}
		}
	}
	for _, op := range []Opcode{OpDMAMemcpy, OpPseudoDMADirect2D, OpDMAMemcpy2, OpDMAIndirect} {
		for n := 0; n < 200; n++ {
			in := typedWord(r, op)
			src, dst, ok := in.Legs2D()
			if ok != (op != OpDMAIndirect) {
				t.Fatalf("%s: Legs2D ok = %v", op, ok)
			}
			if !ok {
				continue
			}
			for k, l := range []Leg2D{src, dst} {
				leg := []string{"src", "dst"}[k]
				e, _ := in.Uint(leg + "_elem_size")
				want := Leg2D{Elem: ElemBytes(e)}
				for d := 0; d < 2; d++ {
					want.Num[d], _ = in.Int(fmt.Sprintf("%s_num_elem[%d]", leg, d))
					want.Step[d], _ = in.Int(fmt.Sprintf("%s_step_elem[%d]", leg, d))
				}
				if l != want {
					t.Fatalf("%s %s leg %+v, string paths %+v", op, leg, l, want)
				}
			}
		}
	}
	for n := 0; n < 5000; n++ {
		raw := r.Uint64()
		if n%2 == 0 {
			raw = raw&(1<<56-1) | uint64(r.IntN(256))<<56
		}
		a := Addr8{Raw: raw, Pseudo: true}
		idx, off, ok := a.Table()
		w := New(GenAny, OpPseudoDMADirect2D)
		i, _ := pseudoDirect2DLayout.LeafIndex("src_start_addr")
		w.SetLeaf(i, raw)
		form, _, fields := w.UnionArm(i)
		if ok != (form == "tbl") || ok && (uint64(off) != fields[0].Value || uint64(idx) != fields[1].Value) {
			t.Fatalf("%#x: Table() = %d, %#x, %v; arm %s %v", raw, idx, off, ok, form, fields)
		}
		if f2, fl2 := a.Arm(); f2 != form || !reflect.DeepEqual(fl2, fields) {
			t.Fatalf("%#x: Addr8.Arm = %s %v, UnionArm %s %v", raw, f2, fl2, form, fields)
		}
		if _, _, ok := (Addr8{Raw: raw}).Table(); ok {
			t.Fatalf("%#x: a plain ADDR8 has a dge-table arm", raw)
		}
		a4 := Addr4(uint32(raw))
		form4 := addr4Arm(uint64(a4)).Name
		if imm, ok := a4.Imm(); ok != (form4 == "imm") || ok && imm != uint64(a4)&Addr4ImmMask {
			t.Fatalf("%#x: Addr4.Imm = %#x, %v (form %s)", uint32(a4), imm, ok, form4)
		}
		x := New(GenAny, OpDMAIndirect)
		j, _ := indirect1DLayout.LeafIndex("src_idx_start_addr")
		x.SetLeaf(j, uint64(a4))
		if f1, _, fl1 := x.UnionArm(j); true {
			if f2, fl2 := a4.Arm(); f2 != f1 || !reflect.DeepEqual(fl1, fl2) {
				t.Fatalf("%#x: Addr4.Arm = %s %v, UnionArm %s %v", uint32(a4), f2, fl2, f1, fl1)
			}
		}
		if reg, ok := a4.Reg(); ok != (form4 == "reg") || ok && reg != uint8(a4) {
			t.Fatalf("%#x: Addr4.Reg = %d, %v (form %s)", uint32(a4), reg, ok, form4)
		}
	}
	if EvtSemInc(0) != 0x28_0270_1800 || EvtSemInc(255) != 0x28_0270_1800+4*255 {
		t.Error("EvtSemInc")
	}
	if strings.Join(eventsPaths, ",") != "events.wait_mode,events.wait_idx,events.update_mode,events.update_idx,events.semaphore_value" {
		t.Errorf("EventsPaths = %v", eventsPaths)
	}
	for n := 0; n < 200; n++ {
		from, to := typedWord(r, OpPseudoDMATrigger), typedWord(r, OpDMAMemcpy)
		want := to
		for _, p := range eventsPaths {
			v, _ := from.Uint(p)
			want.SetUint(p, v)
		}
		if !to.CopyEvents(&from) || !to.Equal(&want) {
			t.Fatal("CopyEvents differs from copying EventsPaths")
		}
	}
	if x := New(GenAny, OpDMAMemcpy2); x.CopyEvents(&x) {
		t.Error("CopyEvents on a word without EVENTS")
	}
}

// Typed reads against string-path reads of the same fields.
func BenchmarkFieldRead(b *testing.B) {
	in := typedWord(rand.New(rand.NewPCG(1, 1)), OpDMATranspose)
	b.Run("typed", func(b *testing.B) {
		var s int64
		for b.Loop() {
			v, _ := in.Xpose()
			s += int64(v.TileSrcRows()) + v.SrcStepElem(1) + int64(v.DstNumElem(0)) + int64(v.Events().WaitMode())
		}
		_ = s
	})
	b.Run("path", func(b *testing.B) {
		var s int64
		for b.Loop() {
			r, _ := in.Uint("tile_src_rows")
			st, _ := in.Int("src_step_elem[1]")
			n, _ := in.Uint("dst_num_elem[0]")
			w, _ := in.Uint("events.wait_mode")
			s += int64(r) + st + int64(n) + int64(w)
		}
		_ = s
	})
}
