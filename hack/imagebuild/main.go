// Command imagebuild assembles the manager image for several platforms without Docker or a registry: for
// each platform a one-layer image of the static manager binary built on the host (the same image as the
// Dockerfile's stages: /manager, user 65532:65532, the OCI labels), and an image index over them, written
// as an OCI image layout (a directory, and a tar of it). make release-snapshot runs it; a registry push is
// then a copy of the layout (crane push, skopeo copy oci:...), which the release workflow leaves to
// docker buildx.
//
// Usage:
//
//	imagebuild -version 0.2.0 -revision <commit> -created 2026-12-04T10:00:00Z \
//	  -binary linux/amd64=bin/release/manager-linux-amd64 -binary linux/arm64=bin/release/manager-linux-arm64 \
//	  -out bin/release/image
//
// The same inputs give the same digests: every time in the image is -created (the commit's time), and the
// layer's file has fixed owner and mode.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// binaries is the repeatable -binary flag: platform=path.
type binaries []platformBinary

type platformBinary struct{ os, arch, path string }

func (b *binaries) String() string { return fmt.Sprint(*b) }

func (b *binaries) Set(v string) error {
	platform, path, ok := strings.Cut(v, "=")
	osName, arch, ok2 := strings.Cut(platform, "/")
	if !ok || !ok2 || path == "" || osName == "" || arch == "" {
		return fmt.Errorf("want os/arch=path, got %q", v)
	}
	*b = append(*b, platformBinary{os: osName, arch: arch, path: path})
	return nil
}

func main() {
	var o options
	flag.Var(&o.binaries, "binary", "os/arch=path of a static manager binary; repeat for each platform")
	flag.StringVar(&o.version, "version", "", "the release version without the v (org.opencontainers.image.version)")
	flag.StringVar(&o.revision, "revision", "", "the git commit (org.opencontainers.image.revision)")
	created := flag.String("created", "", "RFC 3339 time of every date in the image (the commit's time, for reproducible digests)")
	flag.StringVar(&o.out, "out", "", "directory of the OCI image layout to write (replaced); a tar of it is written beside it as <out>.tar")
	flag.Parse()
	var err error
	if o.created, err = time.Parse(time.RFC3339, *created); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild: -created:", err)
		os.Exit(2)
	}
	if len(o.binaries) == 0 || o.version == "" || o.out == "" {
		flag.Usage()
		os.Exit(2)
	}
	digest, err := build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
	fmt.Printf("imagebuild: wrote %s (index %s, %d platforms) and %s.tar\n", o.out, digest, len(o.binaries), o.out)
}
