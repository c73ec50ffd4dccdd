//go:build !linux

package hugemem

func huge(n int) []byte { return make([]byte, n) }

func aligned(n int) []byte { return make([]byte, n) }

func advise([]byte) {}

func small([]byte) {}
