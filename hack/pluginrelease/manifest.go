package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

// manifestTemplate is the krew manifest with the release's version, URIs and checksums left to fill in.
//
//go:embed cjo.yaml.tmpl
var manifestTemplate string

// manifestData is what manifestTemplate is rendered with.
type manifestData struct {
	// Name is the plugin's name, which the manifest's file name must repeat (cjo.yaml).
	Name string
	// Version is the release with its "v": v0.2.0.
	Version   string
	Platforms []manifestPlatform
}

// manifestPlatform is one platforms[] item of the manifest.
type manifestPlatform struct {
	OS, Arch string
	// URI is where the platform's archive is downloaded from.
	URI string
	// SHA256 is the archive's SHA-256, lowercase hex.
	SHA256 string
	// Bin is the executable's path in the archive.
	Bin string
}

// renderManifest returns the krew manifest of the release version (without its "v") whose archives, named
// as platform.archive names them, are downloaded from downloadURL (no trailing slash needed:
// https://github.com/<owner>/<repo>/releases/download/v0.2.0) and have the SHA-256 sums of sums (keyed by
// archive name). It returns an error for a bad version, a download URL that is not https, or a platform
// whose archive has no sum.
func renderManifest(version, downloadURL string, sums map[string]string) ([]byte, error) {
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(downloadURL, "https://") {
		return nil, fmt.Errorf("download URL %q: krew downloads archives over https", downloadURL)
	}
	data := manifestData{Name: pluginName, Version: "v" + version}
	for _, p := range platforms {
		name := p.archive(version)
		sum, ok := sums[name]
		if !ok {
			return nil, fmt.Errorf("no SHA-256 for %s, the %s/%s archive", name, p.OS, p.Arch)
		}
		data.Platforms = append(data.Platforms, manifestPlatform{
			OS: p.OS, Arch: p.Arch, URI: strings.TrimSuffix(downloadURL, "/") + "/" + name, SHA256: sum, Bin: p.binary(),
		})
	}
	tmpl, err := template.New("cjo.yaml").Option("missingkey=error").Parse(manifestTemplate)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// archiveSums returns the SHA-256 of each platform's archive of version in dir, keyed by archive name, or
// the first error (a missing archive among them).
func archiveSums(version, dir string) (map[string]string, error) {
	sums := map[string]string{}
	for _, p := range platforms {
		name := p.archive(version)
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("the %s/%s archive (the manifest needs all %d platforms'): %w", p.OS, p.Arch, len(platforms), err)
		}
		sums[name] = sum
	}
	return sums, nil
}

// manifestFileName is the file name krew requires of the manifest: the plugin's name with .yaml.
func manifestFileName() string { return pluginName + ".yaml" }
