package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArchiveNames(t *testing.T) {
	var got []string
	for _, p := range platforms {
		got = append(got, p.archive("0.2.0")+" "+p.binary())
	}
	want := []string{
		"kubectl-cjo_v0.2.0_linux_amd64.tar.gz kubectl-cjo",
		"kubectl-cjo_v0.2.0_linux_arm64.tar.gz kubectl-cjo",
		"kubectl-cjo_v0.2.0_darwin_amd64.tar.gz kubectl-cjo",
		"kubectl-cjo_v0.2.0_darwin_arm64.tar.gz kubectl-cjo",
		"kubectl-cjo_v0.2.0_windows_amd64.zip kubectl-cjo.exe",
		"kubectl-cjo_v0.2.0_windows_arm64.zip kubectl-cjo.exe",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("archives and binaries (-want,+got):\n%s", diff)
	}
}

func TestCheckVersion(t *testing.T) {
	cases := map[string]struct {
		version string
		wantErr bool
	}{
		"release":               {version: "0.2.0"},
		"pre-release":           {version: "1.0.0-rc.1"},
		"with its v":            {version: "v0.2.0", wantErr: true},
		"two numbers":           {version: "0.2", wantErr: true},
		"leading zero":          {version: "0.02.0", wantErr: true},
		"empty":                 {version: "", wantErr: true},
		"build metadata only":   {version: "0.2.0+abc", wantErr: true},
		"whitespace after":      {version: "0.2.0 ", wantErr: true},
		"pre-release, no label": {version: "0.2.0-", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := checkVersion(tc.version); (err != nil) != tc.wantErr {
				t.Errorf("checkVersion(%q) = %v, want an error: %v", tc.version, err, tc.wantErr)
			}
		})
	}
}

func TestSelectPlatforms(t *testing.T) {
	cases := map[string]struct {
		list    string
		want    []platform
		wantErr bool
	}{
		"none named: all": {list: " ", want: platforms},
		"two, in the release's order": {
			list: "windows/amd64 linux/amd64",
			want: []platform{{OS: "linux", Arch: "amd64"}, {OS: "windows", Arch: "amd64"}},
		},
		"one the release does not have": {list: "linux/amd64 linux/386", wantErr: true},
		"an os without its arch":        {list: "linux", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := selectPlatforms(tc.list)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want one: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(platform{})); diff != "" {
				t.Errorf("platforms (-want,+got):\n%s", diff)
			}
		})
	}
}
