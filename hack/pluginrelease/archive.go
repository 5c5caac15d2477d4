package main

import (
	"archive/tar"
	"archive/zip"
	"cmp"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// archiveFile is one regular file of a release archive.
type archiveFile struct {
	// name is the file's path in the archive ("kubectl-cjo", "LICENSE").
	name string
	// mode holds the permission bits (0o755 for the binary, 0o644 otherwise).
	mode os.FileMode
	data []byte
}

// writeTarGz writes files as a gzipped tarball that depends on nothing but its arguments: entries sorted by
// name, every one owned by uid and gid 0 with no owner names and modified at mtime (whole seconds, UTC); a
// ustar archive; a gzip header with neither a file name nor a time. It returns the writer's first error, or
// an error when a name does not fit a ustar header.
func writeTarGz(w io.Writer, files []archiveFile, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, f := range sortedFiles(files) {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.name,
			Mode:     int64(f.mode.Perm()),
			Size:     int64(len(f.data)),
			ModTime:  mtime.UTC().Truncate(time.Second),
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("writing the tar header of %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeZip writes files as a zip archive that depends on nothing but its arguments: entries sorted by name,
// deflated at the best compression, modified at mtime (UTC; zip cannot store a time before 1980, which is an
// error) with Unix permission bits. It returns the writer's first error.
func writeZip(w io.Writer, files []archiveFile, mtime time.Time) error {
	if mtime.UTC().Year() < 1980 {
		return fmt.Errorf("modification time %s: zip archives cannot store times before 1980", mtime.UTC().Format(time.RFC3339))
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range sortedFiles(files) {
		hdr := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime.UTC().Truncate(time.Second)}
		hdr.SetMode(f.mode.Perm())
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("writing the zip header of %s: %w", f.name, err)
		}
		if _, err := fw.Write(f.data); err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	return zw.Close()
}

// sortedFiles returns a copy of files sorted by name.
func sortedFiles(files []archiveFile) []archiveFile {
	return slices.SortedFunc(slices.Values(files), func(a, b archiveFile) int { return cmp.Compare(a.name, b.name) })
}

// writeArchives writes the release archive of each platform of ps into outDir: the platform's binary, read from
// binDir/<os>_<arch>/, as an executable at the archive's root, and the license file license as LICENSE,
// both modified at mtime. It returns the archives' paths, in the order of ps, or the first error
// (a missing binary among them).
func writeArchives(version string, ps []platform, binDir, license, outDir string, mtime time.Time) ([]string, error) {
	licenseData, err := os.ReadFile(license)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range ps {
		bin, err := os.ReadFile(filepath.Join(binDir, p.OS+"_"+p.Arch, p.binary()))
		if err != nil {
			return nil, fmt.Errorf("the %s/%s binary: %w", p.OS, p.Arch, err)
		}
		files := []archiveFile{{name: p.binary(), mode: 0o755, data: bin}, {name: "LICENSE", mode: 0o644, data: licenseData}}
		path := filepath.Join(outDir, p.archive(version))
		if err := writeArchiveFile(path, p, files, mtime); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeArchiveFile writes files into the archive at path in the platform's format (zip or tar.gz).
func writeArchiveFile(path string, p platform, files []archiveFile, mtime time.Time) (err error) {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if p.zipped() {
		err = writeZip(out, files, mtime)
	} else {
		err = writeTarGz(out, files, mtime)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
