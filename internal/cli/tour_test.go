package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the checkout: two levels up from internal/cli.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no checkout at %s: %v", root, err)
	}
	return root
}

// tourDir is a fresh working directory whose examples/ is the checkout's:
// what the README's commands read is in the repository, what they write
// stays out of it.
func tourDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repoRoot(t), "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// tourCommand is one `$ ndma …` line of the README: its arguments, the exit
// status its comment states ("# exit 1"; 0 without) and the lines shown
// after it.
type tourCommand struct {
	line  int
	args  []string
	exit  int
	shown []string
}

// parseTour reads the `$ ndma` commands of the README's "## CLI tour"
// section (up to the next "## ").
func parseTour(t *testing.T, readme string) []tourCommand {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## CLI tour\n")
	if !ok {
		t.Fatal("README has no ## CLI tour")
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var cmds []tourCommand
	inBlock := false
	for n, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock
		case !inBlock:
		case strings.HasPrefix(line, "$ ndma"):
			cmdText, comment, _ := strings.Cut(line, "#")
			c := tourCommand{line: n, args: strings.Fields(cmdText)[2:]}
			if i := strings.LastIndex(comment, "# exit "); i >= 0 || strings.HasPrefix(strings.TrimSpace(comment), "exit ") {
				f := strings.Fields(comment[strings.LastIndex(comment, "exit ")+5:])
				c.exit, _ = strconv.Atoi(f[0])
			}
			cmds = append(cmds, c)
		case strings.TrimSpace(line) == "" || len(cmds) == 0:
		default:
			cmds[len(cmds)-1].shown = append(cmds[len(cmds)-1].shown, line)
		}
	}
	return cmds
}

// squash collapses runs of white space: tables align by padding.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// The README's CLI tour, run line by line from a directory whose examples/
// is the checkout's: every command exits as stated, and every line shown
// (its pieces around "…") is in what the command printed.
func TestREADMETour(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := parseTour(t, string(raw))
	if len(cmds) < 12 {
		t.Fatalf("only %d tour commands", len(cmds))
	}
	tourDir(t)
	for _, c := range cmds {
		var out, errb bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errb)
		if code != c.exit {
			t.Errorf("tour line %d: ndma %s: exit %d, README says %d\n%s", c.line, strings.Join(c.args, " "), code, c.exit, errb.String())
			continue
		}
		got := squash(out.String() + "\n" + errb.String())
		for _, s := range c.shown {
			for _, piece := range strings.Split(s, "…") {
				if p := squash(piece); p != "" && !strings.Contains(got, p) {
					t.Errorf("tour line %d: ndma %s: %q not in its output:\n%s%s", c.line, strings.Join(c.args, " "), p, out.String(), errb.String())
				}
			}
		}
	}
}

// Every examples/*.s starts with a `# run: ndma …` line that runs it; the
// line's "(exit N: …)" says a status other than 0.
func TestExampleRunLines(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "examples", "*.s"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	tourDir(t)
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(text), "\n")
		cmd, ok := strings.CutPrefix(first, "# run: ndma ")
		if !ok {
			t.Errorf("%s: first line %q is not `# run: ndma …`", filepath.Base(f), first)
			continue
		}
		want := 0
		if i := strings.Index(cmd, "(exit "); i >= 0 {
			want, _ = strconv.Atoi(strings.TrimRight(strings.Fields(cmd[i+6:])[0], ":)"))
			cmd = cmd[:i]
		}
		args := strings.Fields(cmd)
		if !strings.Contains(cmd, "examples/"+filepath.Base(f)) {
			t.Errorf("%s: its run line does not name it: %q", filepath.Base(f), cmd)
		}
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errb); code != want {
			t.Errorf("%s: ndma %s: exit %d, want %d: %s", filepath.Base(f), cmd, code, want, errb.String())
		}
	}
}

// `ndma CMD -h` of every command prints its flags, never a panic of the
// flag package (a zero onceFlag once had no String).
func TestHelpOfEveryCommand(t *testing.T) {
	for _, c := range commands() {
		args := []string{c.name, "-h"}
		if c.name == "neff" {
			args = []string{"neff", "run", "-h"}
		}
		var out, errb bytes.Buffer
		Main(args, strings.NewReader(""), &out, &errb)
		if s := errb.String() + out.String(); strings.Contains(s, "panic") {
			t.Errorf("ndma %v: %s", args, s)
		}
	}
}
