package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
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
	want, _ := json.Marshal(d)
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
	return testPage{name: name, html: b.Bytes(), queues: defQueues(t, f)}
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
	for _, p := range pages(t) {
		file := filepath.Join(dir, p.name+".html")
		if err := os.WriteFile(file, p.html, 0o644); err != nil {
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
			tl := regexp.MustCompile(`<svg[^>]*class="timeline"[^>]*>.*?</svg>`).FindAllString(dom, -1)
			if !strings.Contains(strings.Join(tl, ""), `<g class="queue" data-queue="`+q+`">`) {
				t.Errorf("%s: the timeline has no row for queue %s", p.name, q)
			}
			if !strings.Contains(dom, `data-queue="sg00 `+q+`"`) && !strings.Contains(dom, `data-queue="sg01 `+q+`"`) {
				t.Errorf("%s: utilization has no bar for queue %s", p.name, q)
			}
		}
	}
}
