package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/internal/array"
	"ndma/internal/neffgen"
	"ndma/neff"
)

// jsonSchema is one ```schema block of docs/json.md: each documented path
// (`transfers[].src.address`, `[]` an array's elements, `{}` a map's
// values) with the JSON types it may hold; `object*` is an object the
// test does not look into, `@NAME` the block NAME rooted there.
type jsonSchema struct {
	name  string
	types map[string][]string
	order []string
}

// docSchemas reads every ```schema block of docs/json.md by name (its
// first line, `# NAME`).
func docSchemas(t *testing.T) map[string]*jsonSchema {
	t.Helper()
	b, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonSchema{}
	var cur *jsonSchema
	for n, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "```schema":
			cur = &jsonSchema{types: map[string][]string{}}
		case cur != nil && line == "```":
			out[cur.name], cur = cur, nil
		case cur != nil && cur.name == "":
			cur.name = strings.TrimSpace(strings.TrimPrefix(line, "#"))
		case cur != nil:
			f := strings.Fields(line)
			if len(f) != 2 {
				t.Fatalf("docs/json.md:%d: want PATH TYPES, have %q", n+1, line)
			}
			if _, twice := cur.types[f[0]]; twice {
				t.Fatalf("docs/json.md:%d: %s listed twice", n+1, f[0])
			}
			cur.types[f[0]] = strings.Split(f[1], "|")
			cur.order = append(cur.order, f[0])
		}
	}
	return out
}

// jsonType is the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// schemaCheck walks decoded JSON against the docs' schemas, noting the
// paths it met.
type schemaCheck struct {
	t     *testing.T
	docs  map[string]*jsonSchema
	seen  map[string]map[string]bool // schema name → paths met
	where string                     // the command, for messages
}

// join is a child path: p.key, p[], p{}.
func join(p, k string) string {
	if p == "" || strings.HasPrefix(k, "[") || strings.HasPrefix(k, "{") {
		return p + k
	}
	return p + "." + k
}

func (c *schemaCheck) check(s *jsonSchema, p string, v any) {
	got := jsonType(v)
	want := []string{"array"}
	if p != "" {
		want = s.types[p]
	} else if _, ok := s.types["[]"]; !ok {
		want = []string{"object"}
	}
	for _, w := range want {
		if ref, ok := strings.CutPrefix(w, "@"); ok && got != "null" {
			sub := c.docs[ref]
			if sub == nil {
				c.t.Fatalf("docs/json.md %s: %s refers to no schema %q", s.name, p, ref)
			}
			c.mark(s, p)
			c.check(sub, "", v)
			return
		}
	}
	if !slices.Contains(want, got) && !(got == "object" && slices.Contains(want, "object*")) {
		c.t.Errorf("%s: %s is %s, docs/json.md (%s) says %s", c.where, orRoot(p), got, s.name, strings.Join(want, "|"))
		return
	}
	c.mark(s, p)
	if slices.Contains(want, "object*") {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			c.check(s, join(p, "[]"), e)
		}
	case map[string]any:
		if _, isMap := s.types[join(p, "{}")]; isMap {
			for _, e := range x {
				c.check(s, join(p, "{}"), e)
			}
			return
		}
		for _, q := range s.order { // every documented key present in every object: no omitempty
			if k, ok := childKey(p, q); ok {
				if _, has := x[k]; !has {
					c.t.Errorf("%s: %s has no key %q (docs/json.md %s lists it)", c.where, orRoot(p), k, s.name)
				}
			}
		}
		for k, e := range x {
			q := join(p, k)
			if _, doc := s.types[q]; !doc {
				c.t.Errorf("%s: key %s is not in docs/json.md (%s)", c.where, q, s.name)
				continue
			}
			c.check(s, q, e)
		}
	}
}

func (c *schemaCheck) mark(s *jsonSchema, p string) {
	if c.seen[s.name] == nil {
		c.seen[s.name] = map[string]bool{}
	}
	c.seen[s.name][p] = true
}

// childKey is the key q names under object path p, when q is one.
func childKey(p, q string) (string, bool) {
	rest := q
	if p != "" {
		var ok bool
		if rest, ok = strings.CutPrefix(q, p+"."); !ok {
			return "", false
		}
	}
	if rest == "" || strings.ContainsAny(rest, ".[{") {
		return "", false
	}
	return rest, true
}

