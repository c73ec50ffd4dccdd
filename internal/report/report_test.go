package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"ndma/internal/compute"
	"ndma/internal/timing"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"ndma/internal/neffgen"
	"ndma/internal/samples/sampleneff"
	"ndma/isa"
	"ndma/neff"
)

type testPage struct {
	name   string
	html   []byte
	queues []string // the queues that move data, read from def.json by the test
	end    int64    // the first timeline's end (the last due time, the subgraph's time), ns
}

// defQueues reads each subgraph's def.json dma_queue names straight from
// the members (neff.md §4.4), independent of package neff's graph reader.
func defQueues(t *testing.T, f *neff.File) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range f.Members {
		if !strings.HasSuffix(m.Name, "def.json") {
			continue
		}
		var def struct {
			Queues map[string]json.RawMessage `json:"dma_queue"`
		}
		if err := json.Unmarshal(m.Data, &def); err != nil {
			t.Fatal(err)
		}
		for q := range def.Queues {
			seen[q] = true
		}
	}
	var out []string
	for q := range seen {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}

func build(t *testing.T, name string, f *neff.File, sgs []neff.Subgraph, gen isa.Gen) testPage {
	t.Helper()
	d, err := Build(gen, f, sgs, name)
	if err != nil {
		t.Fatal(name, err)
	}
	if d.RunError != "" {
		t.Fatalf("%s: %s", name, d.RunError)
	}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	// the embedded data reads back as what was written
	m := regexp.MustCompile(`(?s)<script type="application/json" id="ndma-data">(.*?)</script>`).FindSubmatch(b.Bytes())
	if m == nil {
		t.Fatalf("%s: no embedded data", name)
	}
	var back Data
	if err := json.Unmarshal(m[1], &back); err != nil {
		t.Fatalf("%s: embedded data: %v", name, err)
	}
	pd := *d // the page's waits: of each (stream, semaphore) the longest, their writers as text
	pd.Waits, pd.WaitsLeftOut = pageWaits(d.Waits)
	want, _ := json.Marshal(&pd)
	got, _ := json.Marshal(&back)
	if !bytes.Equal(want, got) {
		t.Fatalf("%s: the embedded data does not round-trip", name)
	}
	// self-contained: nothing to fetch — no src/href, no url() but the page's own markers,
	// no http(s) but the SVG namespace name, no fetch or XHR
	text := b.String()
	for _, bad := range []string{"src=", "href=", "@import", "fetch(", "XMLHttpRequest", "<link", "<iframe", "<img"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: the page holds %q", name, bad)
		}
	}
	if n, ok := strings.Count(text, "http"), strings.Count(text, "http://www.w3.org/2000/svg"); n != ok {
		t.Errorf("%s: %d http references, only %d the SVG namespace", name, n, ok)
	}
	for _, u := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(text, -1) {
		if !strings.HasPrefix(u[1], "#") && !strings.HasPrefix(u[1], `"#`) {
			t.Errorf("%s: url(%s)", name, u[1])
		}
	}
	p := testPage{name: name, html: b.Bytes(), queues: defQueues(t, f)}
	if len(d.Schedule) > 0 {
		p.end = timelineEnd(&d.Schedule[0])
	}
	return p
}

func pages(t *testing.T) []testPage {
	var out []testPage
	f, sgs := sampleneff.Open(t, "matmul_small.neff")
	out = append(out, build(t, "matmul_small", f, sgs, isa.Cayman))
	for _, s := range neffgen.Shapes("cayman") {
		if s.Name == "triggered" { // q_spare is declared and never used: it has no row
			continue
		}
		f, sgs, err := s.Program.Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, build(t, s.Name, f, sgs, isa.Cayman))
	}
	return out
}

// TestPage: every page is self-contained and carries its data.
func TestPage(t *testing.T) { pages(t) }

