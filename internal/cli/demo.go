package cli

import "ndma/internal/demo"

// runDemo is `ndma demo [--gen G]`: the guided tour (package demo).
func runDemo(e *env, args []string) error {
	cl := newCmdLine(e, "demo", "", "cayman", "generation to build for")
	_, gen, err := cl.parse(args, 0, "")
	if err != nil {
		return err
	}
	return demo.Run(e.stdout, gen)
}
