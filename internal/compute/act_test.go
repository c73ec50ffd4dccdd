package compute_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"ndma/internal/compute"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
)

// activate is an ACTIVATE word's text.
func activateText(src, dst pat, inDT, outDT string, ch int, fn uint8, scale float32, biasSrc string, bias uint64) string {
	return fmt.Sprintf("activate %s, in_dtype=%s, bias_dtype=FP32, out_dtype=%s, bias_src_n=%s, num_active_channels=%d, activation_func=%#x, scale_value=%s, bias=%#x, %s",
		src.text("src_mem_pattern", 3), inDT, outDT, biasSrc, ch, fn, f32bits(scale), bias, dst.text("dst_mem_pattern", 3))
}

// TestActivateBias: the trn1 bias add — ACTIVATE identity (0x01) of a PSUM
// FP32 tile plus a per-partition FP32 bias read through a pointer (it names
// partition 0; partition p reads its own copy), written as FP16. The spec:
// convert to FP32, compute scale·x + bias in FP32, round to the out dtype
// (to nearest even).
func TestActivateBias(t *testing.T) {
	for trial := range testutil.Trials(12) {
		r := rand.New(rand.NewPCG(uint64(trial), 21))
		g := []isa.Gen{isa.Cayman, isa.Sunda}[trial%2]
		ch := []int{128, 1, 37, 100}[trial%4]
		p0 := 0
		if ch < 128 {
			p0 = r.IntN(128 - ch + 1)
		}
		n := 1 + r.IntN(444)
		scale := float32(1)
		if trial%3 == 2 {
			scale = randF32(r, 3)
		}
		src := ps(p0, 4*r.IntN(512), []int{1}, []int{n})
		if trial%4 == 3 && n%2 == 0 { // two rows, read backwards
			src = ps(p0, 0x1000, []int{1, -n / 2}, []int{n / 2, 2})
		}
		dst := sb(p0, 0x2000+2*r.IntN(100), []int{1}, []int{n})
		biasOff := 0x46f0
		t.Run(fmt.Sprintf("%s_ch%d_p%d_n%d", g, ch, p0, n), func(t *testing.T) {
			m := mem.New(g)
			e := compute.New(g)
			want := make([][]uint16, ch)
			for k := range ch {
				b := randF32(r, 4)
				putF32(t, m, sbufAddr(p0+k, biasOff), b)
				want[k] = make([]uint16, n)
				for i, a := range src.byteAddrs(k, 4) {
					x := randF32(r, 1000)
					putF32(t, m, a, x)
					want[k][i] = toF16(float64(float32(scale*x) + b))
				}
			}
			if p0 > 0 { // a partition that does not run keeps its bytes
				putU16(t, m, dst.byteAddrs(-1, 2)[0], 0xabcd)
			}
			exec(t, e, m, word(t, g, "%s", activateText(src, dst, "FP32", "FP16", ch, 0x01, scale, "POINTER_IMMEDIATE", sbufAddr(0, biasOff))))
			for k := range ch {
				for i, a := range dst.byteAddrs(k, 2) {
					if got := getU16(t, m, a); got != want[k][i] {
						t.Fatalf("partition %d element %d: %#04x (%g), want %#04x (%g)", p0+k, i, got, f16(got), want[k][i], f16(want[k][i]))
					}
				}
			}
			if p0 > 0 && getU16(t, m, dst.byteAddrs(-1, 2)[0]) != 0xabcd {
				t.Fatal("the partition before the active ones was written")
			}
		})
	}
}

// TestActivateCopy: function 0x80 with the immediate bias 0.0 and scale
// 1.0 moves data: the trn1 weight reshuffle (3 × 128 FP16 read with step 9,
// written as 384 contiguous, bit-exact) and the eviction of an FP32 PSUM
// tile to FP16 SBUF (rounded to nearest even).
func TestActivateCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(80, 80))
	g := isa.Sunda
	m := mem.New(g)
	e := compute.New(g)
	src := sb(0, 0x100, []int{9, 1}, []int{128, 3})
	dst := sb(0, 0x8000, []int{1}, []int{384})
	want := map[uint64]uint16{}
	for k := range 128 {
		for _, a := range src.byteAddrs(k, 2) {
			h := randF16(r)
			putU16(t, m, a, h)
		}
		da := dst.byteAddrs(k, 2)
		for i, a := range src.byteAddrs(k, 2) {
			want[da[i]] = getU16(t, m, a)
		}
	}
	exec(t, e, m, word(t, g, "%s", activateText(src, dst, "FP16", "FP16", 128, 0x80, 1, "INSTRUCTION_IMMEDIATE", 0)))
	for a, h := range want {
		if got := getU16(t, m, a); got != h {
			t.Fatalf("%#x: %#04x, want %#04x", a, got, h)
		}
	}

	// eviction with halfway values: FP32 → FP16 ties to even
	ev := ps(3, 0x40, []int{1}, []int{6})
	out := sb(3, 0x9000, []int{1}, []int{6})
	vals := []float32{1 + 1.0/2048, 1 + 3.0/2048, -(1 + 1.0/2048), 65519, 65520, float32(math.Ldexp(1, -25))}
	wantH := []uint16{0x3c00, 0x3c02, 0xbc00, 0x7bff, 0x7c00, 0}
	for i, v := range vals {
		putF32(t, m, ev.byteAddrs(0, 4)[i], v)
	}
	exec(t, e, m, word(t, g, "%s", activateText(ev, out, "FP32", "FP16", 1, 0x80, 1, "INSTRUCTION_IMMEDIATE", 0)))
	for i, a := range out.byteAddrs(0, 2) {
		if got := getU16(t, m, a); got != wantH[i] || toF16(float64(vals[i])) != wantH[i] {
			t.Errorf("fp16(%g) = %#04x, want %#04x", vals[i], got, wantH[i])
		}
	}
}

