package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// krewToolsDir holds krew's commands once a test has built them; TestMain removes it.
var krewToolsDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if krewToolsDir != "" {
		_ = os.RemoveAll(krewToolsDir)
	}
	os.Exit(code)
}

// buildKrewTools builds validate-krew-manifest and krew from their own module, hack/tools/krew, which pins
// krew's version (cold: about half a minute and krew's modules from the Go module proxy; warm: a second).
var buildKrewTools = sync.OnceValues(func() (krewTools, error) {
	dir, err := os.MkdirTemp("", "krew-tools-")
	if err != nil {
		return krewTools{}, err
	}
	krewToolsDir = dir
	cmd := exec.Command("go", "build", "-trimpath", "-o", dir+string(filepath.Separator),
		"sigs.k8s.io/krew/cmd/krew", "sigs.k8s.io/krew/cmd/validate-krew-manifest")
	cmd.Dir = filepath.Join("..", "tools", "krew")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := run(cmd); err != nil {
		return krewTools{}, fmt.Errorf("building krew's commands in hack/tools/krew: %w\n%s", err, out)
	}
	return krewTools{validator: filepath.Join(dir, "validate-krew-manifest"), krew: filepath.Join(dir, "krew")}, nil
})

// fakeRelease writes the archives of release 0.2.0 into dir, each holding a fake binary and LICENSE
// (files, when given, replace them in the linux/amd64 archive), and returns the manifest rendered for them.
func fakeRelease(t *testing.T, dir string, linuxAMD64 []archiveFile) []byte {
	t.Helper()
	for _, p := range platforms {
		files := []archiveFile{
			{name: p.binary(), mode: 0o755, data: []byte("#!/bin/sh\necho fake " + p.OS + "/" + p.Arch + "\n")},
			{name: "LICENSE", mode: 0o644, data: []byte("Apache License\nVersion 2.0, January 2004\n")},
		}
		if p == (platform{OS: "linux", Arch: "amd64"}) && linuxAMD64 != nil {
			files = linuxAMD64
		}
		if err := writeArchiveFile(filepath.Join(dir, p.archive("0.2.0")), p, files, commitTime); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := archiveSums("0.2.0", dir)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := renderManifest("0.2.0", testDownloadURL, sums)
	if err != nil {
		t.Fatal(err)
	}
	return manifest
}

// platformAt returns platforms[i] of the parsed manifest m.
func platformAt(m map[string]any, i int) map[string]any {
	return m["spec"].(map[string]any)["platforms"].([]any)[i].(map[string]any)
}

// TestManifestValidForKrew checks a manifest rendered for fake archives, and broken variants of it, with
// krew's own validate-krew-manifest and `krew install --archive` on every platform.
func TestManifestValidForKrew(t *testing.T) {
	if testing.Short() {
		t.Skip("builds krew's commands")
	}
	tools, err := buildKrewTools()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		// release
		file       string               // the manifest's file name; cjo.yaml when empty
		linuxAMD64 []archiveFile        // the files of the linux/amd64 archive; a binary and LICENSE when nil
		edit       func(map[string]any) // a change to the rendered manifest; none when nil
		// expectations
		wantErr string
	}{
		"as rendered": {},
		"file named otherwise than the plugin": {
			file:    "cronjob.yaml",
			wantErr: `plugin should be named "cronjob", not "cjo"`,
		},
		"a name krew forbids": {
			file:    "c.jo.yaml",
			wantErr: `the plugin name "c.jo" is not allowed`,
		},
		"version without its v": {
			edit:    func(m map[string]any) { m["spec"].(map[string]any)["version"] = "0.2.0" },
			wantErr: "failed to parse plugin version",
		},
		"a platform without a selector": {
			edit:    func(m map[string]any) { delete(platformAt(m, 0), "selector") },
			wantErr: "nil selector is not supported",
		},
		"a sha256 one digit short": {
			edit: func(m map[string]any) {
				platformAt(m, 2)["sha256"] = platformAt(m, 2)["sha256"].(string)[1:]
			},
			wantErr: "is not valid, must match pattern",
		},
		"two platforms selecting linux/amd64": {
			edit: func(m map[string]any) {
				platformAt(m, 1)["selector"].(map[string]any)["matchLabels"].(map[string]any)["arch"] = "amd64"
			},
			wantErr: "overlapping platform selectors found",
		},
		"a platform krew does not know": {
			edit: func(m map[string]any) {
				platformAt(m, 0)["selector"].(map[string]any)["matchLabels"].(map[string]any)["os"] = "plan9"
			},
			wantErr: "doesn't match any supported platforms",
		},
		"the sha256 of another platform's archive": {
			edit:    func(m map[string]any) { platformAt(m, 3)["sha256"] = platformAt(m, 2)["sha256"] },
			wantErr: "checksum does not match",
		},
		"a bin the archive does not hold": {
			edit:    func(m map[string]any) { platformAt(m, 4)["bin"] = "kubectl-cjo" },
			wantErr: "cannot be found in extracted archive",
		},
		"an archive without LICENSE": {
			linuxAMD64: []archiveFile{{name: "kubectl-cjo", mode: 0o755, data: []byte("#!/bin/sh\n")}},
			wantErr:    "krew install on linux/amd64: no LICENSE installed",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			manifest := fakeRelease(t, dir, tc.linuxAMD64)
			if tc.edit != nil {
				var m map[string]any
				if err := yaml.Unmarshal(manifest, &m); err != nil {
					t.Fatal(err)
				}
				tc.edit(m)
				var err error
				if manifest, err = yaml.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, manifestFileName())
			if tc.file != "" {
				path = filepath.Join(dir, tc.file)
			}
			if err := os.WriteFile(path, manifest, 0o644); err != nil {
				t.Fatal(err)
			}
			err := validateWithKrew(tools, path, "0.2.0", dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("krew rejects the manifest: %v\n%s", err, manifest)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
