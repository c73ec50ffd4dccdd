package ndma_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Another Go module uses ndma as README's "Library" says: require ndma
// v0.0.0 and replace it with a checkout (the module path is plain `ndma`,
// published nowhere), with ndma's go.sum for its dependencies; offline.
func TestUseFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second module (-short)")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/use\n\ngo 1.26.8\n\nrequire ndma v0.0.0\n\nreplace ndma => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"fmt"

	"ndma/asm"
	"ndma/isa"
)

func main() {
	obj, err := asm.Assemble("x.s", []byte(".gen trn2\ndmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n"), asm.Options{})
	if err != nil {
		panic(err)
	}
	in, err := isa.Decode(isa.Cayman, obj.Code)
	fmt.Println(len(obj.Code), in.Def().Mnemonic(), err)
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "64 DMAMEMCPY <nil>" { // one 64-byte word
		t.Errorf("printed %q", got)
	}
}
