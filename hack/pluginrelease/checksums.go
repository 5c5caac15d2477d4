package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// checksum is a file's base name and the hex SHA-256 of its content.
type checksum struct {
	name, sha256 string
}

// fileSHA256 returns the lowercase hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checksums returns the SHA-256 of every file of paths, sorted by base name.
func checksums(paths []string) ([]checksum, error) {
	sums := make([]checksum, 0, len(paths))
	for _, path := range paths {
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, err
		}
		sums = append(sums, checksum{name: filepath.Base(path), sha256: sum})
	}
	slices.SortFunc(sums, func(a, b checksum) int { return cmp.Compare(a.name, b.name) })
	return sums, nil
}

// writeChecksums writes sums in the format of sha256sum: one "<hex>  <name>" line each (two spaces: a binary
// file), which `sha256sum -c` and `shasum -a 256 -c` check in the files' directory.
func writeChecksums(w io.Writer, sums []checksum) error {
	for _, s := range sums {
		if _, err := fmt.Fprintf(w, "%s  %s\n", s.sha256, s.name); err != nil {
			return err
		}
	}
	return nil
}
