package isa

// Prov is where a fact comes from, in the spec's own terms (field-tables §0).
type Prov uint8

// Provenances.
const (
	Observed Prov = iota // read from a shipped header, JSON or binary
	Inferred             // reasoned over an observed fact, or ndma's own choice (RATIONALE.md)
	Carried              // copied from an earlier analysis; re-verify
)

func (p Prov) String() string {
	switch p {
	case Observed:
		return "OBSERVED"
	case Inferred:
		return "INFERRED"
	case Carried:
		return "CARRIED"
	}
	return "?"
}

// Short is the three-letter tag used in tables: OBS, INF, CAR.
func (p Prov) Short() string { return p.String()[:3] }
