package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLatestFixed(t *testing.T) {
	semverRange := func(events ...event) osvRange { return osvRange{Type: "SEMVER", Events: events} }
	testCases := map[string]struct {
		ranges []osvRange
		want   string
	}{
		"no range": {},
		"introduced, never fixed": {
			ranges: []osvRange{semverRange(event{Introduced: "0"})},
		},
		"fixed once": {
			ranges: []osvRange{semverRange(event{Introduced: "0"}, event{Fixed: "2.2.8"})},
			want:   "2.2.8",
		},
		"fixed on two lines: the higher fix": {
			ranges: []osvRange{semverRange(event{Introduced: "0"}, event{Fixed: "1.4.3"},
				event{Introduced: "1.5.0"}, event{Fixed: "1.5.2"})},
			want: "1.5.2",
		},
		"fixed in two ranges: the higher fix": {
			ranges: []osvRange{semverRange(event{Introduced: "0"}, event{Fixed: "1.10.0"}),
				semverRange(event{Introduced: "0"}, event{Fixed: "1.9.0"})},
			want: "1.10.0",
		},
		"introduced again after the last fix: no fix": {
			ranges: []osvRange{semverRange(event{Introduced: "0"}, event{Fixed: "1.2.0"}, event{Introduced: "2.0.0"})},
		},
		"pseudo-versions compare by time": {
			ranges: []osvRange{semverRange(event{Introduced: "0.0.0-20250721152936-fe86ceb2c3fa"},
				event{Fixed: "0.0.0-20260626085133-7cb96ac80a6d"})},
			want: "0.0.0-20260626085133-7cb96ac80a6d",
		},
		"a range that is not SEMVER is ignored": {
			ranges: []osvRange{{Type: "GIT", Events: []event{{Introduced: "0"}, {Fixed: "abc123"}}}},
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {
			if got := latestFixed(tc.ranges); got != tc.want {
				t.Errorf("latestFixed() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewIndex(t *testing.T) {
	snapshot := time.Date(2026, 11, 5, 23, 49, 57, 0, time.UTC)
	later := time.Date(2026, 11, 6, 8, 0, 0, 0, time.UTC)
	testCases := map[string]struct {
		entries      []entry
		wantModified time.Time
		wantErr      bool
	}{
		"undated entries: the snapshot's time": {
			entries:      []entry{{ID: "GO-2020-0036"}, {ID: "GO-2021-0061"}},
			wantModified: snapshot,
		},
		"an entry modified after the snapshot: the entry's time": {
			entries:      []entry{{ID: "GO-2020-0036"}, {ID: "GO-2021-0061", Modified: later}},
			wantModified: later,
		},
		"two entries with one id": {
			entries: []entry{{ID: "GO-2020-0036"}, {ID: "GO-2020-0036"}},
			wantErr: true,
		},
		"an entry without id": {
			entries: []entry{{}},
			wantErr: true,
		},
	}
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {
			idx, err := newIndex(tc.entries, snapshot)
			if (err != nil) != tc.wantErr {
				t.Fatalf("newIndex() error = %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && !idx.db.Modified.Equal(tc.wantModified) {
				t.Errorf("modified = %v, want %v", idx.db.Modified, tc.wantModified)
			}
		})
	}
}

// TestRun builds a database from two OSV entries in the snapshot's format (testdata/osv) and compares its
// files with the ones golang.org/x/vulndb's cmd/indexdb writes for them (testdata/want), but db.json, which
// has the -modified date instead of the entries' zero time.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "db")
	if err := run("testdata/osv", out, "2026-11-05T23:49:57Z"); err != nil {
		t.Fatalf("run() = %v", err)
	}
	for _, name := range []string{"index/db.json", "index/modules.json", "index/vulns.json",
		"ID/GO-2020-0036.json", "ID/GO-2022-0603.json"} {
		want, err := os.ReadFile(filepath.Join("testdata/want", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s (-want,+got):\n%s", name, diff)
		}
	}
}

func TestRunRefusesAMisnamedEntry(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/osv/GO-2020-0036.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "GO-2020-0037.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, filepath.Join(t.TempDir(), "db"), "2026-11-05T23:49:57Z"); err == nil {
		t.Error("run() = nil, want an error for an entry whose file is not named after its id")
	}
}
