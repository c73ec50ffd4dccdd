package neffgen

import "ndma/neff"

// FuzzSeeds are the members of each program, for the structure-aware NEFF
// fuzzers: each (program, member) pair a seed, its data the member's bytes.
type FuzzSeeds struct {
	progs [][]neff.Member
}

// NewFuzzSeeds takes the members of progs (a program that does not build
// is a bug in its builder: the error is returned).
func NewFuzzSeeds(progs ...*Program) (*FuzzSeeds, error) {
	s := &FuzzSeeds{}
	for _, p := range progs {
		ms, err := p.Members()
		if err != nil {
			return nil, err
		}
		s.progs = append(s.progs, ms)
	}
	return s, nil
}

// Each calls add with every seed: its selector and the member's bytes.
func (s *FuzzSeeds) Each(add func(which uint16, data []byte)) {
	for pi, ms := range s.progs {
		for mi := range ms {
			add(uint16(mi*len(s.progs)+pi), ms[mi].Data)
		}
	}
}

// NEFF is program which % len of the seeds with member (which / len) % its
// member count replaced by data, as a raw tar: a fuzzer's mutations land
// in def.json, the manifests and the streams rather than in a gzip stream
// that rejects nearly every change.
func (s *FuzzSeeds) NEFF(which uint16, data []byte) []byte {
	ms := s.progs[int(which)%len(s.progs)]
	k := int(which) / len(s.progs) % len(ms)
	out := make([]neff.Member, len(ms))
	copy(out, ms)
	out[k].Data = data
	b, err := neff.Build(out, neff.WriteOptions{Raw: true})
	if err != nil {
		return nil
	}
	return b
}
