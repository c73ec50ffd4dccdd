package mem

// Add adds o's bytes read and written, region by region, to s: the traffic
// of several memories together (a device's cores: a cross-core copy reads
// one and writes another).
func (s *Stats) Add(o Stats) {
	for r := range s.Read {
		s.Read[r] += o.Read[r]
		s.Written[r] += o.Written[r]
	}
}
