package nkic

import (
	"bytes"
	"testing"
)

// FuzzRun: any program that parses and compiles runs to outputs or an
// error, never a panic, on both executors and the fast path; when the
// engines and the reference both finish, their outputs are the same bytes.
// Inputs are generated from the fuzzer's seed byte; a program whose HBM
// tensors pass 1 MiB is skipped (memory follows the tensors it declares).
func FuzzRun(f *testing.F) {
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,4],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[8,4]},{"name":"m","buffer":"sbuf","dtype":"float32","shape":[8,1]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,1],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"tensor_reduce","dst":{"tensor":"m"},"src":{"tensor":"t"},"axes":[1],"alu_op":"max"},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"m"}}]}`), byte(3))
	f.Add([]byte(`{"tensors":[{"name":"i","buffer":"sbuf","dtype":"uint32","shape":[2,1]},{"name":"a","buffer":"hbm","dtype":"float16","shape":[16,8],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float16","shape":[2,8]},{"name":"o","buffer":"hbm","dtype":"float16","shape":[2,8],"kind":"output"}],"calls":[{"op":"dma_copy","dst":{"tensor":"t"},"src":{"tensor":"a","pattern":[[8,2],[1,8]],"vector_offset":{"tensor":"i"}},"oob_mode":"skip"},{"op":"activation","dst":{"tensor":"t"},"src":{"tensor":"t"},"func":"exp"},{"op":"dma_copy","dst":{"tensor":"o"},"src":{"tensor":"t"}}]}`), byte(200))
	f.Add([]byte(`{"target":"trn1","tensors":[{"name":"x","buffer":"hbm","dtype":"float32","shape":[4,16],"kind":"input"},{"name":"s","buffer":"sbuf","dtype":"float32","shape":[4,16]},{"name":"p","buffer":"psum","dtype":"float32","shape":[16,16]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[16,16],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"s"},"src":{"tensor":"x"}},{"op":"nc_matmul","dst":{"tensor":"p"},"stationary":{"tensor":"s"},"moving":{"tensor":"s"}},{"op":"dma_copy","dst":{"tensor":"o"},"src":{"tensor":"p"}}]}`), byte(7))
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,4],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[8,4]},{"name":"m","buffer":"sbuf","dtype":"float32","shape":[8,1]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,4],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"load","dst":{"tensor":"m"},"src":{"tensor":"a","pattern":[[4,8],[1,1]]}},{"op":"tensor_scalar","dst":{"tensor":"t"},"src":{"tensor":"t"},"alu_op":"subtract","operand0_tile":{"tensor":"m"},"reverse0":true},{"op":"activation","dst":{"tensor":"t"},"src":{"tensor":"t"},"func":"exp","bias_tile":{"tensor":"m"}},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"t"}}]}`), byte(9))
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,12],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[8,12]},{"name":"s","buffer":"sbuf","dtype":"float32","shape":[8,6]},{"name":"mv","buffer":"sbuf","dtype":"float32","shape":[8,2]},{"name":"c","buffer":"sbuf","dtype":"float32","shape":[8,1]},{"name":"u","buffer":"sbuf","dtype":"float32","shape":[8,12]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,12],"kind":"output"},{"name":"o2","buffer":"hbm","dtype":"float32","shape":[8,2],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"load","dst":{"tensor":"c"},"src":{"tensor":"a","pattern":[[12,8],[1,1]]}},{"op":"bn_stats","dst":{"tensor":"s"},"src":{"tensor":"t"}},{"op":"bn_aggr","dst":{"tensor":"mv"},"src":{"tensor":"s"}},{"op":"activation","dst":{"tensor":"u"},"src":{"tensor":"t"},"func":"exp","scale_tile":{"tensor":"c"}},{"op":"tensor_tensor_scan","dst":{"tensor":"u"},"srcs":[{"tensor":"t"},{"tensor":"u"}],"alu_op":"multiply","alu_op1":"add","initial_tile":{"tensor":"c"},"reverse1":true},{"op":"scalar_tensor_tensor","dst":{"tensor":"u"},"srcs":[{"tensor":"u"},{"tensor":"t"}],"alu_op":"subtract","operand0":1.5,"alu_op1":"multiply"},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"u"}},{"op":"store","dst":{"tensor":"o2"},"src":{"tensor":"mv"}}]}`), byte(5))
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,16],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[8,16]},{"name":"v","buffer":"sbuf","dtype":"float32","shape":[8,8]},{"name":"i","buffer":"sbuf","dtype":"uint32","shape":[8,8]},{"name":"p","buffer":"sbuf","dtype":"uint8","shape":[8,16]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,16],"kind":"output"},{"name":"oi","buffer":"hbm","dtype":"uint32","shape":[8,8],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"affine_select","dst":{"tensor":"t"},"src":{"tensor":"t"},"coefs":[1,-1],"operand0":2,"alu_op":"greater_equal","value":-9984},{"op":"max8","dst":{"tensor":"v"},"src":{"tensor":"t"}},{"op":"nc_find_index8","dst":{"tensor":"i"},"srcs":[{"tensor":"t"},{"tensor":"v"}]},{"op":"select","dst":{"tensor":"t"},"srcs":[{"tensor":"t"},{"tensor":"t"}],"value":1.5},{"op":"tensor_copy","dst":{"tensor":"p"},"src":{"tensor":"t"}},{"op":"tensor_copy_predicated","dst":{"tensor":"t"},"srcs":[{"tensor":"p"}],"value":3,"reverse0":true},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"t"}},{"op":"store","dst":{"tensor":"oi"},"src":{"tensor":"i"}}]}`), byte(5))
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[8,16],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[8,16]},{"name":"s","buffer":"sbuf","dtype":"int32","shape":[1,1]},{"name":"q","buffer":"sbuf","dtype":"float32","shape":[8,1]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[8,16],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"memset","dst":{"tensor":"s"},"value":7},{"op":"random_seed","src":{"tensor":"s"}},{"op":"rand","dst":{"tensor":"q"}},{"op":"dropout","dst":{"tensor":"t"},"srcs":[{"tensor":"t"},{"tensor":"q"}]},{"op":"random_seed","value":3},{"op":"rng","dst":{"tensor":"s"}},{"op":"dropout","dst":{"tensor":"t"},"srcs":[{"tensor":"t"}],"value":0.5},{"op":"elementwise","dst":{"tensor":"t"},"src":{"tensor":"t"},"func":"trunc"},{"op":"tensor_scalar","dst":{"tensor":"t"},"src":{"tensor":"t"},"alu_op":"divide","operand0":1,"reverse0":true},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"t"}}]}`), byte(11))
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[4,16],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,16]},{"name":"m","buffer":"sbuf","dtype":"float32","shape":[4,1]},{"name":"p","buffer":"sbuf","dtype":"uint8","shape":[4,16]},{"name":"v","buffer":"sbuf","dtype":"float32","shape":[4,8]},{"name":"i","buffer":"sbuf","dtype":"uint32","shape":[4,8]},{"name":"g","buffer":"sbuf","dtype":"float32","shape":[4,8]},{"name":"o","buffer":"hbm","dtype":"float32","shape":[4,8],"kind":"output"}],"calls":[{"op":"load","dst":{"tensor":"t"},"src":{"tensor":"a"}},{"op":"range_select","dst":{"tensor":"t"},"src":{"tensor":"t"},"alu_op":"greater_equal","alu_op1":"less","operand0":2,"operand1_tile":{"tensor":"m"},"range_start":1,"value":"-inf","reduce_res":{"tensor":"m"}},{"op":"tensor_copy","dst":{"tensor":"p"},"src":{"tensor":"t"}},{"op":"select_reduce","dst":{"tensor":"t"},"srcs":[{"tensor":"p"},{"tensor":"t"}],"operand0_tile":{"tensor":"m"},"reverse0":true,"reduce_res":{"tensor":"m"}},{"op":"max8","dst":{"tensor":"v"},"src":{"tensor":"t"}},{"op":"nc_match_replace8","dst":{"tensor":"t"},"srcs":[{"tensor":"t"},{"tensor":"v"}],"value":0,"dst_idx":{"tensor":"i"}},{"op":"gather_flattened","dst":{"tensor":"g"},"srcs":[{"tensor":"t"},{"tensor":"i"}]},{"op":"store","dst":{"tensor":"o"},"src":{"tensor":"g"}}]}`), byte(2))
	f.Fuzz(func(t *testing.T, b []byte, seed byte) {
		p, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		in := map[string]*Array{}
		var hbm int64
		for _, tn := range p.Tensors {
			if !tn.chip {
				hbm += tn.elems * int64(tn.esize)
			}
		}
		if hbm > 1<<20 {
			t.Skip("over 1 MiB of HBM tensors")
		}
		for _, tn := range p.Tensors {
			if tn.Kind == "input" {
				data := make([]byte, tn.elems*int64(tn.esize))
				for i := range data {
					data[i] = byte(i)*31 + seed
				}
				in[tn.Name] = &Array{DType: tn.dt, Shape: tn.Shape, Data: data}
			}
		}
		lws, err := p.Compile()
		if err != nil {
			return
		}
		sim, _, errSim := RunCompiled(p, lws, in, Options{})
		ref, _, errRef := RunCompiled(p, lws, in, Options{Ref: true})
		_, _, _ = RunCompiled(p, lws, in, Options{Fast: true})
		if errSim != nil || errRef != nil {
			return
		}
		for k, a := range sim {
			if !bytes.Equal(a.Data, ref[k].Data) {
				t.Fatalf("output %q: the engines and the reference differ", k)
			}
		}
	})
}
