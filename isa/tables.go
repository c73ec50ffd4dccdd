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

// Catalog lists every named opcode (a copy), in catalog order.
func Catalog() []OpDef { return slices.Clone(catalog) }

// Gens are the generations in order (a copy).
func Gens() []Gen { return slices.Clone(allGens) }

// EventsPaths are the spec paths of the EVENTS block (a copy).
func EventsPaths() []string { return slices.Clone(eventsPaths) }

// DMAAddrModeAliases are the extra DMA_ADDR_MODE spellings the assembler accepts (a copy).
func DMAAddrModeAliases() map[string]uint64 { return maps.Clone(dmaAddrModeAliases) }
