package neff

import (
	"encoding/json"
	"ndma/dtype"
	"strings"
)

// Tensor is what the host side of a NEFF says of a named input or output:
// its dtype string ("float16") and shape.
type Tensor struct {
	Dtype string
	Shape []int
}

// DType is the tensor's type (dtype.FromNEFF: "" is raw bytes, UINT8).
func (t Tensor) DType() (dtype.DType, error) { return dtype.FromNEFF(t.Dtype) }

// Tensors collects the named tensors' dtypes and shapes from neff.json (the
// signature's inputs/outputs, then each node's output entries through
// node_row_ptr, attrs.shape and attrs.dltype — neff.md §4.3) and
// tensor_map.json (§4.6). It is metadata: what does not parse is left out.
func (f *File) Tensors() map[string]Tensor {
	out := map[string]Tensor{}
	if b, ok := f.Member("neff.json"); ok {
		var g struct {
			Nodes []struct {
				Name        string   `json:"name"`
				Op          string   `json:"op"`
				OutputNames []string `json:"output_names"`
			} `json:"nodes"`
			NodeRowPtr []int `json:"node_row_ptr"`
			Attrs      struct {
				Shape  []json.RawMessage `json:"shape"`
				DLType []json.RawMessage `json:"dltype"`
			} `json:"attrs"`
			Metadata struct {
				Signatures map[string]struct {
					Inputs  map[string]Tensor `json:"inputs"`
					Outputs map[string]Tensor `json:"outputs"`
				} `json:"signatures"`
			} `json:"metadata"`
		}
		if json.Unmarshal(b, &g) == nil {
			var shapes [][]int
			var types []string
			if len(g.Attrs.Shape) == 2 {
				json.Unmarshal(g.Attrs.Shape[1], &shapes)
			}
			if len(g.Attrs.DLType) == 2 {
				json.Unmarshal(g.Attrs.DLType[1], &types)
			}
			for i, n := range g.Nodes {
				if i >= len(g.NodeRowPtr) {
					break
				}
				for k, name := range n.OutputNames {
					e := g.NodeRowPtr[i] + k
					if _, seen := out[name]; seen || e < 0 || e >= len(shapes) || e >= len(types) {
						continue
					}
					out[name] = Tensor{types[e], shapes[e]}
				}
			}
			for _, sig := range g.Metadata.Signatures {
				for _, m := range []map[string]Tensor{sig.Inputs, sig.Outputs} {
					for name, t := range m {
						out[name] = t
					}
				}
			}
		}
	}
	for _, mb := range f.Members { // tensor_map.json, at the top or per subgraph (sg00/tensor_map.json)
		if mb.Name != "tensor_map.json" && !strings.HasSuffix(mb.Name, "/tensor_map.json") {
			continue
		}
		var m map[string]struct {
			Dtype   string `json:"dtype"`
			TFShape []int  `json:"tf_shape"`
		}
		if json.Unmarshal(mb.Data, &m) == nil {
			for name, t := range m {
				if _, seen := out[name]; !seen && t.Dtype != "" {
					out[name] = Tensor{t.Dtype, t.TFShape}
				}
			}
		}
	}
	return out
}
