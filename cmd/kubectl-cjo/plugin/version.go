package plugin

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the plugin's release, "v0.2.0" in a release build (make plugin-release stamps it with
// -ldflags "-X <this package>.version=v$(VERSION)"), "dev" otherwise.
var version = "dev"

func (e *env) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version, the commit it was built from and its Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info, _ := debug.ReadBuildInfo()
			writeVersion(e.out, version, info)
			return nil
		},
	}
}

// writeVersion writes the version lines of `kubectl cjo version`: the release v, the VCS revision the binary
// was built from ("unknown" when info, which may be nil, has none; " (modified)" when the working tree had
// uncommitted changes) and the Go version and platform.
func writeVersion(w io.Writer, v string, info *debug.BuildInfo) {
	revision, modified := "unknown", false
	goVersion := runtime.Version()
	if info != nil {
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		revision += " (modified)"
	}
	_, _ = fmt.Fprintf(w, "version: %s\nrevision: %s\ngo: %s %s/%s\n", v, revision, goVersion, runtime.GOOS, runtime.GOARCH)
}
