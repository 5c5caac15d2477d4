package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// pluginName is the plugin's name for kubectl and krew: the binary is kubectl-<pluginName>.
const pluginName = "cjo"

// platform is one operating system and architecture the plugin is released for, in Go's names (GOOS, GOARCH),
// which are also krew's selector values.
type platform struct {
	OS, Arch string
}

// platforms are the platforms of a release, linux, darwin and windows on amd64 and arm64, in the order of the
// krew manifest.
var platforms = func() []platform {
	oses, arches := []string{"linux", "darwin", windows}, []string{"amd64", "arm64"}
	ps := make([]platform, 0, len(oses)*len(arches))
	for _, goos := range oses {
		for _, arch := range arches {
			ps = append(ps, platform{OS: goos, Arch: arch})
		}
	}
	return ps
}()

// windows is Windows' GOOS: its binary ends in .exe and its archive is a zip file.
const windows = "windows"

// selectPlatforms returns the platforms named in list, os/arch separated by spaces, in the order of
// platforms; all of them when list is empty. It returns an error for a platform the release does not have.
func selectPlatforms(list string) ([]platform, error) {
	if strings.TrimSpace(list) == "" {
		return platforms, nil
	}
	names := strings.Fields(list)
	for _, name := range names {
		if !slices.ContainsFunc(platforms, func(p platform) bool { return p.OS+"/"+p.Arch == name }) {
			return nil, fmt.Errorf("platform %q is not one of the release's (linux, darwin, windows on amd64, arm64)", name)
		}
	}
	return slices.DeleteFunc(slices.Clone(platforms), func(p platform) bool { return !slices.Contains(names, p.OS+"/"+p.Arch) }), nil
}

// binary returns the file name of the plugin's executable: kubectl-cjo, kubectl-cjo.exe on Windows.
func (p platform) binary() string {
	if p.OS == windows {
		return "kubectl-" + pluginName + ".exe"
	}
	return "kubectl-" + pluginName
}

// zipped reports whether the platform's archive is a zip file (Windows, whose file manager opens zip files)
// rather than a gzipped tarball; krew installs both.
func (p platform) zipped() bool { return p.OS == windows }

// archive returns the file name of the platform's release archive for version (without its "v"):
// kubectl-cjo_v0.2.0_linux_amd64.tar.gz, kubectl-cjo_v0.2.0_windows_amd64.zip.
func (p platform) archive(version string) string {
	ext := ".tar.gz"
	if p.zipped() {
		ext = ".zip"
	}
	return fmt.Sprintf("kubectl-%s_v%s_%s_%s%s", pluginName, version, p.OS, p.Arch, ext)
}

// releaseVersion is a release as the Makefile's VERSION gives it: MAJOR.MINOR.PATCH with an optional
// pre-release and no leading "v" (0.2.0, 1.0.0-rc.1).
var releaseVersion = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

// checkVersion returns an error unless version is a release as releaseVersion describes it.
func checkVersion(version string) error {
	if !releaseVersion.MatchString(version) {
		return fmt.Errorf("version %q is not a semantic version without a leading v, such as 0.2.0", version)
	}
	return nil
}