// TestBrowser renders the pages in a real headless browser (Debian's
// chromium) from a file:// URL: the script runs to its end without an
// error (the page's own error hook and the console on stderr), and the
// timeline and utilization it draws have a row for every queue the NEFF's
// def.json declares. Skipped without chromium unless NDMA_REQUIRE_BROWSER=1
// (.ci/run sets it).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a headless browser run: the full suite (CI) runs it")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("NDMA_REQUIRE_BROWSER") == "1" {
			t.Fatal("chromium is not installed and NDMA_REQUIRE_BROWSER=1")
		}
		t.Skip("chromium not installed (apt-get install -y chromium); NDMA_REQUIRE_BROWSER=1 makes this a failure")
	}
	dir := t.TempDir()
	for _, p := range append(pages(t), manyTransfers(t)) {
		file := filepath.Join(dir, p.name+".html")
		// the page as written, then the zoom check's script: a wheel, a drag and a button
		// click on the first timeline, each view as the canvas records it
		page := bytes.Replace(p.html, []byte("</body>"), []byte(zoomScript+"</body>"), 1)
		if err := os.WriteFile(file, page, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
			"--user-data-dir="+filepath.Join(dir, "profile-"+p.name), "--enable-logging=stderr", "--v=0",
			"--dump-dom", "file://"+file)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s: chromium: %v\n%s", p.name, err, se.String())
		}
		dom := so.String()
		if !strings.Contains(dom, `data-render="done"`) {
			t.Errorf("%s: the script did not finish: %s", p.name, regexp.MustCompile(`<body[^>]*>`).FindString(dom))
		}
		if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
			t.Errorf("%s: script errors: %s", p.name, html.UnescapeString(m[1]))
		}
		for _, line := range strings.Split(se.String(), "\n") {
			if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
				t.Errorf("%s: console: %s", p.name, line)
			}
		}
		for _, q := range p.queues {
			if !regexp.MustCompile(`<div class="queue[^"]*" data-queue="` + q + `" data-engine="`).MatchString(dom) {
				t.Errorf("%s: the timeline has no row for queue %s", p.name, q)
			}
			if !strings.Contains(dom, `data-queue="sg00 `+q+`"`) && !strings.Contains(dom, `data-queue="sg01 `+q+`"`) {
				t.Errorf("%s: utilization has no bar for queue %s", p.name, q)
			}
		}
		if p.end > 0 {
			checkZoom(t, p.name, dom, p.end)
		}
	}
}

// timelineEnd is where a subgraph's timeline ends: its time, or a later due.
func timelineEnd(s *Schedule) int64 {
	end := max(1, s.TimeNS)
	for _, t := range s.Transfers {
		end = max(end, t.DueNS)
	}
	return end
}

// zoomScript drives the first timeline as a user would — the wheel at
// its middle (deltaY −500), a drag of 100 pixels to the right, the zoom-in
// button — and records the canvas's view ("t0,t1" ns) before and after
// each, and its width, in the body's data-zoom.
const zoomScript = `<script>
(function () {
  var cv = document.querySelector("canvas.timeline"), r = cv.getBoundingClientRect(), y = r.top + 25, out = [cv.getAttribute("data-view")];
  cv.dispatchEvent(new WheelEvent("wheel", {deltaY: -500, clientX: r.left + r.width / 2, clientY: y, bubbles: true, cancelable: true}));
  out.push(cv.getAttribute("data-view"));
  cv.dispatchEvent(new MouseEvent("mousedown", {clientX: r.left + 100, clientY: y, bubbles: true}));
  window.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + 200, clientY: y}));
  window.dispatchEvent(new MouseEvent("mouseup", {}));
  out.push(cv.getAttribute("data-view"));
  document.querySelector('button[data-action="zoom in"]').click();
  out.push(cv.getAttribute("data-view"), String(r.width));
  document.body.setAttribute("data-zoom", out.join(";"));
})();
</script>
`

