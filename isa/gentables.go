//go:build gentyped

package isa

// What gentyped (isa/internal/gentyped) reads to write typed_gen.go. The
// file is built only with -tags gentyped, and typed_gen.go only without it,
// so the generator always compiles, whatever state the generated file is in.

// GenStruct is a layout table and the Go names gentyped gives it.
type GenStruct struct {
	Var  string // the package variable, e.g. "Direct2D"
	View string // the view type, e.g. "Direct2DView"
	S    *Struct
}

// GenEnum is an enum and the Go type gentyped gives its values.
type GenEnum struct {
	Var  string // the package variable, e.g. "WaitMode"
	Type string // e.g. "WaitModeCode"
	E    *Enum
}

// GenMember is one CCINST union member (field-tables §3.11).
type GenMember struct {
	Name   string // the member name, e.g. "MOVIMM"
	Type   string // the Go type, e.g. "CCMovImm"
	Method string // the CCInst method that returns it, e.g. "MovImm"
	Typ    int    // its CCINST_TYPE
	Note   string
	Fields []GenArmField
}

// GenArmField is one field of a union arm.
type GenArmField struct {
	Name          string
	Shift, Width  uint8
	Signed        bool
	Enum          *Enum
	Prov          Prov
	Var, TypeName string // the enum's variable and Go type, "" for none
}

// GenWords are the 64-byte layouts in catalog order, then Raw.
var GenWords = []GenStruct{
	{"Direct2D", "Direct2DView", Direct2D},
	{"Copy2D", "Copy2DView", Copy2D},
	{"Immediate", "ImmediateView", Immediate},
	{"Indirect1D", "Indirect1DView", Indirect1D},
	{"Xpose", "XposeView", Xpose},
	{"GatherXpose", "GatherXposeView", GatherXpose},
	{"TestES", "TestESView", TestES},
	{"CCI", "CCIView", CCI},
	{"PseudoDirect2D", "PseudoDirect2DView", PseudoDirect2D},
	{"PseudoTrigger", "PseudoTriggerView", PseudoTrigger},
	{"PseudoExt", "PseudoExtView", PseudoExt},
	{"Mem2D", "Mem2DView", Mem2D},
	{"PseudoMem2D", "PseudoMem2DView", PseudoMem2D},
	{"Extended", "ExtendedView", Extended},
	{"Raw", "RawView", Raw},
}

// GenSubs are the shared sub-structs (field-tables §2).
var GenSubs = []GenStruct{
	{"Header", "HeaderView", Header},
	{"Events", "EventsView", Events},
	{"BoundCheckReg", "BoundCheckRegView", BoundCheckReg},
	{"DMAConfigs", "DMAConfigsView", DMAConfigs},
	{"DTypePair", "DTypePairView", DTypePair},
	{"DMAIndirectFlags", "DMAIndirectFlagsView", DMAIndirectFlags},
	{"DMAGatherTransposeFlags", "DMAGatherTransposeFlagsView", DMAGatherTransposeFlags},
	{"DMAEngineConfig", "DMAEngineConfigView", DMAEngineConfig},
	{"DMAFlags", "DMAFlagsView", DMAFlags},
	{"DMAAddrModePair", "DMAAddrModePairView", DMAAddrModePair},
	{"DMASemaUpdates", "DMASemaUpdatesView", DMASemaUpdates},
	{"DescFlags", "DescFlagsView", DescFlags},
}

// GenEnums are every enum of the package (field-tables §5, §2, §3.11).
var GenEnums = []GenEnum{
	{"DType", "DTypeCode", DType},
	{"WaitMode", "WaitModeCode", WaitMode},
	{"UpdateMode", "UpdateModeCode", UpdateMode},
	{"TraceMode", "TraceModeCode", TraceMode},
	{"DGEOpcode", "DGEOpcodeCode", DGEOpcode},
	{"DGEComputeOp", "DGEComputeOpCode", DGEComputeOp},
	{"IndirectDim", "IndirectDimCode", IndirectDim},
	{"IndirectMode", "IndirectModeCode", IndirectMode},
	{"DMAEngineCount", "DMAEngineCountCode", DMAEngineCount},
	{"DMADescMode", "DMADescModeCode", DMADescMode},
	{"SemaSync", "SemaSyncCode", SemaSync},
	{"TestEvtSemMode", "TestEvtSemModeCode", TestEvtSemMode},
	{"DataSrc", "DataSrcCode", DataSrc},
	{"LNCSizeFmt", "LNCSizeFmtCode", LNCSizeFmt},
	{"NeuronEngine", "NeuronEngineCode", NeuronEngine},
	{"DMAAddrMode", "DMAAddrModeCode", DMAAddrMode},
	{"DMASemaUpdateMode", "DMASemaUpdateModeCode", DMASemaUpdateMode},
	{"CCInstType", "CCInstTypeCode", CCInstType},
	{"CCOp", "CCOpCode", CCOp},
	{"ExtendedOpcode", "ExtendedOpcodeCode", ExtendedOpcode},
}

// GenMembers are the CCINST members in CCINST_TYPE order.
var GenMembers = func() []GenMember {
	names := map[string][2]string{ // member → Go type, CCInst method
		"ALU": {"CCALU", "ALU"}, "MOV": {"CCMov", "Mov"}, "MOVIMM": {"CCMovImm", "MovImm"}, "BR": {"CCBr", "Br"},
		"BL": {"CCBl", "Bl"}, "MEM": {"CCMem", "Mem"}, "SEMR": {"CCSemR", "SemR"}, "SEMU": {"CCSemU", "SemU"}, "NOP": {"CCNop", "Nop"},
	}
	var out []GenMember
	for t, a := range ccMembers {
		n, ok := names[a.Name]
		if !ok {
			panic("isa: GenMembers: no Go name for CCINST member " + a.Name)
		}
		m := GenMember{Name: a.Name, Type: n[0], Method: n[1], Typ: t, Note: a.Note}
		for _, f := range a.Fields {
			g := GenArmField{Name: f.Name, Shift: f.Shift, Width: f.Width, Signed: f.Signed, Enum: f.Enum, Prov: f.Prov}
			for _, e := range GenEnums {
				if e.E == f.Enum {
					g.Var, g.TypeName = e.Var, e.Type
				}
			}
			m.Fields = append(m.Fields, g)
		}
		out = append(out, m)
	}
	return out
}()
