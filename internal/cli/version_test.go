package cli

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "ndma " + Version + " (commit unknown, unknown)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "6b5de26aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"}, {Key: "vcs.modified", Value: "true"}}},
			true, "ndma " + Version + " (commit 6b5de26aa0b1+dirty, go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			true, "ndma " + Version + " (commit abc, go1.26.8)"},
	} {
		if got := versionLine(c.info, c.ok); got != c.want {
			t.Errorf("versionLine = %q, want %q", got, c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"--version"}, nil, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "ndma "+Version+" (commit ") || errb.Len() != 0 {
		t.Errorf("ndma --version: exit %d, %q, %q", code, out.String(), errb.String())
	}
}
