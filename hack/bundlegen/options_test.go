package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewOptions(t *testing.T) {
	cases := map[string]struct {
		// flags
		version, image, channels, defaultChannel string
		// expectations
		wantErr                string
		wantChannels           []string
		wantDefaultChannel     string
		wantVersion, wantImage string
	}{
		"a release and its tag": {
			version: "0.2.0", image: "ghcr.io/cronjob-operator/cronjob-operator:v0.2.0", channels: "stable",
			wantVersion: "0.2.0", wantImage: "ghcr.io/cronjob-operator/cronjob-operator:v0.2.0",
			wantChannels: []string{"stable"}, wantDefaultChannel: "stable",
		},
		"a digest, two channels, the second the default": {
			version: "1.0.0-rc.1", image: "registry.example:5000/op@sha256:0123", channels: "candidate, stable", defaultChannel: "stable",
			wantVersion: "1.0.0-rc.1", wantImage: "registry.example:5000/op@sha256:0123",
			wantChannels: []string{"candidate", "stable"}, wantDefaultChannel: "stable",
		},
		"a registry with a port and a tag": {
			version: "0.2.0", image: "registry.example:5000/op:v0.2.0", channels: "stable",
			wantVersion: "0.2.0", wantImage: "registry.example:5000/op:v0.2.0",
			wantChannels: []string{"stable"}, wantDefaultChannel: "stable",
		},
		"latest is refused":               {version: "0.2.0", image: "ghcr.io/op:latest", channels: "stable", wantErr: "not latest"},
		"no tag is refused":               {version: "0.2.0", image: "registry.example:5000/op", channels: "stable", wantErr: "not latest or no tag"},
		"no image is refused":             {version: "0.2.0", channels: "stable", wantErr: "-image is required"},
		"a v before the version":          {version: "v0.2.0", image: "op:v0.2.0", channels: "stable", wantErr: "-version"},
		"no channel":                      {version: "0.2.0", image: "op:v0.2.0", channels: " , ", wantErr: "no channel"},
		"a default that is not a channel": {version: "0.2.0", image: "op:v0.2.0", channels: "stable", defaultChannel: "fast", wantErr: "-default-channel"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o, err := newOptions(tc.version, tc.image, "", tc.channels, tc.defaultChannel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("newOptions() error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("newOptions() error = %v", err)
			}
			got := []string{o.version.String(), o.image, o.defaultChannel}
			if diff := cmp.Diff([]string{tc.wantVersion, tc.wantImage, tc.wantDefaultChannel}, got); diff != "" {
				t.Errorf("version, image, default channel (-want,+got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantChannels, o.channels); diff != "" {
				t.Errorf("channels (-want,+got):\n%s", diff)
			}
		})
	}
}
