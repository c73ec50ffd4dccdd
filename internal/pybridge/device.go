package pybridge

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/isa"
	"ndma/mem"
)

// pyDevice is Python's ndma.Device: a device kept across calls, written,
// run and read in place.
type pyDevice struct {
	d *device.Device
}

type placeArgs struct {
	Handle uint64 `json:"handle"`
	Addr   string `json:"addr"`
	Core   int    `json:"core"`
	Shape  []int  `json:"shape"`
	Item   int    `json:"itemsize"`
}

// at is the core memory and address a call names, with the array's bytes
// checked against its shape.
func (a *placeArgs) at(n int) (*pyDevice, *mem.Memory, uint64, error) {
	pd, err := handle[*pyDevice](a.Handle)
	if err != nil {
		return nil, nil, 0, err
	}
	m := pd.d.Core(a.Core)
	if m == nil {
		return nil, nil, 0, &ArgError{Name: "core", Msg: fmt.Sprintf("core %d: the device has cores 0..%d", a.Core, pd.d.Cores()-1)}
	}
	addr, err := asm.ParseAddress(pd.d.Gen, a.Addr)
	if err != nil {
		return nil, nil, 0, &ArgError{Name: "addr", Msg: fmt.Sprintf("addr %q: %v", a.Addr, err)}
	}
	if len(a.Shape) == 0 || a.Item <= 0 {
		return nil, nil, 0, &ArgError{Name: "shape", Msg: fmt.Sprintf("shape %v of %d-byte elements: want at least one axis", a.Shape, a.Item)}
	}
	want := int64(a.Item)
	for _, s := range a.Shape {
		if s <= 0 || want > device.MaxReadBytes/int64(s) {
			return nil, nil, 0, &ArgError{Name: "shape", Msg: fmt.Sprintf("shape %v: every axis positive, at most %d bytes in all", a.Shape, int64(device.MaxReadBytes))}
		}
		want *= int64(s)
	}
	if want != int64(n) {
		return nil, nil, 0, &ArgError{Name: "array", Msg: fmt.Sprintf("a %d-byte buffer for shape %v of %d-byte elements (%d bytes)", n, a.Shape, a.Item, want)}
	}
	return pd, m, addr, nil
}

// into is an io.Writer filling a buffer from its start.
type into struct {
	b []byte
	n int
}

func (w *into) Write(p []byte) (int, error) {
	if len(p) > len(w.b)-w.n {
		return 0, fmt.Errorf("%d bytes past the %d-byte buffer", len(p)-(len(w.b)-w.n), len(w.b))
	}
	w.n += copy(w.b[w.n:], p)
	return len(p), nil
}

