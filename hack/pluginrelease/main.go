// Command pluginrelease packs the release of the kubectl plugin kubectl-cjo (make plugin-release,
// make krew-manifest): one reproducible archive per platform, their SHA-256 sums and the krew manifest.
//
//	pluginrelease archives -version 0.2.0 -bin-dir DIR -license LICENSE -mtime UNIXSECONDS -out DIR [-platforms "linux/amd64 ..."]
//	    writes kubectl-cjo_v0.2.0_<os>_<arch>.tar.gz (.zip on Windows) from DIR/<os>_<arch>/kubectl-cjo[.exe]
//	pluginrelease checksums -o FILE FILE...
//	    writes the files' SHA-256 sums in the format of sha256sum
//	pluginrelease krew-manifest -version 0.2.0 -archives DIR -download-url URL -o FILE
//	    writes the krew manifest (cjo.yaml) of the archives in DIR, downloaded from URL/<archive>
//	pluginrelease krew-validate -version 0.2.0 -manifest FILE -archives DIR -validate-krew-manifest BIN -krew BIN
//	    checks the manifest with krew's validator and installs each platform's archive with krew, offline
//	pluginrelease platforms
//	    prints the release's platforms, one os/arch a line
//
// The same binaries, license and -mtime give the same archives, byte for byte, with the same Go version.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "archives":
		err = archivesCommand(args)
	case "checksums":
		err = checksumsCommand(args)
	case "krew-manifest":
		err = krewManifestCommand(args)
	case "krew-validate":
		err = krewValidateCommand(args)
	case "platforms":
		for _, p := range platforms {
			fmt.Println(p.OS + "/" + p.Arch)
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pluginrelease:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: pluginrelease archives|checksums|krew-manifest|krew-validate|platforms [flags] (pluginrelease COMMAND -h for the flags)")
	os.Exit(2)
}

func archivesCommand(args []string) error {
	fs := flag.NewFlagSet("archives", flag.ExitOnError)
	version := fs.String("version", "", "The release, without its v (0.2.0).")
	binDir := fs.String("bin-dir", "", "The directory with one <os>_<arch>/ directory of binaries per platform.")
	license := fs.String("license", "LICENSE", "The license file, packed as LICENSE.")
	mtime := fs.Int64("mtime", -1, "The modification time of every file in the archives, in Unix seconds (the commit's: git log -1 --format=%ct).")
	out := fs.String("out", "", "The directory to write the archives into.")
	only := fs.String("platforms", "", "Pack only these platforms, os/arch separated by spaces (default: all).")
	_ = fs.Parse(args)
	if err := checkVersion(*version); err != nil {
		return err
	}
	if *binDir == "" || *out == "" || *mtime < 0 {
		return errors.New("archives needs -bin-dir, -out and -mtime")
	}
	selected, err := selectPlatforms(*only)
	if err != nil {
		return err
	}
	paths, err := writeArchives(*version, selected, *binDir, *license, *out, time.Unix(*mtime, 0))
	for _, p := range paths {
		fmt.Println(p)
	}
	return err
}

func checksumsCommand(args []string) error {
	fs := flag.NewFlagSet("checksums", flag.ExitOnError)
	out := fs.String("o", "", "The file to write the sums into.")
	_ = fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("checksums needs -o and at least one file")
	}
	sums, err := checksums(fs.Args())
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeChecksums(&buf, sums); err != nil {
		return err
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

func krewManifestCommand(args []string) error {
	fs := flag.NewFlagSet("krew-manifest", flag.ExitOnError)
	version := fs.String("version", "", "The release, without its v (0.2.0).")
	archives := fs.String("archives", "", "The directory with the release's archives.")
	downloadURL := fs.String("download-url", "", "Where the release's archives are downloaded from (https://github.com/<owner>/<repo>/releases/download/v0.2.0).")
	out := fs.String("o", "", "The manifest to write; its file name must be "+manifestFileName()+".")
	_ = fs.Parse(args)
	if *archives == "" || *out == "" {
		return errors.New("krew-manifest needs -archives and -o")
	}
	if filepath.Base(*out) != manifestFileName() {
		return fmt.Errorf("-o %s: krew requires the manifest to be named %s", *out, manifestFileName())
	}
	if err := checkVersion(*version); err != nil {
		return err
	}
	sums, err := archiveSums(*version, *archives)
	if err != nil {
		return err
	}
	manifest, err := renderManifest(*version, *downloadURL, sums)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, manifest, 0o644)
}

func krewValidateCommand(args []string) error {
	fs := flag.NewFlagSet("krew-validate", flag.ExitOnError)
	version := fs.String("version", "", "The release, without its v (0.2.0).")
	manifest := fs.String("manifest", "", "The krew manifest ("+manifestFileName()+").")
	archives := fs.String("archives", "", "The directory with the release's archives.")
	var tools krewTools
	fs.StringVar(&tools.validator, "validate-krew-manifest", "", "krew's validate-krew-manifest command.")
	fs.StringVar(&tools.krew, "krew", "", "krew's command (kubectl-krew).")
	_ = fs.Parse(args)
	if *manifest == "" || *archives == "" || tools.validator == "" || tools.krew == "" {
		return errors.New("krew-validate needs -manifest, -archives, -validate-krew-manifest and -krew")
	}
	if err := checkVersion(*version); err != nil {
		return err
	}
	if err := validateWithKrew(tools, *manifest, *version, *archives); err != nil {
		return err
	}
	fmt.Printf("%s: valid for krew; installed by krew on %d platforms\n", *manifest, len(platforms))
	return nil
}
