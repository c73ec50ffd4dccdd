//go:build gentyped

package isa

// What gentyped (isa/internal/gentyped) reads to write typed_gen.go. The
// file is built only with -tags gentyped, and typed_gen.go only without it,
// so the generator always compiles, whatever state the generated file is in.

// GenStruct is a layout table and the Go names gentyped gives it.
type GenStruct struct {
	Var   string // the Go name, e.g. "Direct2D" (the Inst method)
	Table string // the package variable, e.g. "direct2DLayout"
	View  string // the view type, e.g. "Direct2DView"
	S     *Struct
}

// GenEnum is an enum and the Go type gentyped gives its values.
type GenEnum struct {
	Var   string // the Go name, e.g. "WaitMode" (its constants' prefix, its accessor)
	Table string // the package variable, e.g. "waitModeEnum"
	Type  string // e.g. "WaitModeCode"
	E     *Enum
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
	{"Direct2D", "direct2DLayout", "Direct2DView", direct2DLayout},
	{"Copy2D", "copy2DLayout", "Copy2DView", copy2DLayout},
	{"Immediate", "immediateLayout", "ImmediateView", immediateLayout},
	{"Indirect1D", "indirect1DLayout", "Indirect1DView", indirect1DLayout},
	{"Xpose", "xposeLayout", "XposeView", xposeLayout},
	{"GatherXpose", "gatherXposeLayout", "GatherXposeView", gatherXposeLayout},
	{"TestES", "testESLayout", "TestESView", testESLayout},
	{"CCI", "cciLayout", "CCIView", cciLayout},
	{"PseudoDirect2D", "pseudoDirect2DLayout", "PseudoDirect2DView", pseudoDirect2DLayout},
	{"PseudoTrigger", "pseudoTriggerLayout", "PseudoTriggerView", pseudoTriggerLayout},
	{"PseudoExt", "pseudoExtLayout", "PseudoExtView", pseudoExtLayout},
	{"Mem2D", "mem2DLayout", "Mem2DView", mem2DLayout},
	{"PseudoMem2D", "pseudoMem2DLayout", "PseudoMem2DView", pseudoMem2DLayout},
	{"Extended", "extendedLayout", "ExtendedView", extendedLayout},
	{"LdWeightsV2", "ldweightsV2Layout", "LdWeightsV2View", ldweightsV2Layout},
	{"LdWeightsV3", "ldweightsV3Layout", "LdWeightsV3View", ldweightsV3Layout},
	{"MatmulV2", "matmulV2Layout", "MatmulV2View", matmulV2Layout},
	{"MatmulV3", "matmulV3Layout", "MatmulV3View", matmulV3Layout},
	{"Activate", "activateLayout", "ActivateView", activateLayout},
	{"CtrlNo", "ctrlNoLayout", "CtrlNoView", ctrlNoLayout},
	{"TensorTensor", "tensorTensorLayout", "TensorTensorView", tensorTensorLayout},
	{"TensorScalar", "tensorScalarLayout", "TensorScalarView", tensorScalarLayout},
	{"TensorReduce", "tensorReduceLayout", "TensorReduceView", tensorReduceLayout},
	{"Memset", "memsetLayout", "MemsetView", memsetLayout},
	{"EventSem", "eventSemLayout", "EventSemView", eventSemLayout},
	{"CtrlEmpty", "ctrlEmptyLayout", "CtrlEmptyView", ctrlEmptyLayout},
	{"Raw", "rawLayout", "RawView", rawLayout},
}

