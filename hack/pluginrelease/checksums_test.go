package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChecksums(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"b.zip": "hello\n", "a.tar.gz": ""}
	var paths []string
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	sums, err := checksums(paths)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeChecksums(&out, sums); err != nil {
		t.Fatal(err)
	}
	// sha256sum's own output for these files, in the order of their names.
	want := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.tar.gz\n" +
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  b.zip\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("checksums (-want,+got):\n%s", diff)
	}
	if _, err := checksums([]string{filepath.Join(dir, "missing.zip")}); err == nil {
		t.Error("a missing file gave no error")
	}
}
