package cli

import (
	"fmt"
	"io"
	"runtime/debug"

	"ndma/internal/version"
)

// Version is ndma's release (internal/version, which Python prints too);
// the build adds its commit and Go version.
const Version = version.Release

// versionLine is `ndma --version`: the release, the commit the binary was
// built from (vcs.revision, "+dirty" when modified) and the Go toolchain, as
// debug.ReadBuildInfo reports them (a `go run` or test build may carry no
// VCS stamp: then "commit unknown").
func versionLine(info *debug.BuildInfo, ok bool) string {
	commit, dirty, goVer := "unknown", "", "unknown"
	if ok && info != nil {
		goVer = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	return fmt.Sprintf("ndma %s (commit %s%s, %s)", Version, commit, dirty, goVer)
}

func printVersion(w io.Writer) {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(w, versionLine(info, ok))
}
