package control

import (
	"fmt"

	"ndma/isa"
)

// Index tensors (field-tables §11.5): an ADDR4 base in SBUF and C active
// channels; index j is the u32 at partition (base's + j mod C), offset
// base's + 4·(j div C).

// Addr4 resolves an ADDR4 operand (§4.2): the PartitionOffset immediate or
// r[reg].
func Addr4(regs *[64]uint32, in *isa.Inst, path string) (uint64, error) {
	i, ok := in.Layout().LeafIndex(path)
	if !ok {
		return 0, fmt.Errorf("%s: no such field", path)
	}
	form, _, fields := in.UnionArm(i)
	if form == "reg" {
		r := fields[0].Value
		if r >= 64 {
			return 0, fmt.Errorf("register r%d: there are 64", r)
		}
		return uint64(regs[r]), nil
	}
	return fields[0].Value, nil
}

// IndexAddr is the address of index j of the tensor at base with c channels
// on a memory whose SBUF partitions are stride apart.
func IndexAddr(stride, base uint64, c, j int) uint64 {
	return base + uint64(j%c)*stride + 4*uint64(j/c)
}
