package isa

import (
	"maps"
	"slices"
)

// Read-only access to the package's tables: the variables are unexported, so
// that no importer can replace a table; a slice or map comes back as a copy.
// (A layout or an enum is returned as its pointer: the tables compare by
// identity, Field.Enum == isa.DType().)

// BoundCheckReg is the BoundCheckReg layout table.
func BoundCheckReg() *Struct { return boundCheckRegLayout }

// CCI is the CCI layout table.
func CCI() *Struct { return cciLayout }

// Copy2D is the Copy2D layout table.
func Copy2D() *Struct { return copy2DLayout }

// DMAAddrModePair is the DMAAddrModePair layout table.
func DMAAddrModePair() *Struct { return dmaAddrModePairLayout }

// DMAConfigs is the DMAConfigs layout table.
func DMAConfigs() *Struct { return dmaConfigsLayout }

// DMAEngineConfig is the DMAEngineConfig layout table.
func DMAEngineConfig() *Struct { return dmaEngineConfigLayout }

// DMAFlags is the DMAFlags layout table.
func DMAFlags() *Struct { return dmaFlagsLayout }

// DMAGatherTransposeFlags is the DMAGatherTransposeFlags layout table.
func DMAGatherTransposeFlags() *Struct { return dmaGatherTransposeFlagsLayout }

// DMAIndirectFlags is the DMAIndirectFlags layout table.
func DMAIndirectFlags() *Struct { return dmaIndirectFlagsLayout }

// DMASemaUpdates is the DMASemaUpdates layout table.
func DMASemaUpdates() *Struct { return dmaSemaUpdatesLayout }

// DTypePair is the DTypePair layout table.
func DTypePair() *Struct { return dTypePairLayout }

// DescFlags is the DescFlags layout table.
func DescFlags() *Struct { return descFlagsLayout }

// Direct2D is the Direct2D layout table.
func Direct2D() *Struct { return direct2DLayout }

// Events is the Events layout table.
func Events() *Struct { return eventsLayout }

// Extended is the Extended layout table.
func Extended() *Struct { return extendedLayout }

// GatherXpose is the GatherXpose layout table.
func GatherXpose() *Struct { return gatherXposeLayout }

// Header is the Header layout table.
func Header() *Struct { return headerLayout }

// Immediate is the Immediate layout table.
func Immediate() *Struct { return immediateLayout }

// Indirect1D is the Indirect1D layout table.
func Indirect1D() *Struct { return indirect1DLayout }

// Mem2D is the Mem2D layout table.
func Mem2D() *Struct { return mem2DLayout }

// PseudoDirect2D is the PseudoDirect2D layout table.
func PseudoDirect2D() *Struct { return pseudoDirect2DLayout }

// PseudoExt is the PseudoExt layout table.
func PseudoExt() *Struct { return pseudoExtLayout }

// PseudoMem2D is the PseudoMem2D layout table.
func PseudoMem2D() *Struct { return pseudoMem2DLayout }

// PseudoTrigger is the PseudoTrigger layout table.
func PseudoTrigger() *Struct { return pseudoTriggerLayout }

// Raw is the Raw layout table.
func Raw() *Struct { return rawLayout }

// TestES is the TestES layout table.
func TestES() *Struct { return testESLayout }

// Xpose is the Xpose layout table.
func Xpose() *Struct { return xposeLayout }

// CCInstType is the CCInstType enum.
func CCInstType() *Enum { return ccInstTypeEnum }

// CCOp is the CCOp enum.
func CCOp() *Enum { return ccOpEnum }

// DGEComputeOp is the DGEComputeOp enum.
func DGEComputeOp() *Enum { return dgeComputeOpEnum }

// DGEOpcode is the DGEOpcode enum.
func DGEOpcode() *Enum { return dgeOpcodeEnum }

// DMAAddrMode is the DMAAddrMode enum.
func DMAAddrMode() *Enum { return dmaAddrModeEnum }

// DMADescMode is the DMADescMode enum.
func DMADescMode() *Enum { return dmaDescModeEnum }

// DMAEngineCount is the DMAEngineCount enum.
func DMAEngineCount() *Enum { return dmaEngineCountEnum }

// DMASemaUpdateMode is the DMASemaUpdateMode enum.
func DMASemaUpdateMode() *Enum { return dmaSemaUpdateModeEnum }

// DType is the DType enum.
func DType() *Enum { return dTypeEnum }

// DataSrc is the DataSrc enum.
func DataSrc() *Enum { return dataSrcEnum }

// ExtendedOpcode is the ExtendedOpcode enum.
func ExtendedOpcode() *Enum { return extendedOpcodeEnum }

