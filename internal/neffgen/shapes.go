package neffgen

// Shape is one named synthetic NEFF.
type Shape struct {
	Name    string
	Program *Program
}

// Shapes are the synthetic NEFFs of every neff.md §4.7 shape for target,
// and the two older ones (the C08220 trigger pair, inline 0xd4 words), for
// tests that run a tool over all of them.
func Shapes(target string) []Shape {
	return []Shape{
		{"triggered", Triggered()},
		{"inline", Inline(3)},
		{"vector-add", VectorAdd(target, 2)},
		{"casts", Casts(target)},
		{"transposes", Transposes(target)},
		{"weights", Weights(target, false)},
		{"weights-hbm", Weights(target, true)},
	}
}
