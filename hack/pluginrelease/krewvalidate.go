package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// krewTools are the paths of krew's own commands, built from hack/tools/krew (make krew-tools).
type krewTools struct {
	// validator is validate-krew-manifest, the check krew-index runs on every manifest.
	validator string
	// krew is krew's installer (kubectl-krew).
	krew string
}

// validateWithKrew checks the manifest at manifestPath (named cjo.yaml) of release version (without its "v")
// with krew's own code, offline:
//   - validate-krew-manifest -skip-install: the manifest's structure (apiVersion, kind, a name matching the
//     file's, a semantic version, a short description, each platform's uri, 64-hex sha256, bin and os/arch
//     selector), every platform matching an os/arch krew supports and none matching one twice;
//   - for each platform of the release, `krew install --manifest --archive` of its archive in archivesDir,
//     into a throwaway KREW_ROOT with KREW_OS and KREW_ARCH set to the platform: the archive's SHA-256
//     against the manifest's, its extraction, the bin's link, and a LICENSE among the installed files (the
//     rest of validate-krew-manifest's install step, which downloads the archive instead).
//
// It returns an error with the failing command's output, or nil.
func validateWithKrew(tools krewTools, manifestPath, version, archivesDir string) error {
	if out, err := run(exec.Command(tools.validator, "-manifest", manifestPath, "-skip-install")); err != nil {
		return fmt.Errorf("validate-krew-manifest %s: %w\n%s", manifestPath, err, out)
	}
	for _, p := range platforms {
		if err := installWithKrew(tools.krew, manifestPath, filepath.Join(archivesDir, p.archive(version)), p); err != nil {
			return fmt.Errorf("krew install on %s/%s: %w", p.OS, p.Arch, err)
		}
	}
	return nil
}

// installWithKrew installs the plugin of the manifest from the archive as krew would on platform p, into
// a temporary KREW_ROOT that it removes, and checks that the plugin's link and a LICENSE were installed.
func installWithKrew(krew, manifestPath, archive string, p platform) (err error) {
	root, err := os.MkdirTemp("", "krew-root-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(root); err == nil {
			err = rerr
		}
	}()
	cmd := exec.Command(krew, "install", "--manifest="+manifestPath, "--archive="+archive)
	cmd.Env = append(os.Environ(), "KREW_ROOT="+root, "KREW_OS="+p.OS, "KREW_ARCH="+p.Arch, "KREW_NO_UPGRADE_CHECK=1")
	if out, err := run(cmd); err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(root, "bin", p.binary())); err != nil {
		return fmt.Errorf("no %s in krew's bin directory: %w", p.binary(), err)
	}
	licenses, err := filepath.Glob(filepath.Join(root, "store", pluginName, "*", "LICENSE"))
	if err != nil {
		return err
	}
	if len(licenses) == 0 {
		return fmt.Errorf("no LICENSE installed from %s", filepath.Base(archive))
	}
	return nil
}

// run runs cmd without input and returns its combined output, trimmed.
func run(cmd *exec.Cmd) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}