// IndirectDim is the IndirectDim enum.
func IndirectDim() *Enum { return indirectDimEnum }

// IndirectMode is the IndirectMode enum.
func IndirectMode() *Enum { return indirectModeEnum }

// LNCSizeFmt is the LNCSizeFmt enum.
func LNCSizeFmt() *Enum { return lncSizeFmtEnum }

// NeuronEngine is the NeuronEngine enum.
func NeuronEngine() *Enum { return neuronEngineEnum }

// SemaSync is the SemaSync enum.
func SemaSync() *Enum { return semaSyncEnum }

// TestEvtSemMode is the TestEvtSemMode enum.
func TestEvtSemMode() *Enum { return testEvtSemModeEnum }

// TraceMode is the TraceMode enum.
func TraceMode() *Enum { return traceModeEnum }

// UpdateMode is the UpdateMode enum.
func UpdateMode() *Enum { return updateModeEnum }

// WaitMode is the WaitMode enum.
func WaitMode() *Enum { return waitModeEnum }

// The compute-word tables (docs/compute.md).

// LdWeightsV2 is the LdWeightsV2 layout table.
func LdWeightsV2() *Struct { return ldweightsV2Layout }

// LdWeightsV3 is the LdWeightsV3 layout table.
func LdWeightsV3() *Struct { return ldweightsV3Layout }

// MatmulV2 is the MatmulV2 layout table.
func MatmulV2() *Struct { return matmulV2Layout }

// MatmulV3 is the MatmulV3 layout table.
func MatmulV3() *Struct { return matmulV3Layout }

// Activate is the Activate layout table.
func Activate() *Struct { return activateLayout }

// CtrlNo is the CtrlNo layout table.
func CtrlNo() *Struct { return ctrlNoLayout }

// TensorTensor is the TensorTensor layout table.
func TensorTensor() *Struct { return tensorTensorLayout }

// TensorScalar is the TensorScalar layout table.
func TensorScalar() *Struct { return tensorScalarLayout }

// TensorReduce is the TensorReduce layout table.
func TensorReduce() *Struct { return tensorReduceLayout }

// Memset is the Memset layout table.
func Memset() *Struct { return memsetLayout }

// EventSem is the EventSem layout table.
func EventSem() *Struct { return eventSemLayout }

// CtrlEmpty is the CtrlEmpty layout table.
func CtrlEmpty() *Struct { return ctrlEmptyLayout }

// Tensor1D is the Tensor1D layout table.
func Tensor1D() *Struct { return tensor1DLayout }

// Tensor2D is the Tensor2D layout table.
func Tensor2D() *Struct { return tensor2DLayout }

// Tensor3D is the Tensor3D layout table.
func Tensor3D() *Struct { return tensor3DLayout }

// Tensor4D is the Tensor4D layout table.
func Tensor4D() *Struct { return tensor4DLayout }

// ALUOp is the ALUOp enum.
func ALUOp() *Enum { return aluOpEnum }

// TensorSubdim is the TensorSubdim enum.
func TensorSubdim() *Enum { return tensorSubdimEnum }

// AccumCmd is the AccumCmd enum.
func AccumCmd() *Enum { return accumCmdEnum }

// ImmSrc is the ImmSrc enum.
func ImmSrc() *Enum { return immSrcEnum }

// ImmSrcN is the ImmSrcN enum.
func ImmSrcN() *Enum { return immSrcNEnum }

// PEFP32Mode is the PEFP32Mode enum.
func PEFP32Mode() *Enum { return peFP32ModeEnum }

// PSUMAccFlags is the PSUMAccFlags enum.
func PSUMAccFlags() *Enum { return psumAccFlagsEnum }

// MatmulZeroRegion is the MatmulZeroRegion enum.
func MatmulZeroRegion() *Enum { return matmulZeroRegionEnum }

// TensScalarRevOps is the TensScalarRevOps enum.
func TensScalarRevOps() *Enum { return tensScalarRevOpsEnum }

// Catalog lists every named opcode (a copy), in catalog order.
func Catalog() []OpDef { return slices.Clone(catalog) }

// Gens are the generations in order (a copy).
func Gens() []Gen { return slices.Clone(allGens) }

// EventsPaths are the spec paths of the EVENTS block (a copy).
func EventsPaths() []string { return slices.Clone(eventsPaths) }

// DMAAddrModeAliases are the extra DMA_ADDR_MODE spellings the assembler accepts (a copy).
func DMAAddrModeAliases() map[string]uint64 { return maps.Clone(dmaAddrModeAliases) }
