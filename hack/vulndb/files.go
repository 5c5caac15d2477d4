package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// loadEntries reads every <ID>.json of dir (not its subdirectories), sorted by name.
func loadEntries(dir string) ([]entry, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading OSV entries: %w", err)
	}
	var entries []entry
	for _, f := range files {
		if f.IsDir() || filepath.Ext(f.Name()) != ".json" {
			continue
		}
		e, err := loadEntry(filepath.Join(dir, f.Name()))
		if err != nil {
			return nil, err
		}
		if f.Name() != e.ID+".json" {
			return nil, fmt.Errorf("%s holds entry %q: an entry's file is named <ID>.json", f.Name(), e.ID)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func loadEntry(path string) (entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return entry{}, fmt.Errorf("reading OSV entry: %w", err)
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return entry{}, fmt.Errorf("decoding %s: %w", path, err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, data); err != nil {
		return entry{}, fmt.Errorf("compacting %s: %w", path, err)
	}
	e.raw = raw.Bytes()
	return e, nil
}

// write writes the database into dir: index/{db,modules,vulns}.json and ID/<id>.json (loadEntries has
// checked that each ID is its file's name). A file:// database
// needs no .json.gz files (govulncheck reads those only over HTTP), so none are written.
func write(dir string, idx index, entries []entry) error {
	for _, sub := range []string{"index", "ID"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("creating the database directory: %w", err)
		}
	}
	for name, v := range map[string]any{"db": idx.db, "modules": idx.modules, "vulns": idx.vulns} {
		if err := writeJSON(filepath.Join(dir, "index", name+".json"), v); err != nil {
			return err
		}
	}
	for _, e := range entries {
		if err := os.WriteFile(filepath.Join(dir, "ID", e.ID+".json"), e.raw, 0o644); err != nil {
			return fmt.Errorf("writing entry %s: %w", e.ID, err)
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return nil
}
