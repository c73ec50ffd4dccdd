package device

// HBMBase is where Place starts the device-memory variables of a NEFF
// (field-tables §11.2: HBM begins at 4 GiB in the Neuron address space).
const HBMBase = 0x1_0000_0000
