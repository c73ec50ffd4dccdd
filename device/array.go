package device

import (
	"fmt"
	"io"
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

// AttachArray is LoadArray with data given to the memory: where the array
// lies in HBM, the whole 64 KiB pages it covers become the memory's own
// storage (mem.Attach) and only the rest is copied. data must be the
// memory's from then on — a copy-on-write file mapping (internal/array
// File.Map): a 64 MiB array is then neither zeroed nor copied (issue 17).
func AttachArray(m *mem.Memory, addr uint64, shape []int, data []byte) error {
	if err := checkShape(shape, len(data)); err != nil {
		return err
	}
	if rows, _ := partitionRows(m, addr, shape, len(data)); rows != 1 || m.Check(addr, len(data)) != nil {
		return LoadArray(m, addr, shape, data) // on chip, or refused: LoadArray's checks and messages
	}
	n := m.Attach(addr, data)
	if err := m.Write(addr+uint64(n), data[n:]); err != nil {
		return fmt.Errorf("%w (the array's shape %v does not fit there)", err, shape) // cannot happen: checked above
	}
	return nil
}

// LoadArrayFrom is LoadArray with the bytes read in place: read fills each
// piece of the memory's own backing from the array's data at off (a .npy
// file's ReadAt), so no buffer of the array's size exists and no byte is
// copied twice (issue 17). size is the data's byte count. Every row is
// checked before any is read; a read error stops the load and is returned
// (the rows before it are written).
func LoadArrayFrom(m *mem.Memory, addr uint64, shape []int, size int64, read func(p []byte, off int64) error) error {
	if size > int64(^uint(0)>>1) {
		return fmt.Errorf("shape %v: %d bytes", shape, size)
	}
	n := int(size)
	if err := checkShape(shape, n); err != nil {
		return err
	}
	rows, rowBytes := partitionRows(m, addr, shape, n)
	if err := fitsPartitions(m, addr, rows); err != nil {
		return fmt.Errorf("shape %v: %w", shape, err)
	}
	for r := range rows {
		if err := m.Check(rowAddr(m, addr, r, rows), rowBytes); err != nil {
			return fmt.Errorf("row %d: %w (the array's shape %v does not fit there)", r, err, shape)
		}
	}
	var rerr error
	for r := 0; r < rows && rerr == nil; r++ {
		base := int64(r) * int64(rowBytes)
		err := m.Fill(rowAddr(m, addr, r, rows), rowBytes, func(dst []byte, off int) {
			if rerr == nil {
				rerr = read(dst, base+int64(off))
			}
		})
		if err != nil {
			return fmt.Errorf("row %d: %w (the array's shape %v does not fit there)", r, err, shape) // cannot happen: checked above
		}
	}
	return rerr
}

// ReadArray is LoadArray's inverse: the C-order bytes of an array of shape
// with elemSize-byte elements, laid out at addr as LoadArray lays it out.
// It refuses more than MaxReadBytes.
func ReadArray(m *mem.Memory, addr uint64, shape []int, elemSize int) ([]byte, error) {
	rows, rowBytes, n, err := arrayRows(m, addr, shape, elemSize)
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	for r := range rows {
		if err := m.Read(rowAddr(m, addr, r, rows), data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return nil, err // cannot happen: checked above
		}
	}
	return data, nil
}

// WriteArray is ReadArray streamed: the array's C-order bytes go to w
// straight from the memory's backing (mem.View), never gathered into a
// buffer of the array's size (issue 17). Every row is checked first: a
// refused array writes nothing.
func WriteArray(w io.Writer, m *mem.Memory, addr uint64, shape []int, elemSize int) error {
	rows, rowBytes, _, err := arrayRows(m, addr, shape, elemSize)
	if err != nil {
		return err
	}
	write := func(b []byte) error { _, err := w.Write(b); return err }
	aw, _ := w.(AttachedWriter)
	var take func([]byte) (int, error)
	if aw != nil {
		take = aw.WriteAttached
	}
	for r := range rows {
		if err := m.ViewAttached(rowAddr(m, addr, r, rows), rowBytes, write, take); err != nil {
			return err
		}
	}
	return nil
}

// AttachedWriter is a WriteArray destination that may write bytes of an
// attached mapping (mem.Attach: a loaded file's pages the run left as they
// were) by their place in that file rather than from memory —
// WriteAttached returns how many of b it wrote that way (0: none; WriteArray
// writes the rest as usual), b's bytes in order after what was written
// before.
type AttachedWriter interface {
	io.Writer
	WriteAttached(b []byte) (int, error)
}

// CheckArray is what ReadArray and WriteArray refuse, without reading.
func CheckArray(m *mem.Memory, addr uint64, shape []int, elemSize int) error {
	_, _, _, err := arrayRows(m, addr, shape, elemSize)
	return err
}

// arrayRows checks an array of shape with elemSize-byte elements at addr
// (at most MaxReadBytes, every row mapped) and returns its rows, their
// bytes and the total.
func arrayRows(m *mem.Memory, addr uint64, shape []int, elemSize int) (rows, rowBytes, n int, err error) {
	if elemSize < 1 {
		return 0, 0, 0, fmt.Errorf("element size %d: want at least 1 byte", elemSize)
	}
	if err := checkShape(shape, -1); err != nil {
		return 0, 0, 0, err
	}
	size := big.NewInt(int64(elemSize)) // exact even where a product of dimensions would overflow an int
	for _, d := range shape {
		size.Mul(size, big.NewInt(int64(d)))
	}
	if size.Cmp(big.NewInt(MaxReadBytes)) > 0 {
		return 0, 0, 0, fmt.Errorf("%d bytes is more than ndma dumps", size)
	}
	n = int(size.Int64())
	rows, rowBytes = partitionRows(m, addr, shape, n)
	if err := fitsPartitions(m, addr, rows); err != nil {
		return 0, 0, 0, fmt.Errorf("shape %v: %w", shape, err)
	}
	for r := range rows { // every row before any byte: a refused read allocates or writes nothing
		if err := m.Check(rowAddr(m, addr, r, rows), rowBytes); err != nil {
			return 0, 0, 0, fmt.Errorf("row %d: %w", r, err)
		}
	}
	return rows, rowBytes, n, nil
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