func init() {
	Register("device_new", func(c *Call) (Reply, error) {
		var a struct {
			Gen   string `json:"gen"`
			Cores int    `json:"cores"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		g, err := needGen(a.Gen)
		if err != nil {
			return Reply{}, err
		}
		if a.Cores < 1 || a.Cores > 64 {
			return Reply{}, &ArgError{Name: "cores", Msg: fmt.Sprintf("cores %d: 1 to 64", a.Cores)}
		}
		d := &pyDevice{d: device.New(g, a.Cores)}
		return Reply{Value: map[string]any{"handle": newHandle(d), "gen": genName(g)}}, nil
	})
	Register("device_write", func(c *Call) (Reply, error) {
		var a placeArgs
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		b, err := c.Buf(0, "array")
		if err != nil {
			return Reply{}, err
		}
		_, m, addr, err := a.at(len(b))
		if err != nil {
			return Reply{}, err
		}
		return Reply{}, device.LoadArray(m, addr, a.Shape, b) // copies: b is Python's
	})
	Register("device_read", func(c *Call) (Reply, error) {
		var a placeArgs
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		b, err := c.Buf(0, "out")
		if err != nil {
			return Reply{}, err
		}
		_, m, addr, err := a.at(len(b))
		if err != nil {
			return Reply{}, err
		}
		if err := device.CheckArray(m, addr, a.Shape, a.Item); err != nil {
			return Reply{}, err
		}
		return Reply{}, device.WriteArray(&into{b: b}, m, addr, a.Shape, a.Item)
	})
	Register("device_run", deviceRun)
}

// deviceRun runs words (buffer 0) or assembly text on the device, in place
// (sim, ref), or — both — on two copies of it held to each other, the
// engines' copy kept.
func deviceRun(c *Call) (Reply, error) {
	var a struct {
		Handle   uint64            `json:"handle"`
		Text     *string           `json:"text"`
		Exec     string            `json:"exec"`
		Regs     map[string]uint32 `json:"regs"`
		MaxBytes int64             `json:"max_bytes"`
	}
	if err := c.Decode(&a); err != nil {
		return Reply{}, err
	}
	pd, err := handle[*pyDevice](a.Handle)
	if err != nil {
		return Reply{}, err
	}
	exec, err := device.ParseExec(a.Exec)
	if err != nil {
		return Reply{}, &ArgError{Name: "exec", Msg: "exec: " + err.Error()}
	}
	var obj *asm.Object
	if a.Text != nil {
		if obj, err = asm.Assemble("<text>", []byte(*a.Text), asm.Options{Gen: pd.d.Gen}); err != nil {
			return Reply{}, err
		}
		if obj.Gen != pd.d.Gen {
			return Reply{}, &ArgError{Name: "words", Msg: fmt.Sprintf("the text is for %v, the device %v", obj.Gen, pd.d.Gen)}
		}
	} else {
		b, err := words(c)
		if err != nil {
			return Reply{}, err
		}
		obj = &asm.Object{Gen: pd.d.Gen, Code: b, Streams: []asm.Stream{{}}}
	}
	opt := device.Options{Exec: exec, Cores: pd.d.Cores(), MaxBytes: a.MaxBytes}
	for k, v := range a.Regs {
		n, err := strconv.Atoi(strings.TrimPrefix(k, "r"))
		if err != nil || n < 0 || n >= len(opt.Regs) {
			return Reply{}, &ArgError{Name: "regs", Msg: fmt.Sprintf("regs: %q: want r0..r%d", k, len(opt.Regs)-1)}
		}
		opt.Regs[n] = v
	}
	if exec == device.Both {
		snap := snapshot(pd.d)
		opt.Load = func(d *device.Device) error { return snap.restore(d) }
	} else {
		opt.Device = pd.d
	}
	p := device.FromObject(obj, nil)
	res, err := device.Run(context.Background(), p, opt)
	if err != nil {
		return Reply{}, err
	}
	if exec == device.Both {
		pd.d = res.Sim
	}
	out := map[string]any{"exec": exec.String(), "words": len(obj.Code) / isa.WordSize, "time_ns": int64(0),
		"lanes": res.RefStats.Lanes, "skipped": res.RefStats.Skipped, "bytes": res.RefStats.BytesMoved,
		"descriptors": res.SimStats.Descriptors}
	if res.Sim != nil {
		out["time_ns"], out["bytes"] = res.SimStats.TimeNS, res.SimStats.S2MBytes
	}
	if res.Sched != nil {
		out["time_ns"] = res.Sched.TimeNS
	}
	return Reply{Value: out}, nil
}

// state is a device's memory as mem.Snapshot gives it, to write into a
// fresh device of the same shape.
type state struct {
	cores []map[string][]byte
	sems  [][256]int32
	evts  [][256]bool
}

func snapshot(d *device.Device) *state {
	s := &state{}
	for i := range d.Cores() {
		m := d.Core(i)
		s.cores = append(s.cores, m.Snapshot())
		s.sems = append(s.sems, m.Sems)
		s.evts = append(s.evts, m.Events)
	}
	return s
}

func (s *state) restore(d *device.Device) error {
	for i, snap := range s.cores {
		m := d.Core(i)
		m.Sems, m.Events = s.sems[i], s.evts[i]
		for k, b := range snap {
			var r isa.Region
			var n int
			switch {
			case strings.HasPrefix(k, "sbuf"):
				r, n = isa.SBUF, atoi(k[4:])
			case strings.HasPrefix(k, "psum"):
				r, n = isa.PSUM, atoi(k[4:])
			case strings.HasPrefix(k, "hbm") && i == 0: // one HBM, the cores share it
				r, n = isa.HBM, atoi(k[3:])
			default:
				continue
			}
			addr := uint64(n) * mem.PageSize // an HBM page is numbered by its address
			if r != isa.HBM {
				var err error
				if addr, err = m.Map.Join(r, n, 0); err != nil {
					return err
				}
			}
			if err := m.Write(addr, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