// TestActivateFunctions: spot values of the named functions against their
// formulas, FP32 in and out, with the immediate scale and bias applied
// first (F(scale·x + bias)).
func TestActivateFunctions(t *testing.T) {
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	fns := []struct {
		code uint8
		name string
		f    func(float64) float64
	}{
		{0x01, "identity", func(x float64) float64 { return x }},
		{0x02, "relu", func(x float64) float64 { return math.Max(x, 0) }},
		{0x05, "sigmoid", sig},
		{0x07, "exp", math.Exp},
		{0x17, "gelu", func(x float64) float64 { return x / 2 * (1 + math.Erf(x/math.Sqrt2)) }},
		{0x24, "silu", func(x float64) float64 { return x * sig(x) }},
		{0x06, "tanh", math.Tanh},
	}
	names := map[uint8]string{}
	for _, f := range compute.ActFuncs() {
		names[f.Code] = f.Name
	}
	xs := []float32{-6, -3, -1, -0.5, -0.125, 0, 0.25, 0.5, 1, 2, 3.5, 8}
	for _, sc := range []struct{ scale, bias float32 }{{1, 0}, {2, -0.25}, {-0.5, 1}} {
		for _, fn := range fns {
			t.Run(fmt.Sprintf("%s_s%g_b%g", fn.name, sc.scale, sc.bias), func(t *testing.T) {
				if names[fn.code] != fn.name {
					t.Fatalf("ActFuncs names %#x %q, the test %q", fn.code, names[fn.code], fn.name)
				}
				m := mem.New(isa.Cayman)
				e := compute.New(isa.Cayman)
				src := sb(5, 0x40, []int{1}, []int{len(xs)})
				dst := sb(5, 0x400, []int{1}, []int{len(xs)})
				for k := range 2 {
					for i, a := range src.byteAddrs(k, 4) {
						putF32(t, m, a, xs[i])
					}
				}
				exec(t, e, m, word(t, isa.Cayman, "%s", activateText(src, dst, "FP32", "FP32", 2, fn.code, sc.scale, "INSTRUCTION_IMMEDIATE", uint64(math.Float32bits(sc.bias)))))
				for k := range 2 {
					for i, a := range dst.byteAddrs(k, 4) {
						x := float64(sc.scale)*float64(xs[i]) + float64(sc.bias)
						want := fn.f(x)
						got := float64(getF32(t, m, a))
						if math.Abs(got-want) > 1e-6*math.Abs(want)+1e-7 {
							t.Errorf("%s(%g·%g%+g = %g) = %.9g, want %.9g", fn.name, sc.scale, xs[i], sc.bias, x, got, want)
						}
					}
				}
			})
		}
	}
}

// TestActivateUnknownFunction: a function byte ndma does not model is
// refused with isa.ErrUnsupported (never run as an identity) and the
// destination keeps its bytes.
func TestActivateUnknownFunction(t *testing.T) {
	for _, code := range []uint8{0x7f, 0x00, 0xff, 0x27} {
		m := mem.New(isa.Cayman)
		e := compute.New(isa.Cayman)
		src := sb(0, 0, []int{1}, []int{16})
		dst := sb(0, 0x100, []int{1}, []int{16})
		r := rand.New(rand.NewPCG(uint64(code), 1))
		for k := range 128 {
			for _, a := range src.byteAddrs(k, 4) {
				putF32(t, m, a, randF32(r, 10))
			}
			for _, a := range dst.byteAddrs(k, 4) {
				putU32(t, m, a, 0xdeadbeef)
			}
		}
		before := get(t, m, dst.addr(0), 64)
		err := e.Exec(m, word(t, isa.Cayman, "%s", activateText(src, dst, "FP32", "FP32", 128, code, 1, "INSTRUCTION_IMMEDIATE", 0)))
		if !errors.Is(err, isa.ErrUnsupported) {
			t.Fatalf("function %#x: %v, want isa.ErrUnsupported", code, err)
		}
		var f *compute.Fault
		if !errors.As(err, &f) || f.Mnemonic != "ACTIVATE" || f.Field != "activation_func" {
			t.Fatalf("function %#x: %#v", code, f)
		}
		for k := range 128 {
			if got := get(t, m, dst.addr(k), 64); !bytes.Equal(got, before) {
				t.Fatalf("function %#x: partition %d's destination changed: % x", code, k, got)
			}
		}
	}
}