func orRoot(p string) string {
	if p == "" {
		return "the document"
	}
	return p
}

// jsonInputs writes the files the schema test runs the commands on.
type jsonInputs struct {
	dir                                     string
	neffs                                   []string // the sample and the synthetic shapes
	hw, gather, bad, hash, mixed, word, bin string
}

func newJSONInputs(t *testing.T) *jsonInputs {
	dir := t.TempDir()
	in := &jsonInputs{dir: dir, neffs: []string{samplePath(t)}}
	for _, s := range neffgen.Shapes("cayman") {
		in.neffs = append(in.neffs, writeNEFF(t, dir, s.Name+".neff", s.Program))
	}
	in.hw = writeNEFF(t, dir, "hw.neff", neffgen.HWVectorAdd("cayman"))
	in.gather = writeNEFF(t, dir, "gather.neff", neffgen.Gather(8, false))
	in.neffs = append(in.neffs, in.hw, in.gather)
	in.bad = badCheckNEFF(t, dir)
	// a header hash that matches no digest of the payload: a container warning
	raw := mustRead(t, in.neffs[1])
	raw[0xac] ^= 0xff
	in.hash = filepath.Join(dir, "hash.neff")
	if err := os.WriteFile(in.hash, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// field-tables §11.5's gather of 16 elements: lanes 3 and 5 out of bounds
	in.mixed = filepath.Join(dir, "mixed.npy")
	writeU32NPY(t, in.mixed, 0, 1, 2, 99, 15, 0xffffffff, 13, 12)
	in.word = "../../examples/memcpy.s"
	obj, err := asm.Assemble("memcpy.s", mustRead(t, in.word), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := slices.Clone(obj.Code[:64])
	code[40], code[63] = 0xff, 0xff // out_dtype 0xff: INVALID, a validation problem
	in.bin = filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(in.bin, code, 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// writeU32NPY writes v as a <u4 .npy at path.
func writeU32NPY(t *testing.T, path string, v ...uint32) {
	t.Helper()
	var b bytes.Buffer
	data := make([]byte, 4*len(v))
	for i, x := range v {
		data[4*i], data[4*i+1], data[4*i+2], data[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	if err := array.Write(&b, &array.Array{Descr: "<u4", Shape: []int{len(v)}, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// badCheckNEFF is TestNEFFCheckProblems' NEFF: a 0xd4 word naming an
// unknown var, a table index past its list, a semaphore no queue has.
func badCheckNEFF(t *testing.T, dir string) string {
	t.Helper()
	obj, err := asm.Assemble("w.s", []byte(`.gen cayman
pseudo_dma_direct2d semaphore=9, src_start_addr=var(7), dst_start_addr=tbl(3), src_num_elem=[1, 1], dst_num_elem=[1, 1],
    src_elem_size=4, dst_elem_size=4, in_dtype=u32, out_dtype=u32
`), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := neff.Build([]neff.Member{
		{Name: "kelf-0.json", Data: []byte(`{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "target": "cayman"}`)},
		{Name: "sg00/def.json", Data: []byte(`{"pool": "Pool.json",
  "var": {"SB": {"type": "state-buffer", "var_id": 0}, "x": {"type": "input", "size": 64, "var_id": 3},
          "T": {"type": "dge-table", "list": [0], "var_id": 1}},
  "dma_queue": {"q": {"owner": "pool", "type": "dynamic", "num_queues": 16, "semaphore_set": [8]}}}`)},
		{Name: "sg00/Pool.json", Data: []byte(`{"instr": "Pool.bin", "dma": [{"queue": "nosuch", "id": 0, "desc": []}]}`)}, // a block on no queue: a budget problem
		{Name: "sg00/Pool.bin", Data: obj.Code},
	}, neff.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bad.neff")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unexercised are documented paths none of the test's inputs reach: an
// event left set (no assembled example sets one at its end).
var unexercised = map[string]bool{"run final.cores[].events[]": true}

// TestJSONSchemaDocumented: every command's --json, on the sample NEFF,
// the synthetic shapes and assembled words, holds exactly the keys
// docs/json.md's schema blocks list, in every object (a zero value, an
// empty list is present, never left out), with the listed JSON types
// (addresses numbers); and every documented path appears in some output.
func TestJSONSchemaDocumented(t *testing.T) {
	docs := docSchemas(t)
	in := newJSONInputs(t)
	each := func(args ...string) (out [][]string) {
		for _, f := range in.neffs {
			out = append(out, append(slices.Clone(args), f))
		}
		return out
	}
	runs := map[string][][]string{
		"catalog":  {{"catalog", "--json"}},
		"describe": {{"describe", "--json", "DMA_DIRECT2D"}, {"describe", "--json", "PSEUDO_DMA_EXT"}},
		"enums":    {{"enums", "--json"}},
		"disasm":   {{"disasm", "--json", "--gen", "cayman", in.bin}},
		"validate": {{"validate", "--json", "--gen", "cayman", in.bin}},
		"lower":    {{"lower", "--json", in.word}, {"lower", "--json", "../../examples/gather_transpose.s"}},
		"run": {{"run", "--json", in.word}, {"run", "--json", "--exec", "ref", in.word}, {"run", "--json", "../../examples/producer_consumer.s"},
			{"run", "--json", "--exec", "both", "../../examples/two_core.s"}},
		"neff info":   append(each("neff", "info", "--json"), []string{"neff", "info", "--json", in.bad}, []string{"neff", "info", "--json", in.hash}),
		"neff disasm": each("neff", "disasm", "--json"),
		"neff lower":  append(each("neff", "lower", "--json"), []string{"neff", "lower", "--json", "--stats", in.neffs[0]}),
		"neff check":  append(each("neff", "check", "--json"), []string{"neff", "check", "--json", in.bad}, []string{"neff", "check", "--json", "--in", "idx=" + in.mixed, in.gather}),
		"lint":        append(each("neff", "lint", "--json"), []string{"neff", "lint", "--json", in.bad}),
		"neff report": each("neff", "report", "--json"),
		"neff run": {{"neff", "run", "--json", "--dma-only", in.neffs[0]}, {"neff", "run", "--json", "--exec", "ref", in.neffs[0]},
			{"neff", "run", "--json", "--packets", "--engine-time", "TENSOR_TENSOR=1.2us", in.hw}, {"neff", "run", "--json", in.gather}},
	}
	for _, a := range in.neffs[1:5] {
		for _, b := range in.neffs[1:5] {
			runs["neff diff"] = append(runs["neff diff"], []string{"neff", "diff", "--json", a, b})
		}
	}
	runs["neff diff"] = append(runs["neff diff"], []string{"neff", "diff", "--json", in.neffs[6], in.neffs[7]})
	renamed := writeNEFF(t, t.TempDir(), "renamed.neff", weightsRenamed(false, map[string]string{"spill": "t1_RematSpillSave0"}))
	runs["neff diff"] = append(runs["neff diff"], []string{"neff", "diff", "--json", in.neffs[6], renamed})
	// a NEFF whose word does not resolve against one that does: problems on each side
	runs["neff diff"] = append(runs["neff diff"], []string{"neff", "diff", "--json", in.bad, in.neffs[1]}, []string{"neff", "diff", "--json", in.neffs[1], in.bad})
	c := &schemaCheck{t: t, docs: docs, seen: map[string]map[string]bool{}}
	for name, cmds := range runs {
		s := docs[name]
		if s == nil {
			t.Errorf("docs/json.md has no schema block %q", name)
			continue
		}
		for _, args := range cmds {
			var so, se bytes.Buffer
			code := Main(args, nil, &so, &se)
			if code == exitUsage || so.Len() == 0 {
				t.Fatalf("%v: exit %d: %s", args, code, se.String())
			}
			var v any
			if err := json.Unmarshal(so.Bytes(), &v); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			c.where = fmt.Sprint(args[:len(args)-1])
			c.check(s, "", v)
		}
	}
	for name, s := range docs {
		for _, p := range s.order {
			if !c.seen[name][p] && !unexercised[name+" "+p] {
				t.Errorf("docs/json.md %s: %s appears in none of the test's outputs", name, p)
			}
		}
	}
}