// checkZoom holds the views zoomScript recorded to the arithmetic of a
// zoom about a point and a pan: the wheel's e^(−500·0.002) about the
// middle, the drag's 100 pixels of the zoomed span, the button's half
// about the middle.
func checkZoom(t *testing.T, name, dom string, end int64) {
	t.Helper()
	m := regexp.MustCompile(`data-zoom="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Errorf("%s: the zoom script did not run", name)
		return
	}
	parts := strings.Split(m[1], ";")
	if len(parts) != 5 {
		t.Fatalf("%s: data-zoom %q", name, m[1])
	}
	view := func(s string) [2]float64 {
		a, b, _ := strings.Cut(s, ",")
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return [2]float64{x, y}
	}
	w, _ := strconv.ParseFloat(parts[4], 64)
	e := float64(end)
	f := math.Exp(-1)
	c := e / 2
	wheel := [2]float64{c - c*f, c + (e-c)*f}
	dt := 100 * (wheel[1] - wheel[0]) / w
	drag := [2]float64{wheel[0] - dt, wheel[1] - dt}
	mid := (drag[0] + drag[1]) / 2
	button := [2]float64{mid - (mid-drag[0])/2, mid + (drag[1]-mid)/2}
	for i, want := range [][2]float64{{0, e}, wheel, drag, button} {
		got := view(parts[i])
		// the page rounds each view to a ns; the drag's pixel lands on a CSS pixel
		tol := 1 + (wheel[1]-wheel[0])/w
		if math.Abs(got[0]-want[0]) > tol || math.Abs(got[1]-want[1]) > tol {
			t.Errorf("%s: view %d is %v, want %.0f–%.0f (width %v px)", name, i, got, want[0], want[1], w)
		}
	}
}

// manyTransfers is matmul_small's page with its first schedule replaced by
// 10,000 transfers on 8 rows (4 queues of 2 engines), staggered: the page
// must draw, zoom and pan them (issue 34: 9,186 transfers in 700 px).
func manyTransfers(t *testing.T) testPage {
	f, sgs := sampleneff.Open(t, "matmul_small.neff")
	d, err := Build(isa.Cayman, f, sgs, "many")
	if err != nil {
		t.Fatal(err)
	}
	s := &d.Schedule[0]
	s.Transfers = s.Transfers[:0]
	for i := range 10000 {
		en := [...]string{"pool", "sp"}[i%2]
		q := fmt.Sprintf("q%d", i%4)
		s.Transfers = append(s.Transfers, Transfer{Stream: "sg00 " + strings.ToUpper(en), Engine: en, Offset: 64 * i, Word: "PSEUDO_DMA_DIRECT2D",
			Queue: q, Note: "copy", IssueNS: int64(i) * 100, DueNS: int64(i)*100 + 350})
	}
	s.TimeNS = 10000*100 + 350
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	return testPage{name: "many", html: b.Bytes(), queues: []string{"q0", "q1", "q2", "q3"}, end: s.TimeNS}
}

// The waits' times read off the run's timeline agree with its schedule
// (two records of one run), derived by hand for the hardware vector add
// (neffgen.HWVectorAdd, after each stream's prologue): DVE's first add waits $S[9] ≥ 16 — SP's block 1
// (the word at 0x40) completing — from the start; its second $S[11], block
// 3 (0xc0), from its first's issue; Pool's NOP at 0x80 waits $S[24],
// its block 0's completion, from the trigger at 0x40's issue, and the NOP
// at 0xc0 block 1's, from the first NOP's issue. The summary has a row per
// waiting stream and writing streams, its counts and times the waits'.
func TestWaitTimes(t *testing.T) {
	f, sgs, err := neffgen.HWVectorAdd("cayman").Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(isa.Cayman, f, sgs, "vadd")
	if err != nil || d.RunError != "" {
		t.Fatal(err, d.RunError)
	}
	mv := map[string]Transfer{}
	var longest int64
	for _, s := range d.Schedule {
		longest = max(longest, s.TimeNS)
		for _, tr := range s.Transfers {
			mv[fmt.Sprintf("%s %#x", tr.Stream, tr.Offset)] = tr
		}
	}
	// every stream opens with the compiler's prologue (neffgen.Prologue):
	// the words below sit after it, at SP's first trigger's offset
	base := -1
	for _, s := range d.Schedule {
		for _, tr := range s.Transfers {
			if tr.Stream == "sg00 SP" && (base < 0 || tr.Offset < base) {
				base = tr.Offset
			}
		}
	}
	at := func(stream string, off int) string { return fmt.Sprintf("sg00 %s %#x", stream, base+off) }
	due := func(k string) int64 {
		tr, ok := mv[k]
		if !ok {
			t.Fatalf("no transfer %s", k)
		}
		return tr.DueNS
	}
	// a stream is ready when its word before ends: the compute model's
	// times (docs/sim.md): DVE's prologue (SET_ORDERING_MODE, then
	// PSEUDO_BRANCH_LABEL), an add of 1000 fp32 a partition, a NOP
	c := timing.ComputeTrn2()
	prologue := c.NS("dve", 0xb1, timing.Size{}) + c.NS("dve", 0xcc, timing.Size{})
	add := c.NS("dve", compute.OpTensorTensor, timing.Size{Parts: 128, Elems: 1000, InBytes: 4, Inputs: 2, MaxBytes: 4})
	nop := c.NS("pool", 0xa4, timing.Size{})
	want := map[string]int64{
		at("DVE", 0):     due(at("SP", 0x40)) - prologue,
		at("DVE", 0x40):  due(at("SP", 0xc0)) - (due(at("SP", 0x40)) + add),
		at("POOL", 0x80): due(at("POOL", 0)) - mv[at("POOL", 0x40)].IssueNS,
		at("POOL", 0xc0): due(at("POOL", 0x40)) - (due(at("POOL", 0)) + nop),
	}
	got := map[string]int64{}
	for _, w := range d.Waits {
		got[fmt.Sprintf("%s %#x", w.Waiter, w.Offset)] = w.WaitNS
	}
	for k, ns := range want {
		if ns <= 0 || got[k] != ns {
			t.Errorf("%s waited %d ns, want %d", k, got[k], ns)
		}
	}
	type row struct {
		n            int
		total, worst int64
	}
	rows := map[string]*row{} // the summary, summed here by stream and the streams writing its semaphores
	for _, w := range d.Waits {
		k := fmt.Sprint(w.Waiter, w.WriterStreams)
		if rows[k] == nil {
			rows[k] = &row{}
		}
		r := rows[k]
		r.n, r.total, r.worst = r.n+1, r.total+w.WaitNS, max(r.worst, w.WaitNS)
	}
	// DVE on SP's DMAs, Pool on DVE, Pool on its own DMAs
	if len(d.WaitSummary) != len(rows) || len(rows) != 3 {
		t.Errorf("%d summary rows, want %d", len(d.WaitSummary), len(rows))
	}
	for _, r := range d.WaitSummary {
		k := fmt.Sprint(r.Waiter, r.Writers)
		w := rows[k]
		if w == nil || r.Waits != w.n || r.TotalNS != w.total || r.LongestNS != w.worst || got[fmt.Sprintf("%s %#x", r.Waiter, r.LongestOffset)] != w.worst {
			t.Errorf("summary %+v: want %+v", r, w)
		}
	}
	if d.KernelTimeNS != longest || longest == 0 {
		t.Errorf("page time %d ns, the run's longest subgraph %d", d.KernelTimeNS, longest)
	}
}

// maxPage is the page's size bound (issue 34: 14 MB before; 35 MB for
// matmul_large with its 26,446 waits).
const maxPage = 5 << 20

// TestPageSize: the pages of the largest NEFFs at hand stay under 5 MB:
// matmul_large (8,768 transfers, 26,446 waits: a 30 s run, so not under
// -short) and the largest synthetic kernel's (Conv2D).
func TestPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("matmul_large's run on the engines takes half a minute")
	}
	type tc struct {
		name string
		f    *neff.File
		sgs  []neff.Subgraph
	}
	f, sgs := sampleneff.Open(t, "matmul_large.neff")
	cases := []tc{{"matmul_large", f, sgs}}
	cf, csgs, err := neffgen.Conv2D("cayman", neffgen.ConvFP32, true).Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"conv2d", cf, csgs})
	for _, c := range cases {
		d, err := Build(isa.Cayman, c.f, c.sgs, c.name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, d); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d waits (%d on the page)", c.name, b.Len(), len(d.Waits), len(d.Waits)-pageLeftOut(d))
		if b.Len() > maxPage {
			t.Errorf("%s: the page is %d bytes, over %d", c.name, b.Len(), maxPage)
		}
	}
}

func pageLeftOut(d *Data) int { _, n := pageWaits(d.Waits); return n }
