package device

import (
	"fmt"
	"math/big"

	"ndma/isa"
	"ndma/mem"
)

// MaxReadBytes is the most ReadArray reads: a bigger array is surely a
// mistyped shape, not a dump to allocate.
const MaxReadBytes = 1 << 30

// LoadArray writes an array's C-order bytes at addr. On SBUF and PSUM the
// first axis runs over partitions from addr's partition, at the same offset
// in each (a 1-D array is one row, in addr's partition); elsewhere the bytes
// are contiguous. HBM bytes land in the HBM m shares with the other cores.
// Every row is checked before any is written: on an error nothing changed.
// data must hold a whole number of elements of shape.
func LoadArray(m *mem.Memory, addr uint64, shape []int, data []byte) error {
	if err := checkShape(shape, len(data)); err != nil {
		return err
	}
	rows, rowBytes := partitionRows(m, addr, shape, len(data))
	if err := fitsPartitions(m, addr, rows); err != nil {
		return fmt.Errorf("shape %v: %w", shape, err)
	}
	for r := range rows {
		if err := m.Check(rowAddr(m, addr, r, rows), rowBytes); err != nil {
			return fmt.Errorf("row %d: %w (the array's shape %v does not fit there)", r, err, shape)
		}
	}
	for r := range rows {
		if err := m.Write(rowAddr(m, addr, r, rows), data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return fmt.Errorf("row %d: %w (the array's shape %v does not fit there)", r, err, shape) // cannot happen: checked above
		}
	}
	return nil
}

// ReadArray is LoadArray's inverse: the C-order bytes of an array of shape
// with elemSize-byte elements, laid out at addr as LoadArray lays it out.
// It refuses more than MaxReadBytes.
func ReadArray(m *mem.Memory, addr uint64, shape []int, elemSize int) ([]byte, error) {
	if elemSize < 1 {
		return nil, fmt.Errorf("element size %d: want at least 1 byte", elemSize)
	}
	if err := checkShape(shape, -1); err != nil {
		return nil, err
	}
	size := big.NewInt(int64(elemSize)) // exact even where a product of dimensions would overflow an int
	for _, d := range shape {
		size.Mul(size, big.NewInt(int64(d)))
	}
	if size.Cmp(big.NewInt(MaxReadBytes)) > 0 {
		return nil, fmt.Errorf("%d bytes is more than ndma dumps", size)
	}
	n := int(size.Int64())
	rows, rowBytes := partitionRows(m, addr, shape, n)
	if err := fitsPartitions(m, addr, rows); err != nil {
		return nil, fmt.Errorf("shape %v: %w", shape, err)
	}
	for r := range rows { // every row before the buffer: a refused read allocates nothing
		if err := m.Check(rowAddr(m, addr, r, rows), rowBytes); err != nil {
			return nil, fmt.Errorf("row %d: %w", r, err)
		}
	}
	data := make([]byte, n)
	for r := range rows {
		if err := m.Read(rowAddr(m, addr, r, rows), data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return nil, err // cannot happen: checked above
		}
	}
	return data, nil
}

// checkShape refuses a negative dimension and, for n ≥ 0, n bytes that are
// not a whole number of the shape's elements (a row split would drop bytes).
func checkShape(shape []int, n int) error {
	elems := big.NewInt(1)
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("shape %v: a negative dimension", shape)
		}
		elems.Mul(elems, big.NewInt(int64(d)))
	}
	if n < 0 {
		return nil
	}
	nb := big.NewInt(int64(n))
	if elems.Sign() == 0 && n != 0 || elems.Sign() > 0 && new(big.Int).Rem(nb, elems).Sign() != 0 {
		return fmt.Errorf("shape %v: %d bytes are not a whole number of its %d elements", shape, n, elems)
	}
	return nil
}

// partitionRows splits an array for an on-chip address: rows = its first
// axis (a 1-D array is one row); off chip it is one contiguous row.
func partitionRows(m *mem.Memory, addr uint64, shape []int, n int) (rows, rowBytes int) {
	r, _, _ := m.Map.Split(addr)
	if (r == isa.SBUF || r == isa.PSUM) && len(shape) > 1 && shape[0] > 0 {
		return shape[0], n / shape[0]
	}
	return 1, n
}

// rowAddr is row's address: one partition stride (§7) per row on chip.
func rowAddr(m *mem.Memory, addr uint64, row, rows int) uint64 {
	if rows == 1 {
		return addr
	}
	r, _, _ := m.Map.Split(addr)
	stride := m.Map.SBUFStride
	if r == isa.PSUM {
		stride = m.Map.PSUMStride
	}
	return addr + uint64(row)*stride
}

// fitsPartitions: rows from addr's partition must stay inside the region.
func fitsPartitions(m *mem.Memory, addr uint64, rows int) error {
	r, part, _ := m.Map.Split(addr)
	if rows > 1 && (r == isa.SBUF || r == isa.PSUM) && part+rows > m.Map.Partitions {
		return fmt.Errorf("%d rows from %s partition %d reach partition %d: there are %d", rows, r, part, part+rows-1, m.Map.Partitions)
	}
	return nil
}
