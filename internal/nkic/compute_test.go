package nkic

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"ndma/dtype"
)

func f64p(v float64) *float64 { return &v }

// A vector add kernel (the NKI tutorial's), then each compute call on its
// tile, against plain loops.
func TestComputeCalls(t *testing.T) {
	const P, F = 128, 64
	a := f32s(P*F, func(i int) float32 { return float32(i%97) - 40 })
	b := f32s(P*F, func(i int) float32 { return float32(i%13) * 0.5 })
	cases := []struct {
		name  string
		call  *Call
		want  func(x, y float32, p, f int) float32
		exact bool
	}{
		{"tensor_tensor add", &Call{Op: "tensor_tensor", Srcs: []*AP{whole("ta"), whole("tb")}, ALUOp: "add"}, func(x, y float32, _, _ int) float32 { return x + y }, true},
		{"tensor_tensor maximum", &Call{Op: "tensor_tensor", Srcs: []*AP{whole("ta"), whole("tb")}, ALUOp: "maximum"}, func(x, y float32, _, _ int) float32 { return max(x, y) }, true},
		{"tensor_scalar", &Call{Op: "tensor_scalar", Src: whole("ta"), ALUOp: "multiply", Operand0: f64p(2), ALUOp1: "add", Operand1: f64p(1)}, func(x, _ float32, _, _ int) float32 { return x*2 + 1 }, true},
		{"activation relu", &Call{Op: "activation", Src: whole("ta"), Func: "relu"}, func(x, _ float32, _, _ int) float32 { return max(x, 0) }, true},
		{"tensor_copy", &Call{Op: "tensor_copy", Src: whole("tb")}, func(_, y float32, _, _ int) float32 { return y }, true},
		{"memset", &Call{Op: "memset", Value: f64p(3.5)}, func(_, _ float32, _, _ int) float32 { return 3.5 }, true},
		{"iota", &Call{Op: "iota", Value: f64p(7), Coefs: []int64{100, 1}}, func(_, _ float32, p, f int) float32 { return float32(7 + 100*p + f) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Dst = whole("tc")
			tc.call.Line = 9
			p := build(t, "trn2", []*Tensor{
				ten("a", "hbm", "float32", "input", P, F), ten("b", "hbm", "float32", "input", P, F),
				ten("ta", "sbuf", "float32", "", P, F), ten("tb", "sbuf", "float32", "", P, F), ten("tc", "sbuf", "float32", "", P, F),
				ten("out", "hbm", "float32", "output", P, F),
			},
				&Call{Op: "load", Dst: whole("ta"), Src: whole("a")}, &Call{Op: "load", Dst: whole("tb"), Src: whole("b")},
				tc.call, &Call{Op: "store", Dst: whole("out"), Src: whole("tc")})
			out, tr := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, P, F), "b": arr(dtype.FP32, b, P, F)})
			for i := range P * F {
				if got, want := getF32(out["out"].Data, i), tc.want(getF32(a, i), getF32(b, i), i/F, i%F); got != want {
					t.Fatalf("out[%d][%d] = %v, want %v", i/F, i%F, got, want)
				}
			}
			if c := tr.Calls[2]; c.Kind != "compute" || c.Exact != tc.exact || c.Engine == "" {
				t.Errorf("trace: %+v", c)
			}
		})
	}
}

