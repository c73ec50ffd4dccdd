package isa

import "fmt"

// Union inspection and construction for text front ends: the arm a raw union
// value decodes by, its fields, and building a raw value from an arm's
// fields — all through the arm tables of addr.go and cci.go.

// ArmField is one field of a decoded union arm.
type ArmField struct {
	Name  string
	Value uint64 // raw bits
	Int   int64  // sign-extended for signed fields
	Enum  *Enum
}

// UnionArm decodes the union leaf i of the instruction: the arm's name
// ("imm", "reg", "var", "tbl", "raw", "imm64", "regs", or a CCINST member),
// the marker (-1 where the union has none) and the arm's fields.
func (in *Inst) UnionArm(i int) (name string, marker int, fields []ArmField) {
	lay := in.layout()
	l := &lay.leaves[i]
	v := in.leafAt(i)
	a, marker := leafArm(in, lay, l, v)
	return a.Name, marker, armValues(a, v)
}

// armValues decodes the fields of arm a from the union value v.
func armValues(a *arm, v uint64) (fields []ArmField) {
	for _, f := range a.Fields {
		x := f.get(v)
		af := ArmField{Name: f.Name, Value: x, Int: int64(x), Enum: f.Enum}
		if f.Signed {
			af.Int = f.signedValue(x)
		}
		fields = append(fields, af)
	}
	return fields
}

// Arm is UnionArm for an ADDR8 value: the arm's name and fields.
func (a Addr8) Arm() (name string, fields []ArmField) {
	ar := addr8Arm(a.Raw, a.Pseudo)
	return ar.Name, armValues(ar, a.Raw)
}

// Arm is UnionArm for an ADDR4 value: the arm's name and fields.
func (a Addr4) Arm() (name string, fields []ArmField) {
	ar := addr4Arm(uint64(a))
	return ar.Name, armValues(ar, uint64(a))
}

func leafArm(in *Inst, lay *Struct, l *Leaf, v uint64) (*arm, int) {
	switch l.Field.Kind {
	case KAddr8, KPseudoAddr8:
		return addr8Arm(v, l.Field.Kind == KPseudoAddr8), int(byte(v>>56) & MarkerMask)
	case KAddr4:
		return addr4Arm(v), int(byte(v>>24) & Addr4MarkerMask)
	case KDMAAddr:
		return dmaAddrArm(in.selector(l.Field, lay, l.Path)), -1
	case KCCInst:
		return ccArm(v), -1
	}
	panic(fmt.Sprintf("isa: %s is not a union", l.Path))
}

// BuildArm packs a union value: the named arm's fields over the marker bits
// (the arm's own bits, e.g. 0x80 for "reg", are added; marker carries
// modifiers such as SHAPE_REG). It fails when a value does not fit or when
// the result would decode by a different arm.
func BuildArm(kind Kind, armName string, marker uint64, vals map[string]uint64) (uint64, error) {
	var arms []*arm
	shift := uint(0)
	switch kind {
	case KAddr8:
		arms, shift = []*arm{&addr8Imm, &addr8Reg, &addr8Tbl}, 56
	case KPseudoAddr8:
		arms, shift = []*arm{&addr8Imm, &addr8Reg, &pseudoVar, &pseudoTbl}, 56
	case KAddr4:
		arms, shift = []*arm{&addr4Imm, &addr4Reg}, 24
	case KDMAAddr:
		arms = []*arm{&dmaAddrImm, &dmaAddrRegs}
	default:
		return 0, fmt.Errorf("isa: kind %d is not an address union", kind)
	}
	var a *arm
	for _, x := range arms {
		if x.Name == armName {
			a = x
		}
	}
	if a == nil {
		return 0, fmt.Errorf("%s has no %s form", kindName(kind), armName)
	}
	var v uint64
	if shift > 0 {
		v = (marker | a.Marker) << shift
		var got *arm
		if kind == KAddr4 {
			got = addr4Arm(v)
		} else {
			got = addr8Arm(v, kind == KPseudoAddr8)
		}
		if got != a {
			return 0, fmt.Errorf("marker %#x selects the %s form, not %s", marker|a.Marker, got.Name, armName)
		}
	}
	for _, f := range a.Fields {
		x := vals[f.Name]
		if x&^mask(f.Width) != 0 {
			return 0, fmt.Errorf("%s %#x does not fit %d bits", f.Name, x, f.Width)
		}
		v = f.put(v, x)
	}
	return v, nil
}

func kindName(k Kind) string { return (&Field{Kind: k}).TypeName() }

// CCMember is the CCINST_TYPE member name that op decodes by ("RAW" for an
// op no CCOP names).
func CCMember(op uint8) string { return ccArm(uint64(op)).Name }

// CCMemberFields lists the operand fields of the CCINST member that op
// decodes by (after the op byte), and the member name.
func CCMemberFields(op uint8) (member string, fields []string) {
	a := ccArm(uint64(op))
	for _, f := range a.Fields[1:] {
		fields = append(fields, f.Name)
	}
	return a.Name, fields
}

// BuildCCInst packs a CCINST from its op and member fields (by name; missing
// ones are zero). Signed fields take negative values.
func BuildCCInst(op uint8, vals map[string]int64) (uint32, error) {
	a := ccArm(uint64(op))
	v := uint64(op)
	for _, f := range a.Fields[1:] {
		x := vals[f.Name]
		if f.Signed {
			lim := int64(1) << (f.Width - 1)
			if x < -lim || x >= lim {
				return 0, fmt.Errorf("%s %d does not fit i%d (%d..%d)", f.Name, x, f.Width, -lim, lim-1)
			}
		} else if x < 0 || uint64(x)&^mask(f.Width) != 0 {
			return 0, fmt.Errorf("%s %d does not fit u%d (0..%d)", f.Name, x, f.Width, mask(f.Width))
		}
		v = f.put(v, uint64(x))
	}
	return uint32(v), nil
}

// CCInstFields decodes a CCINST: member name and its fields after the op.
func CCInstFields(c uint32) (member string, fields []ArmField) {
	a := ccArm(uint64(c))
	for _, f := range a.Fields[1:] {
		x := f.get(uint64(c))
		af := ArmField{Name: f.Name, Value: x, Int: int64(x)}
		if f.Signed {
			af.Int = f.signedValue(x)
		}
		fields = append(fields, af)
	}
	return a.Name, fields
}
