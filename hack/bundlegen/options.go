package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

// packageName is the OLM package of the bundle, and the prefix of the CSV's name (cronjob-operator.vX.Y.Z).
const packageName = "cronjob-operator"

// options are what a bundle is made for.
type options struct {
	// version is the release; the CSV is named packageName.v<version>.
	version semver.Version
	// image is the manager's image: the Deployment's and the CSV's containerImage and relatedImages.
	image string
	// icon is the SVG shown by catalogs; empty for none.
	icon []byte
	// channels are the bundle's channels, defaultChannel the package's default one.
	channels       []string
	defaultChannel string
}

// newOptions checks the command's flags and returns the options they give. version must be a semantic
// version without "v"; image must name a tag other than latest, or a digest (a bundle installs one release,
// so it never names a moving tag); iconFile, when not empty, is read; channels is comma-separated and
// defaultChannel, when empty, is its first entry, else must be one of them.
func newOptions(version, image, iconFile, channels, defaultChannel string) (options, error) {
	var o options
	v, err := semver.Parse(version)
	if err != nil {
		return o, fmt.Errorf("-version %q: %w (a semantic version without the v, such as 0.2.0)", version, err)
	}
	o.version = v
	if err := checkImage(image); err != nil {
		return o, err
	}
	o.image = image
	if iconFile != "" {
		if o.icon, err = os.ReadFile(iconFile); err != nil {
			return o, err
		}
	}
	for c := range strings.SplitSeq(channels, ",") {
		if c = strings.TrimSpace(c); c != "" {
			o.channels = append(o.channels, c)
		}
	}
	if len(o.channels) == 0 {
		return o, errors.New("-channels names no channel")
	}
	o.defaultChannel = defaultChannel
	if o.defaultChannel == "" {
		o.defaultChannel = o.channels[0]
	}
	if slices.Contains(o.channels, o.defaultChannel) {
		return o, nil
	}
	return o, fmt.Errorf("-default-channel %q is not one of -channels %q", defaultChannel, channels)
}

// checkImage returns an error unless image names a tag other than latest, or a digest.
func checkImage(image string) error {
	if image == "" {
		return errors.New("-image is required: the manager image the bundle installs, such as ghcr.io/cronjob-operator/cronjob-operator:v0.2.0")
	}
	if strings.Contains(image, "@sha256:") {
		return nil
	}
	lastPart := image[strings.LastIndex(image, "/")+1:]
	_, tag, found := strings.Cut(lastPart, ":")
	if !found || tag == "" || tag == "latest" {
		return fmt.Errorf("-image %q: name a release's tag (or a digest), not latest or no tag: a bundle installs one release", image)
	}
	return nil
}
