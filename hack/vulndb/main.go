// Command vulndb writes a Go vulnerability database in the v1 format that `govulncheck -db file://DIR`
// reads (https://go.dev/security/vuln/database#api) from a directory of OSV entries, such as data/osv of
// the golang.org/x/vulndb module, which the Go module proxy serves. It lets make govulncheck run offline.
//
// The entries of that snapshot carry no dates (the Go team stamps them from the repository's history when
// it publishes vuln.go.dev), so the database's date, index/db.json's modified, is given with -modified:
// the snapshot's commit time. An entry modified later than that wins.
//
// Usage: vulndb -osv DIR -out DIR -modified RFC3339
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	osvDir := flag.String("osv", "", "directory of OSV entries (<ID>.json)")
	out := flag.String("out", "", "directory to write the database to; must not exist")
	modified := flag.String("modified", "", "the database's date (RFC 3339): the snapshot's commit time")
	flag.Parse()
	if *osvDir == "" || *out == "" || *modified == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*osvDir, *out, *modified); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(osvDir, out, modified string) error {
	at, err := time.Parse(time.RFC3339, modified)
	if err != nil {
		return fmt.Errorf("parsing -modified: %w", err)
	}
	entries, err := loadEntries(osvDir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("no OSV entries in %s", osvDir)
	}
	db, err := newIndex(entries, at)
	if err != nil {
		return err
	}
	if err := write(out, db, entries); err != nil {
		return err
	}
	fmt.Printf("vulndb: wrote %d entries of %d modules, modified %s, to %s\n",
		len(entries), len(db.modules), db.db.Modified.Format(time.RFC3339), out)
	return nil
}
