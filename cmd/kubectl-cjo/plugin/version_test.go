package plugin

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteVersion(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	cases := map[string]struct {
		// build
		version string
		info    *debug.BuildInfo
		// expectations
		want string
	}{
		"release build from a clean checkout": {
			version: "v0.2.0",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
				{Key: "-trimpath", Value: "true"},
				{Key: "vcs.revision", Value: "11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5"},
				{Key: "vcs.modified", Value: "false"},
			}},
			want: "version: v0.2.0\nrevision: 11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5\ngo: go1.26.8 " + platform + "\n",
		},
		"build from a modified checkout": {
			version: "v0.2.0",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5"},
				{Key: "vcs.modified", Value: "true"},
			}},
			want: "version: v0.2.0\nrevision: 11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5 (modified)\ngo: go1.26.8 " + platform + "\n",
		},
		"build without VCS stamp (-buildvcs=false)": {
			version: "dev",
			info:    &debug.BuildInfo{GoVersion: "go1.26.8"},
			want:    "version: dev\nrevision: unknown\ngo: go1.26.8 " + platform + "\n",
		},
		"no build information": {
			version: "dev",
			want:    "version: dev\nrevision: unknown\ngo: " + runtime.Version() + " " + platform + "\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			writeVersion(&out, tc.version, tc.info)
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("version output (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	out, _, err := execute(t, newCluster(t), "version")
	if err != nil {
		t.Fatal(err)
	}
	// A test binary is not stamped: the version is the default and the revision unknown.
	if want := "version: dev\nrevision: unknown\n"; !strings.HasPrefix(out, want) {
		t.Errorf("output = %q, want it to start with %q", out, want)
	}
}
