package isa

// An arm is one member of a union (an ADDR8/ADDR4 form, a CCINST member): a
// small bit layout over the union's raw value, declared once like the layout
// tables so that JSON, text and `ndma describe` derive from it.
type arm struct {
	Name   string
	Marker uint64 // the marker bits that select the arm (ADDR8 byte 7 / ADDR4 byte 3)
	Fields []armField
	Prov   Prov
	Note   string
}

type armField struct {
	Name   string
	Shift  uint8 // LSB position in the union value
	Width  uint8
	Signed bool
	Enum   *Enum
	Prov   Prov
}

func (f armField) get(v uint64) uint64 { return v >> f.Shift & mask(f.Width) }

func (f armField) put(v, x uint64) uint64 {
	m := mask(f.Width) << f.Shift
	return v&^m | x<<f.Shift&m
}

// signedValue sign-extends a field value of the arm.
func (f armField) signedValue(x uint64) int64 {
	s := 64 - uint(f.Width)
	return int64(x<<s) >> s
}

func mask(w uint8) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func af(name string, shift, width uint8, p Prov) armField {
	return armField{Name: name, Shift: shift, Width: width, Prov: p}
}
