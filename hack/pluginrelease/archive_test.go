package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// commitTime is the fixed modification time of the tests' archives (a commit's time, whole seconds).
var commitTime = time.Date(2026, time.March, 2, 10, 0, 5, 0, time.UTC)

// entry is one file read back from an archive.
type entry struct {
	Name     string
	Mode     os.FileMode
	ModTime  time.Time
	Uid, Gid int
	Owner    string
	Data     string
}

// testFiles are the files of the tests' archives, the binary last so that sorting is seen.
func testFiles() []archiveFile {
	return []archiveFile{
		{name: "kubectl-cjo", mode: 0o755, data: []byte("#!/bin/sh\necho fake kubectl-cjo\n")},
		{name: "LICENSE", mode: 0o644, data: []byte("Apache License\nVersion 2.0, January 2004\n")},
	}
}

func readTarGz(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() || zr.Comment != "" {
		t.Errorf("gzip header has name %q, time %v, comment %q; want none", zr.Name, zr.ModTime, zr.Comment)
	}
	tr := tar.NewReader(zr)
	var entries []entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{
			Name: hdr.Name, Mode: os.FileMode(hdr.Mode), ModTime: hdr.ModTime.UTC(),
			Uid: hdr.Uid, Gid: hdr.Gid, Owner: hdr.Uname + ":" + hdr.Gname, Data: string(content),
		})
	}
}

func readZip(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var entries []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{Name: f.Name, Mode: f.Mode(), ModTime: f.Modified.UTC(), Owner: ":", Data: string(content)})
	}
	return entries
}

func TestArchives(t *testing.T) {
	cases := map[string]struct {
		write func(io.Writer, []archiveFile, time.Time) error
		read  func(*testing.T, []byte) []entry
	}{
		"gzipped tarball": {write: writeTarGz, read: readTarGz},
		"zip":             {write: writeZip, read: readZip},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			archive := func(mtime time.Time) []byte {
				var buf bytes.Buffer
				if err := tc.write(&buf, testFiles(), mtime); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			}
			first := archive(commitTime)
			want := []entry{
				{Name: "LICENSE", Mode: 0o644, ModTime: commitTime, Owner: ":", Data: "Apache License\nVersion 2.0, January 2004\n"},
				{Name: "kubectl-cjo", Mode: 0o755, ModTime: commitTime, Owner: ":", Data: "#!/bin/sh\necho fake kubectl-cjo\n"},
			}
			if diff := cmp.Diff(want, tc.read(t, first)); diff != "" {
				t.Errorf("archive entries (-want,+got):\n%s", diff)
			}
			if !bytes.Equal(first, archive(commitTime.In(time.FixedZone("CET", 3600)))) {
				t.Error("the same files and time (in another zone) gave other bytes")
			}
			if bytes.Equal(first, archive(commitTime.Add(time.Hour))) {
				t.Error("another modification time gave the same bytes: the time is not in the archive")
			}
		})
	}
}

func TestWriteZipBefore1980(t *testing.T) {
	err := writeZip(io.Discard, testFiles(), time.Date(1979, time.December, 31, 0, 0, 0, 0, time.UTC))
	if err == nil || !strings.Contains(err.Error(), "before 1980") {
		t.Errorf("error = %v, want one about times before 1980", err)
	}
}

func TestWriteArchives(t *testing.T) {
	binDir, outDir := t.TempDir(), t.TempDir()
	license := filepath.Join(binDir, "LICENSE")
	if err := os.WriteFile(license, []byte("Apache License\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps := []platform{{OS: "linux", Arch: "arm64"}, {OS: "windows", Arch: "amd64"}}
	for _, p := range ps {
		if err := os.MkdirAll(filepath.Join(binDir, p.OS+"_"+p.Arch), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(binDir, p.OS+"_"+p.Arch, p.binary()), []byte("fake "+p.OS), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := writeArchives("0.2.0", ps, binDir, license, outDir, commitTime)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(outDir, "kubectl-cjo_v0.2.0_linux_arm64.tar.gz"), filepath.Join(outDir, "kubectl-cjo_v0.2.0_windows_amd64.zip")}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("archives (-want,+got):\n%s", diff)
	}
	data, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	wantEntries := []entry{
		{Name: "LICENSE", Mode: 0o644, ModTime: commitTime, Owner: ":", Data: "Apache License\n"},
		{Name: "kubectl-cjo.exe", Mode: 0o755, ModTime: commitTime, Owner: ":", Data: "fake windows"},
	}
	if diff := cmp.Diff(wantEntries, readZip(t, data)); diff != "" {
		t.Errorf("windows archive (-want,+got):\n%s", diff)
	}
	_, err = writeArchives("0.2.0", platforms, binDir, license, outDir, commitTime)
	if err == nil || !strings.Contains(err.Error(), "the linux/amd64 binary") {
		t.Errorf("error with binaries missing = %v, want one about the linux/amd64 binary", err)
	}
}
