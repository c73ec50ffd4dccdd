package pybridge

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzDispatch: any entry point with any arguments and buffer — what
// Python hands the library — answers a value or a classified error, never
// a panic caught at the bridge (a "panic" answer is a bug the recover
// hid). Entry points that write files at a path the arguments name
// (neff_report, result_timeline) and the bridge's own panic test are left
// out.
func FuzzDispatch(f *testing.F) {
	names := slices.DeleteFunc(Names(), func(n string) bool {
		return n == "panic" || n == "neff_report" || n == "result_timeline"
	})
	word := make([]byte, 64)
	word[0] = 0xb8 // DMAMEMCPY's opcode byte
	seeds := []struct {
		name, args string
		buf        []byte
	}{
		{"asm", `{"text": ".gen cayman\ndmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n", "validate": true}`, nil},
		{"decode", `{"gen": "cayman"}`, word},
		{"disasm", `{"gen": "trn2"}`, word},
		{"validate", `{"gen": "cayman"}`, word},
		{"lower", `{"gen": "cayman"}`, word},
		{"describe", `{"opcode": "DMAMEMCPY", "gen": "cayman"}`, nil},
		{"convert", `{"from": "bfloat16", "to": "float32"}`, []byte{0, 0x3f, 0x80, 0x3f}},
		{"device_new", `{"gen": "cayman", "cores": 1}`, nil},
		{"device_write", `{"handle": 1, "addr": 4294967296}`, []byte{1, 2, 3}},
		{"neff_open", `{"path": "/nonexistent.neff"}`, nil},
	}
	for _, s := range seeds {
		if i := slices.Index(names, s.name); i >= 0 {
			f.Add(uint8(i), []byte(s.args), s.buf)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args, buf []byte) {
		name := names[int(which)%len(names)]
		answer, _ := Dispatch(name, args, [][]byte{buf})
		var a struct {
			Error *struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(answer, &a); err != nil {
			t.Fatalf("%s(%q): the answer is no JSON: %v", name, args, err)
		}
		if a.Error != nil && a.Error.Kind == "panic" {
			t.Fatalf("%s(%q): %s", name, args, a.Error.Message)
		}
	})
}
