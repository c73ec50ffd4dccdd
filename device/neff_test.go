package device

import (
	"bytes"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
)

func openSample(t testing.TB, name string) (*neff.File, []neff.Subgraph) {
	t.Helper()
	f, err := neff.Parse(samples.Read(t, name), neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		t.Fatal(err)
	}
	return f, sgs
}

// The run leaves in each core's SBUF exactly what neff.md §5.3 names: per
// partition p, x row p at +0x37c00 (512 B), y[p, c:c+64] at +0x37f00 and
// y[128+p, c:c+64] at +0x37e00 (128 B each; c = 0 on sg00, 64 on sg01), the
// identity constant's row p at +0x37b00 (256 B); and every completion
// semaphore of the handshake reached 16 (sem_increment) on both cores.
func TestNEFFRunSBUF(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	x, y := make([]byte, 128*256*2), make([]byte, 256*128*2)
	for i := range x { // distinct 16-bit patterns: a misplaced row cannot match
		x[i] = byte(i*7 + i>>9)
	}
	for i := range y {
		y[i] = byte(i*13 + i>>8 + 1)
	}
	in := map[string]Input{"x": {Data: x, Descr: "<f2", Shape: []int{128, 256}}, "y": {Data: y, Descr: "<f2", Shape: []int{256, 128}}}
	for _, exec := range []Exec{Sim, Ref} {
		im, err := Load(isa.Cayman, f, sgs, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := im.Run(NEFFOptions{Exec: exec})
		if err != nil {
			t.Fatalf("%s: %v", exec, err)
		}
		if len(res.Subgraphs) != 2 || im.Device.Cores() != 2 {
			t.Fatalf("%d subgraphs on %d cores", len(res.Subgraphs), im.Device.Cores())
		}
		// the identity constant: fp16 1.0 (0x3c00) on the diagonal of 128×128
		ident := make([]byte, 128*128*2)
		for i := 0; i < 128; i++ {
			ident[(i*128+i)*2+1] = 0x3c
		}
		for k, r := range res.Subgraphs {
			m := im.Device.Core(r.Core)
			col := 64 * k * 2 // byte offset of the half this core loads
			for p := 0; p < 128; p++ {
				for _, c := range []struct {
					off  uint64
					want []byte
				}{
					{0x37c00, x[p*512 : p*512+512]},
					{0x37f00, y[p*256+col : p*256+col+128]},
					{0x37e00, y[(128+p)*256+col : (128+p)*256+col+128]},
					{0x37b00, ident[p*256 : p*256+256]},
				} {
					a, err := isa.Map(isa.Cayman).Join(isa.SBUF, p, c.off)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, len(c.want))
					if err := m.Read(a, got); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, c.want) {
						t.Fatalf("%s %s partition %d +%#x: got % x…, want % x…", exec, r.Name, p, c.off, got[:8], c.want[:8])
					}
				}
			}
			for _, sem := range []int{8, 24, 25, 26, 27} {
				if v := m.Sems[sem]; v != 16 {
					t.Errorf("%s %s: $S[%d] = %d, want 16", exec, r.Name, sem, v)
				}
			}
		}
	}
}
