package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// options are the command's flags.
type options struct {
	binaries          binaries
	version, revision string
	created           time.Time
	out               string
}

// user is the image's user: the non-root uid and gid of distroless, which config/manager's Pod
// securityContext also names.
const user = "65532:65532"

// labels are the OCI annotations of the image, as the Dockerfile's LABEL sets them.
func labels(o options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "cronjob-operator",
		"org.opencontainers.image.description": "A Kubernetes CronJob operator (batch.cronjob-operator.dev)",
		"org.opencontainers.image.source":      "https://github.com/cronjob-operator/cronjob-operator",
		"org.opencontainers.image.url":         "https://github.com/cronjob-operator/cronjob-operator",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.revision":    o.revision,
		"org.opencontainers.image.created":     o.created.UTC().Format(time.RFC3339),
	}
}

// build writes the OCI layout of the multi-platform image and its tar, and returns the index's digest.
func build(o options) (v1.Hash, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, b := range o.binaries {
		img, err := platformImage(o, b)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("%s/%s: %w", b.os, b.arch, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: b.os, Architecture: b.arch}}})
	}
	idx = mutate.AppendManifests(idx, adds...)
	idx = mutate.Annotations(idx, labels(o)).(v1.ImageIndex)
	if err := os.RemoveAll(o.out); err != nil {
		return v1.Hash{}, err
	}
	if _, err := layout.Write(o.out, idx); err != nil {
		return v1.Hash{}, err
	}
	if err := tarDir(o.out, o.out+".tar", o.created); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// platformImage is the image of one platform: one layer with the binary at /manager.
func platformImage(o options, b platformBinary) (v1.Image, error) {
	bin, err := os.ReadFile(b.path)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(fileTar("manager", bin, o.created))), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: o.created}, CreatedBy: "imagebuild: COPY manager /manager"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = b.os, b.arch
	cf.Created = v1.Time{Time: o.created}
	cf.Config.User = user
	cf.Config.Entrypoint = []string{"/manager"}
	cf.Config.Labels = labels(o)
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels(o)).(v1.Image), nil
}

// fileTar is a tar stream holding one file, name, of mode 0755 owned by root, dated at.
func fileTar(name string, data []byte, at time.Time) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: at, Typeflag: tar.TypeReg, Format: tar.FormatPAX})
	_, _ = tw.Write(data)
	_ = tw.Close()
	return buf.Bytes()
}

// tarDir writes a tar of the files under dir to path, in lexical order, dated at, for `docker load`-free
// transport of the layout (skopeo copy oci-archive:...).
func tarDir(dir, path string, at time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Name: rel + "/", Mode: 0o755, ModTime: at, Typeflag: tar.TypeDir, Format: tar.FormatPAX})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: rel, Mode: 0o644, Size: int64(len(data)), ModTime: at, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}
