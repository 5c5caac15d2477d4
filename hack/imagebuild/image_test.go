package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

var created = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)

// buildFake builds the image of two fake binaries into dir and returns the options and the index digest.
func buildFake(t *testing.T, dir string, at time.Time) (options, v1.Hash) {
	t.Helper()
	var bins binaries
	for _, arch := range []string{"amd64", "arm64"} {
		p := filepath.Join(dir, "manager-"+arch)
		if err := os.WriteFile(p, []byte("binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
		bins = append(bins, platformBinary{os: "linux", arch: arch, path: p})
	}
	o := options{binaries: bins, version: "0.2.0", revision: "abc123", created: at, out: filepath.Join(dir, "image")}
	digest, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	return o, digest
}

// TestBuildWritesAMultiPlatformIndex: the layout's index has an image per platform, each running /manager
// (the platform's binary, mode 0755) as 65532:65532, with the OCI labels.
func TestBuildWritesAMultiPlatformIndex(t *testing.T) {
	o, digest := buildFake(t, t.TempDir(), created)
	p, err := layout.FromPath(o.out)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex() // the layout's index.json is the image index
	if err != nil {
		t.Fatal(err)
	}
	if got, err := idx.Digest(); err != nil || got != digest {
		t.Fatalf("the layout's index is %s (%v), want %s", got, err, digest)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.Annotations["org.opencontainers.image.version"] != "0.2.0" || im.Annotations["org.opencontainers.image.revision"] != "abc123" {
		t.Errorf("index annotations = %v", im.Annotations)
	}
	if len(im.Manifests) != 2 {
		t.Fatalf("%d manifests, want 2", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		arch := d.Platform.Architecture
		if d.Platform.OS != "linux" || cf.Architecture != arch || cf.OS != "linux" {
			t.Errorf("platform %v, config %s/%s", d.Platform, cf.OS, cf.Architecture)
		}
		if cf.Config.User != "65532:65532" || len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != "/manager" {
			t.Errorf("%s: user %q entrypoint %v", arch, cf.Config.User, cf.Config.Entrypoint)
		}
		if cf.Config.Labels["org.opencontainers.image.licenses"] != "Apache-2.0" || cf.Config.Labels["org.opencontainers.image.source"] == "" {
			t.Errorf("%s: labels %v", arch, cf.Config.Labels)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 1 {
			t.Fatalf("%s: layers %v %v", arch, layers, err)
		}
		rc, err := layers[0].Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		h, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if h.Name != "manager" || h.Mode != 0o755 || string(data) != "binary for "+arch {
			t.Errorf("%s: layer holds %s mode %o: %q", arch, h.Name, h.Mode, data)
		}
	}
	if _, err := os.Stat(o.out + ".tar"); err != nil {
		t.Errorf("no tar of the layout: %v", err)
	}
}

// TestBuildIsReproducible: the same inputs give the same index digest; another creation time another.
func TestBuildIsReproducible(t *testing.T) {
	_, first := buildFake(t, t.TempDir(), created)
	_, second := buildFake(t, t.TempDir(), created)
	_, later := buildFake(t, t.TempDir(), created.Add(time.Hour))
	if first != second {
		t.Errorf("two builds of the same inputs: %s and %s", first, second)
	}
	if first == later {
		t.Errorf("a build at another time has the same digest %s", first)
	}
}