// GenSubs are the shared sub-structs (field-tables §2).
var GenSubs = []GenStruct{
	{"Header", "headerLayout", "HeaderView", headerLayout},
	{"Events", "eventsLayout", "EventsView", eventsLayout},
	{"BoundCheckReg", "boundCheckRegLayout", "BoundCheckRegView", boundCheckRegLayout},
	{"DMAConfigs", "dmaConfigsLayout", "DMAConfigsView", dmaConfigsLayout},
	{"DTypePair", "dTypePairLayout", "DTypePairView", dTypePairLayout},
	{"DMAIndirectFlags", "dmaIndirectFlagsLayout", "DMAIndirectFlagsView", dmaIndirectFlagsLayout},
	{"DMAGatherTransposeFlags", "dmaGatherTransposeFlagsLayout", "DMAGatherTransposeFlagsView", dmaGatherTransposeFlagsLayout},
	{"DMAEngineConfig", "dmaEngineConfigLayout", "DMAEngineConfigView", dmaEngineConfigLayout},
	{"DMAFlags", "dmaFlagsLayout", "DMAFlagsView", dmaFlagsLayout},
	{"DMAAddrModePair", "dmaAddrModePairLayout", "DMAAddrModePairView", dmaAddrModePairLayout},
	{"DMASemaUpdates", "dmaSemaUpdatesLayout", "DMASemaUpdatesView", dmaSemaUpdatesLayout},
	{"DescFlags", "descFlagsLayout", "DescFlagsView", descFlagsLayout},
	{"Tensor1D", "tensor1DLayout", "Tensor1DView", tensor1DLayout},
	{"Tensor2D", "tensor2DLayout", "Tensor2DView", tensor2DLayout},
	{"Tensor3D", "tensor3DLayout", "Tensor3DView", tensor3DLayout},
	{"Tensor4D", "tensor4DLayout", "Tensor4DView", tensor4DLayout},
}

// GenEnums are every enum of the package (field-tables §5, §2, §3.11).
var GenEnums = []GenEnum{
	{"DType", "dTypeEnum", "DTypeCode", dTypeEnum},
	{"WaitMode", "waitModeEnum", "WaitModeCode", waitModeEnum},
	{"UpdateMode", "updateModeEnum", "UpdateModeCode", updateModeEnum},
	{"TraceMode", "traceModeEnum", "TraceModeCode", traceModeEnum},
	{"DGEOpcode", "dgeOpcodeEnum", "DGEOpcodeCode", dgeOpcodeEnum},
	{"DGEComputeOp", "dgeComputeOpEnum", "DGEComputeOpCode", dgeComputeOpEnum},
	{"IndirectDim", "indirectDimEnum", "IndirectDimCode", indirectDimEnum},
	{"IndirectMode", "indirectModeEnum", "IndirectModeCode", indirectModeEnum},
	{"DMAEngineCount", "dmaEngineCountEnum", "DMAEngineCountCode", dmaEngineCountEnum},
	{"DMADescMode", "dmaDescModeEnum", "DMADescModeCode", dmaDescModeEnum},
	{"SemaSync", "semaSyncEnum", "SemaSyncCode", semaSyncEnum},
	{"TestEvtSemMode", "testEvtSemModeEnum", "TestEvtSemModeCode", testEvtSemModeEnum},
	{"DataSrc", "dataSrcEnum", "DataSrcCode", dataSrcEnum},
	{"LNCSizeFmt", "lncSizeFmtEnum", "LNCSizeFmtCode", lncSizeFmtEnum},
	{"NeuronEngine", "neuronEngineEnum", "NeuronEngineCode", neuronEngineEnum},
	{"DMAAddrMode", "dmaAddrModeEnum", "DMAAddrModeCode", dmaAddrModeEnum},
	{"DMASemaUpdateMode", "dmaSemaUpdateModeEnum", "DMASemaUpdateModeCode", dmaSemaUpdateModeEnum},
	{"CCInstType", "ccInstTypeEnum", "CCInstTypeCode", ccInstTypeEnum},
	{"CCOp", "ccOpEnum", "CCOpCode", ccOpEnum},
	{"ExtendedOpcode", "extendedOpcodeEnum", "ExtendedOpcodeCode", extendedOpcodeEnum},
	{"ALUOp", "aluOpEnum", "ALUOpCode", aluOpEnum},
	{"TensorSubdim", "tensorSubdimEnum", "TensorSubdimCode", tensorSubdimEnum},
	{"AccumCmd", "accumCmdEnum", "AccumCmdCode", accumCmdEnum},
	{"ImmSrc", "immSrcEnum", "ImmSrcCode", immSrcEnum},
	{"ImmSrcN", "immSrcNEnum", "ImmSrcNCode", immSrcNEnum},
	{"PEFP32Mode", "peFP32ModeEnum", "PEFP32ModeCode", peFP32ModeEnum},
	{"PSUMAccFlags", "psumAccFlagsEnum", "PSUMAccFlagsCode", psumAccFlagsEnum},
	{"MatmulZeroRegion", "matmulZeroRegionEnum", "MatmulZeroRegionCode", matmulZeroRegionEnum},
	{"TensScalarRevOps", "tensScalarRevOpsEnum", "TensScalarRevOpsCode", tensScalarRevOpsEnum},
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
