package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// entry is the part of an OSV entry that the database's indexes need; raw is the whole entry, compacted,
// written as ID/<id>.json.
type entry struct {
	ID       string     `json:"id"`
	Modified time.Time  `json:"modified"`
	Aliases  []string   `json:"aliases"`
	Affected []affected `json:"affected"`
	raw      []byte
}

type affected struct {
	Package struct {
		Name string `json:"name"`
	} `json:"package"`
	Ranges []osvRange `json:"ranges"`
}

type osvRange struct {
	Type   string  `json:"type"`
	Events []event `json:"events"`
}

type event struct {
	Introduced string `json:"introduced"`
	Fixed      string `json:"fixed"`
}

// index holds the three index endpoints of a v1 database: index/db.json, index/modules.json and
// index/vulns.json, with golang.org/x/vulndb's field names and order.
type index struct {
	db      dbMeta
	modules []*module
	vulns   []vuln
}

type dbMeta struct {
	Modified time.Time `json:"modified"`
}

type module struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	// Fixed is the version from which on no version is affected, empty when there is none; govulncheck
	// skips reading the entry for a module at that version or later.
	Fixed string `json:"fixed,omitempty"`
}

type vuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// newIndex returns the indexes of entries, sorted by module path and ID as golang.org/x/vulndb writes them.
// The database's modified time is the latest of modified and the entries' own. Two entries with one ID are
// an error.
func newIndex(entries []entry, modified time.Time) (index, error) {
	idx := index{db: dbMeta{Modified: modified.UTC()}}
	byPath := map[string]*module{}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.ID == "" {
			return index{}, fmt.Errorf("an entry has no id")
		}
		if seen[e.ID] {
			return index{}, fmt.Errorf("id %q appears twice", e.ID)
		}
		seen[e.ID] = true
		if e.Modified.After(idx.db.Modified) {
			idx.db.Modified = e.Modified.UTC()
		}
		idx.vulns = append(idx.vulns, vuln{ID: e.ID, Modified: e.Modified.UTC(), Aliases: e.Aliases})
		for _, a := range e.Affected {
			m := byPath[a.Package.Name]
			if m == nil {
				m = &module{Path: a.Package.Name, Vulns: []moduleVuln{}}
				byPath[m.Path] = m
			}
			m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified.UTC(), Fixed: latestFixed(a.Ranges)})
		}
	}
	slices.SortFunc(idx.vulns, func(a, b vuln) int { return strings.Compare(a.ID, b.ID) })
	idx.modules = slices.SortedFunc(maps.Values(byPath), func(a, b *module) int { return strings.Compare(a.Path, b.Path) })
	for _, m := range idx.modules {
		slices.SortStableFunc(m.Vulns, func(a, b moduleVuln) int { return cmp.Compare(a.ID, b.ID) })
	}
	return idx, nil
}

// latestFixed returns the highest fixed version of the SEMVER ranges, or "" when a range introduces the
// vulnerability again after it: golang.org/x/vulndb's osvutils.LatestFixed, which govulncheck relies on.
// OSV versions have no "v" prefix.
func latestFixed(ranges []osvRange) string {
	var latest string
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, e := range r.Events {
			if e.Fixed != "" && before(latest, e.Fixed) {
				latest = e.Fixed
			}
		}
		for _, e := range r.Events {
			if e.Introduced != "" && e.Introduced != "0" && before(latest, e.Introduced) {
				latest = ""
				break
			}
		}
	}
	return latest
}

// before reports whether OSV version v sorts before w; "" sorts before any version.
func before(v, w string) bool {
	return semver.Compare("v"+v, "v"+w) < 0
}
