package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name          string
		version       string
		bi            *debug.BuildInfo
		wantString    string
		wantUserAgent string
	}{
		{
			name:    "a release build from a clean tree",
			version: "0.2.0",
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
				{Key: "GOOS", Value: "linux"}, {Key: "vcs.revision", Value: "3f2a9c1b0d4e5f60718293a4b5c6d7e8f9a0b1c2"}, {Key: "vcs.modified", Value: "false"},
			}},
			wantString:    "cronjob-operator 0.2.0 (revision 3f2a9c1b0d4e, PLATFORM, go1.26.8)",
			wantUserAgent: "cronjob-operator/0.2.0 (PLATFORM) 3f2a9c1b0d4e",
		},
		{
			name:    "a build from a modified tree says so",
			version: "0.2.0",
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "3f2a9c1b0d4e5f60718293a4b5c6d7e8f9a0b1c2"}, {Key: "vcs.modified", Value: "true"},
			}},
			wantString:    "cronjob-operator 0.2.0 (revision 3f2a9c1b0d4e-modified, PLATFORM, go1.26.8)",
			wantUserAgent: "cronjob-operator/0.2.0 (PLATFORM) 3f2a9c1b0d4e-modified",
		},
		{
			name:          "an unstamped build outside git",
			version:       "dev",
			bi:            &debug.BuildInfo{GoVersion: "go1.26.8"},
			wantString:    "cronjob-operator dev (revision unknown, PLATFORM, go1.26.8)",
			wantUserAgent: "cronjob-operator/dev (PLATFORM) unknown",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := fromBuildInfo(tc.version, tc.bi)
			want := func(s string) string { return strings.Replace(s, "PLATFORM", info.Platform, 1) }
			if got := info.String(); got != want(tc.wantString) {
				t.Errorf("String() = %q, want %q", got, want(tc.wantString))
			}
			if got := info.UserAgent(); got != want(tc.wantUserAgent) {
				t.Errorf("UserAgent() = %q, want %q", got, want(tc.wantUserAgent))
			}
		})
	}
}

// TestGetReportsTheStampedVersion: Get reads the package's Version, which -ldflags -X sets.
func TestGetReportsTheStampedVersion(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "9.8.7"
	if got := Get().Version; got != "9.8.7" {
		t.Errorf("Get().Version = %q, want the stamped 9.8.7", got)
	}
}

// TestGetPrefersTheStampedRevision: a build without .git (the Dockerfile's) stamps Revision, which wins.
func TestGetPrefersTheStampedRevision(t *testing.T) {
	old := Revision
	t.Cleanup(func() { Revision = old })
	Revision = "0123456789abcdef0123"
	if got := Get(); got.Revision != "0123456789abcdef0123" || got.Modified {
		t.Errorf("Get() = %+v, want the stamped revision, not modified", got)
	}
	Revision = "0123456789abcdef0123-modified"
	if got := Get(); got.Revision != "0123456789abcdef0123" || !got.Modified {
		t.Errorf("Get() = %+v, want the stamped revision, modified", got)
	}
}