// FuzzParse: the JSON reader and the compiler refuse any input with an
// error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[4,4],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,4]}],"calls":[{"op":"dma_copy","dst":{"tensor":"t"},"src":{"tensor":"a","pattern":[[4,4],[1,4]]}}]}`))
	f.Add([]byte(`{"tensors":[{"name":"i","buffer":"sbuf","dtype":"uint32","shape":[2,1]},{"name":"a","buffer":"hbm","dtype":"float16","shape":[16,8]},{"name":"t","buffer":"sbuf","dtype":"float16","shape":[2,8]}],"calls":[{"op":"dma_copy","dst":{"tensor":"t"},"src":{"tensor":"a","pattern":[[8,2],[1,8]],"vector_offset":{"tensor":"i"}},"oob_mode":"skip"},{"op":"dma_transpose","dst":{"tensor":"t"},"src":{"tensor":"a","slices":[[0,16,1],[0,2,1]]}}]}`))
	f.Add([]byte(`{"target":"trn1","tensors":[],"calls":[{"op":"memset"}]}`))
	f.Add([]byte(`{"tensors":[{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,2,3]},{"name":"r","buffer":"sbuf","dtype":"float16","shape":[4,3]}],"calls":[{"op":"tensor_reduce","dst":{"tensor":"r"},"src":{"tensor":"t"},"axes":[1],"alu_op":"mean","negate":true},{"op":"tensor_reduce","dst":{"tensor":"r"},"src":{"tensor":"t","slices":[[0,1,1],[0,2,1],[0,3,1]]},"axes":[0,1],"alu_op":"all"}]}`))
	f.Add([]byte(`{"tensors":[{"name":"w","buffer":"sbuf","dtype":"float16","shape":[4,3]},{"name":"x","buffer":"sbuf","dtype":"float16","shape":[4,600]},{"name":"p","buffer":"psum","dtype":"float32","shape":[3,600]}],"calls":[{"op":"nc_matmul","dst":{"tensor":"p"},"stationary":{"tensor":"w","slices":[[0,4,1],[0,3,1]]},"moving":{"tensor":"x"},"accumulate":true},{"op":"matmul","dst":{"tensor":"p","slices":[[0,3,1],[0,4,1]]},"stationary":{"tensor":"w","slices":[[0,3,1],[0,4,1]]},"moving":{"tensor":"x","slices":[[0,4,1],[0,4,1]]}}]}`))
	f.Add([]byte(`{"tensors":[{"name":"i","buffer":"sbuf","dtype":"bfloat16","shape":[8,8]},{"name":"a","buffer":"sbuf","dtype":"bfloat16","shape":[5,3]},{"name":"p","buffer":"psum","dtype":"bfloat16","shape":[3,5]}],"calls":[{"op":"identity","dst":{"tensor":"i"}},{"op":"nc_transpose","dst":{"tensor":"p"},"src":{"tensor":"a"},"identity":{"tensor":"i","slices":[[0,5,1],[0,5,1]]}}]}`))
	f.Add([]byte(`{"tensors":[{"name":"s","buffer":"sbuf","dtype":"int32","shape":[1,1]},{"name":"x","buffer":"sbuf","dtype":"bfloat16","shape":[4,8]},{"name":"q","buffer":"sbuf","dtype":"float32","shape":[4,1]}],"calls":[{"op":"random_seed","src":{"tensor":"s"}},{"op":"random_seed","value":42},{"op":"rand","dst":{"tensor":"x"}},{"op":"dropout","dst":{"tensor":"x"},"srcs":[{"tensor":"x"},{"tensor":"q"}]},{"op":"dropout","dst":{"tensor":"x"},"srcs":[{"tensor":"x"}],"value":0.25},{"op":"elementwise","dst":{"tensor":"x"},"src":{"tensor":"x"},"func":"floor"}]}`))
	f.Add([]byte(`{"tensors":[{"name":"x","buffer":"sbuf","dtype":"float32","shape":[4,16]},{"name":"m","buffer":"sbuf","dtype":"float32","shape":[4,1]},{"name":"v","buffer":"sbuf","dtype":"float32","shape":[4,8]},{"name":"u","buffer":"sbuf","dtype":"uint32","shape":[4,16]}],"calls":[{"op":"range_select","dst":{"tensor":"x"},"src":{"tensor":"x"},"alu_op":"less","alu_op1":"less","operand0":1,"operand1":"inf","reduce_res":{"tensor":"m"}},{"op":"select_reduce","dst":{"tensor":"x"},"srcs":[{"tensor":"u"},{"tensor":"x"}],"value":"nan"},{"op":"nc_match_replace8","dst":{"tensor":"x"},"srcs":[{"tensor":"x"},{"tensor":"v"}],"value":"-inf"},{"op":"gather_flattened","dst":{"tensor":"x"},"srcs":[{"tensor":"x"},{"tensor":"u"}]}]}`))
	f.Add([]byte(`{"target":"trn3","tensors":[{"name":"u","buffer":"sbuf","dtype":"uint8","shape":[4,16]},{"name":"x","buffer":"sbuf","dtype":"bfloat16","shape":[4,16]},{"name":"m","buffer":"sbuf","dtype":"float32","shape":[4,1]}],"calls":[{"op":"rng","dst":{"tensor":"u"}},{"op":"rand2","dst":{"tensor":"x"},"operand0_tile":{"tensor":"m"},"operand1":"inf"},{"op":"rand2","dst":{"tensor":"u"},"operand0":-1,"operand1":3}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "panic") {
				t.Fatal(err)
			}
			return
		}
		if lws, err := p.Compile(); err == nil {
			for _, lw := range lws {
				if lw.Mode != "" && len(lw.Run) == 0 && !lw.skip {
					t.Fatalf("%s compiled to no word", lw.Call.Where())
				}
			}
		}
	})
}

// iota into an integer tile writes the exact integers — 2^24 + 1 and past,
// which float32 would round — and refuses, when it compiles, values its
// dtype cannot hold or a non-integer offset; expectations by a plain loop.
func TestIotaIntegerExactAndRanged(t *testing.T) {
	const P, F = 4, 8
	prog := func(base float64, coef int64, dt string) *Program {
		return build(t, "trn2", []*Tensor{ten("t", "sbuf", dt, "", P, F), ten("o", "hbm", dt, "output", P, F)},
			&Call{Op: "iota", Dst: whole("t"), Coefs: []int64{coef, 1}, Value: f64p(base)},
			&Call{Op: "store", Dst: whole("o"), Src: whole("t")})
	}
	base := int64(1<<24 + 1)
	out, _ := run(t, prog(float64(base), 3, "int32"), nil)
	for p := range P {
		for f := range F {
			k := p*F + f
			if got, want := int32(binary.LittleEndian.Uint32(out["o"].Data[4*k:])), int32(base+3*int64(p)+int64(f)); got != want {
				t.Fatalf("[%d, %d] = %d, want %d", p, f, got, want)
			}
		}
	}
	for _, tc := range []struct {
		base float64
		coef int64
		dt   string
		want string
	}{
		{1<<31 - 10, 3, "int32", "iota into a INT32 tile: values 2147483638 to 2147483654"},
		{-(1 << 31), -1, "int32", "values -2147483651 to"},
		{0, 1, "uint8", ""}, // 0 to 10: fits
		{250, 1, "uint8", "values 250 to 260, the dtype holds 0 to 255"},
		{0.5, 1, "int32", "value 0.5 is not an integer"},
		{0, math.MaxInt64, "int64", "the dtype holds"}, // 3·(2^63 − 1): no int64 wrap
	} {
		_, err := prog(tc.base, tc.coef, tc.dt).Compile()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v %d %s: %v", tc.base, tc.coef, tc.dt, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %d %s: %v; want %q", tc.base, tc.coef, tc.dt, err, tc.want)
		}
	}
}
