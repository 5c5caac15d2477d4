package plugin

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cronjob-operator/cronjob-operator/controllers/version"
)

func (e *env) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version, the commit it was built from and its Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			writeVersion(e.out, version.Get())
			return nil
		},
	}
}

// writeVersion writes the lines of `kubectl cjo version`: the release ("v0.2.0", or "dev" for a build that
// make did not stamp), the commit the binary was built from ("unknown" when none was recorded; " (modified)"
// when the tree had uncommitted changes) and the Go version and platform. The version and commit are those
// of controllers/version, which the Makefile stamps into the manager too.
func writeVersion(w io.Writer, info version.Info) {
	v := info.Version
	if v != "dev" {
		v = "v" + v
	}
	revision := info.Revision
	if info.Modified {
		revision += " (modified)"
	}
	_, _ = fmt.Fprintf(w, "version: %s\nrevision: %s\ngo: %s %s\n", v, revision, info.GoVersion, info.Platform)
}
