package plugin

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cronjob-operator/cronjob-operator/controllers/version"
)

func TestWriteVersion(t *testing.T) {
	cases := map[string]struct {
		info version.Info
		want string
	}{
		"release build from a clean checkout": {
			info: version.Info{Version: "0.2.0", Revision: "11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5", GoVersion: "go1.27.3", Platform: "darwin/arm64"},
			want: "version: v0.2.0\nrevision: 11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5\ngo: go1.27.3 darwin/arm64\n",
		},
		"build from a modified checkout": {
			info: version.Info{Version: "0.2.0", Revision: "11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5", Modified: true, GoVersion: "go1.27.3", Platform: "linux/amd64"},
			want: "version: v0.2.0\nrevision: 11155cf0c5f1b3a1f0e4c1f6a1f3a4e1b2c3d4e5 (modified)\ngo: go1.27.3 linux/amd64\n",
		},
		"a build make did not stamp": {
			info: version.Info{Version: "dev", Revision: "unknown", GoVersion: "go1.26.8", Platform: "windows/amd64"},
			want: "version: dev\nrevision: unknown\ngo: go1.26.8 windows/amd64\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			writeVersion(&out, tc.info)
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
	// A test binary is not stamped: the version is the default.
	if want := "version: dev\n"; !strings.HasPrefix(out, want) {
		t.Errorf("output = %q, want it to start with %q", out, want)
	}
}
