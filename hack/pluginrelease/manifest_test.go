package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

const testDownloadURL = "https://github.com/cronjob-operator/cronjob-operator/releases/download/v0.2.0"

// fakeSums returns a distinct made-up SHA-256 for each archive of release 0.2.0.
func fakeSums() map[string]string {
	sums := map[string]string{}
	for i, p := range platforms {
		sums[p.archive("0.2.0")] = strings.Repeat(string(rune('a'+i)), 64)
	}
	return sums
}

// parsedManifest is the part of a krew manifest the tests compare.
type parsedManifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Bin    string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
}

func TestRenderManifest(t *testing.T) {
	out, err := renderManifest("0.2.0", testDownloadURL+"/", fakeSums())
	if err != nil {
		t.Fatal(err)
	}
	var m parsedManifest
	if err := yaml.UnmarshalStrict(out, &m); err != nil {
		t.Fatalf("the manifest is not YAML: %v\n%s", err, out)
	}
	if m.Spec.ShortDescription == "" || m.Spec.Description == "" || m.Spec.Caveats == "" {
		t.Errorf("a description or the caveats are empty:\n%s", out)
	}
	got := []string{m.APIVersion, m.Kind, m.Metadata.Name, m.Spec.Version, m.Spec.Homepage}
	for _, p := range m.Spec.Platforms {
		got = append(got, p.Selector.MatchLabels["os"]+"/"+p.Selector.MatchLabels["arch"]+" "+p.URI+" "+p.SHA256[:3]+" "+p.Bin)
	}
	want := []string{
		"krew.googlecontainertools.github.com/v1alpha2", "Plugin", "cjo", "v0.2.0",
		"https://github.com/cronjob-operator/cronjob-operator",
		"linux/amd64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_linux_amd64.tar.gz aaa kubectl-cjo",
		"linux/arm64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_linux_arm64.tar.gz bbb kubectl-cjo",
		"darwin/amd64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_darwin_amd64.tar.gz ccc kubectl-cjo",
		"darwin/arm64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_darwin_arm64.tar.gz ddd kubectl-cjo",
		"windows/amd64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_windows_amd64.zip eee kubectl-cjo.exe",
		"windows/arm64 " + testDownloadURL + "/kubectl-cjo_v0.2.0_windows_arm64.zip fff kubectl-cjo.exe",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest (-want,+got):\n%s", diff)
	}
}

func TestRenderManifestErrors(t *testing.T) {
	withoutWindowsArm := fakeSums()
	delete(withoutWindowsArm, "kubectl-cjo_v0.2.0_windows_arm64.zip")
	cases := map[string]struct {
		version, downloadURL string
		sums                 map[string]string
		wantErr              string
	}{
		"version with its v": {
			version: "v0.2.0", downloadURL: testDownloadURL, sums: fakeSums(),
			wantErr: `version "v0.2.0" is not a semantic version without a leading v`,
		},
		"download over http": {
			version: "0.2.0", downloadURL: "http://example.com/v0.2.0", sums: fakeSums(),
			wantErr: "krew downloads archives over https",
		},
		"an archive without its sum": {
			version: "0.2.0", downloadURL: testDownloadURL, sums: withoutWindowsArm,
			wantErr: "no SHA-256 for kubectl-cjo_v0.2.0_windows_arm64.zip, the windows/arm64 archive",
		},
		"sums of another version": {
			version: "0.2.1", downloadURL: testDownloadURL, sums: fakeSums(),
			wantErr: "no SHA-256 for kubectl-cjo_v0.2.1_linux_amd64.tar.gz",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := renderManifest(tc.version, tc.downloadURL, tc.sums)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
