package cli

import (
	"encoding/json"
	"fmt"

	"ndma/isa"
)

func runDescribe(e *env, args []string) error {
	cl := newCmdLine(e, "describe", "OPCODE|NAME", "", "say whether the opcode exists on this generation")
	asJSON := cl.fs.Bool("json", false, "print the field rows as JSON")
	pos, gen, err := cl.parse(args, 1, "want one OPCODE or NAME (e.g. 0xb8, DMAMEMCPY, DMA_DIRECT2D)")
	if err != nil {
		return err
	}
	d, err := isa.LookupName(pos[0])
	if err != nil {
		return usageError{err}
	}
	if *asJSON {
		out := struct {
			Opcode   int               `json:"opcode"`
			Mnemonic string            `json:"mnemonic"`
			Struct   string            `json:"struct"`
			Decoded  bool              `json:"decoded"`
			Fields   []isa.DescribeRow `json:"fields"`
		}{int(d.Opcode), d.Mnemonic(), d.StructOn(gen), d.Decoded(), isa.DescribeRowsOn(d, gen)}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	if gen != isa.GenAny {
		fmt.Fprintf(e.stdout, "on %s (%s): %s\n", gen, gen.Version(), presenceText(presence(d, gen)))
	}
	return isa.DescribeOn(e.stdout, d, gen)
}

func presenceText(p string) string {
	switch p {
	case "Y":
		return "present"
	case "-":
		return "NOT present on this generation"
	}
	return "presence not stated by any source"
}
