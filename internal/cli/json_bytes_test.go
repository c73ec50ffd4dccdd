package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// A transfer's `bytes` in `neff run --json` is the payload it wrote, the
// same under --exec sim and --exec ref (issue 31: it was 512,064 under sim,
// the packets' bytes with their semaphore writes, and 512,000 under ref;
// an inline 0xd4 word's was 0 under ref). A block's is, independently, the
// sum over its def.json descriptors of to_sizes' product (neff.md §4.5:
// sizes[0] is the contiguous run in bytes, the others repeat counts), read
// from `neff info --json`'s own listing.
func TestNEFFRunBytesAcrossExecutors(t *testing.T) {
	in := newJSONInputs(t)
	type key struct {
		sg, engine string
		offset     int
		block      string
	}
	type transfer struct {
		Subgraph, Engine, Queue string
		Offset                  int
		Block                   *int
		Bytes                   int64
		PacketBytes             int64 `json:"packet_bytes"`
		Timing                  string
	}
	// the gather's indices in bounds (16 elements), in an order of their own
	ok := filepath.Join(in.dir, "ok.npy")
	writeU32NPY(t, ok, 3, 0, 15, 7, 1, 14, 2, 9)
	run := func(path, exec string) map[key][]transfer {
		var doc struct {
			Status    string
			Transfers []transfer
		}
		args := []string{"neff", "run", "--json", "--dma-only", "--exec", exec, path}
		if path == in.gather {
			args = append(args, "--in", "idx="+ok)
		}
		if err := json.Unmarshal([]byte(ndmaOut(t, 0, args...)), &doc); err != nil || doc.Status != "ok" {
			t.Fatalf("%s --exec %s: %v %s", path, exec, err, doc.Status)
		}
		out := map[key][]transfer{}
		for _, tr := range doc.Transfers {
			k := key{tr.Subgraph, tr.Engine, tr.Offset, "inline"}
			if tr.Block != nil {
				k.block = fmt.Sprintf("%s %d", tr.Queue, *tr.Block)
			}
			out[k] = append(out[k], tr)
		}
		return out
	}
	for _, path := range in.neffs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			// the blocks' payload from def.json's descriptors
			var info struct {
				Subgraphs []struct {
					Name    string
					Engines []struct {
						Blocks []struct {
							Queue string
							ID    int
							Desc  []struct {
								ToSizes []int64 `json:"to_sizes"`
							}
						}
					}
				}
			}
			if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "info", "--json", path)), &info); err != nil {
				t.Fatal(err)
			}
			payload := map[string]int64{}
			for _, sg := range info.Subgraphs {
				for _, en := range sg.Engines {
					for _, b := range en.Blocks {
						var n int64
						for _, d := range b.Desc {
							p := int64(1)
							for _, s := range d.ToSizes {
								p *= s
							}
							n += p
						}
						payload[fmt.Sprintf("%s %s %d", sg.Name, b.Queue, b.ID)] = n
					}
				}
			}
			sim, ref := run(path, "sim"), run(path, "ref")
			if len(sim) != len(ref) || len(sim) == 0 {
				t.Fatalf("%d transfers under sim, %d under ref", len(sim), len(ref))
			}
			var total int64
			for k, ss := range sim {
				rs := ref[k]
				if len(rs) != len(ss) {
					t.Fatalf("%v: %d times under sim, %d under ref", k, len(ss), len(rs))
				}
				for i := range ss {
					s, r := ss[i], rs[i]
					total += s.Bytes
					if s.Bytes != r.Bytes || s.Bytes <= 0 {
						t.Errorf("%v: %d bytes under sim, %d under ref", k, s.Bytes, r.Bytes)
					}
					if r.PacketBytes != 0 || r.Timing != "none" {
						t.Errorf("%v under ref: packet_bytes %d, timing %s", k, r.PacketBytes, r.Timing)
					}
					if k.block == "inline" {
						continue
					}
					if want := payload[k.sg+" "+k.block]; s.Bytes != want {
						t.Errorf("%v: %d bytes, def.json's descriptors write %d", k, s.Bytes, want)
					}
					// the packets add one semaphore write per DMA engine, of 4 bytes or on
					// some blocks 8 (hw-timing.md §2.1)
					if extra := s.PacketBytes - s.Bytes; s.Timing == "packet" && (extra <= 0 || extra%4 != 0 || extra > 16*8) {
						t.Errorf("%v: packets carry %d bytes over the payload %d", k, extra, s.Bytes)
					}
				}
			}
			t.Logf("%d transfers, %d payload bytes under both", len(sim), total)
		})
	}
}

// `ndma run --json` on assembled programs: the payload written per region
// is the same under --exec sim and --exec ref, and for memcpy.s it is the
// two words' 128 × 4 bytes each, one into SBUF and one into HBM.
func TestRunBytesAcrossExecutors(t *testing.T) {
	for _, f := range []string{"memcpy.s", "transpose.s", "reduce_add.s", "producer_consumer.s", "two_core.s"} {
		path := filepath.Join("../../examples", f)
		var got [2]map[string]uint64
		for i, exec := range []string{"sim", "ref"} {
			var doc struct {
				Status  string
				Written map[string]uint64
			}
			code, out, errs := runCLI("run", "--json", "--exec", exec, path)
			if code != 0 {
				t.Fatalf("%s --exec %s: exit %d: %s", f, exec, code, errs)
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Status != "ok" {
				t.Fatalf("%s --exec %s: %v %s", f, exec, err, doc.Status)
			}
			got[i] = doc.Written
		}
		if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
			t.Errorf("%s: written %v under sim, %v under ref", f, got[0], got[1])
		}
		if f == "memcpy.s" && (got[0]["sbuf"] != 128*4 || got[0]["hbm"] != 128*4 || got[0]["psum"] != 0) {
			t.Errorf("memcpy.s: written %v, want 512 bytes into SBUF and 512 into HBM", got[0])
		}
	}
}

// A program of several streams reports its executors' counts, the sum over
// its streams' machines (they once read all zeros): producer_consumer.s is
// two DMAMEMCPY words of 16 bytes (4 × u32) each — 2 words, 32 bytes
// written, by ref's count and by the engines' S2M.
func TestRunStreamsStats(t *testing.T) {
	path := filepath.Join("../../examples", "producer_consumer.s")
	code, out, errs := runCLI("run", "--json", "--exec", "both", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Ref struct {
			Words      int    `json:"words"`
			BytesMoved uint64 `json:"bytes_moved"`
		} `json:"ref"`
		Sim struct {
			Words    int    `json:"words"`
			S2MBytes uint64 `json:"s2m_bytes"`
		} `json:"sim"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Ref.Words != 2 || doc.Ref.BytesMoved != 32 || doc.Sim.Words != 2 || doc.Sim.S2MBytes != 32 {
		t.Errorf("ref %+v, sim %+v: want 2 words and 32 bytes on each", doc.Ref, doc.Sim)
	}
}
