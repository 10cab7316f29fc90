package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

// TestTrigramSearch checks TrigramSearch against the rows a scan holds
// (by trgmindex.Holds) over segments indexed at flush, at CREATE INDEX
// and by a search, the unflushed tail, deletes, a compaction, a restart,
// a corrupt index file, and DROP INDEX removing the files.
func TestTrigramSearch(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer func() { db.Close() }()
	def := createTable(t, db, "docs", []catalog.ColumnDef{col("id", types.Int8T), col("body", types.TextT)})
	colID := def.Columns[1].ID
	words := []string{"Grüße", "MÜNCHEN", "straße", "café", "agent", "memory", "Trace", "tool", "ΣΊΣΥΦΟΣ"}
	next := 0
	insert := func(n int) {
		tx := db.Begin()
		var batch [][]any
		for i := 0; i < n; i++ {
			var body any
			if next%37 != 0 {
				body = fmt.Sprintf("row %d %s %s", next, words[next%len(words)], words[(next/3)%len(words)])
			}
			batch = append(batch, []any{next, body})
			next++
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, batch...)); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	flush := func() {
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	// One segment before the index exists (indexed by CREATE INDEX).
	insert(1000)
	flush()
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "docs_trgm", Table: def.ID, Method: "gin",
		Columns: []int{colID}, OpClass: catalog.OpClassGinTrgm}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := db.BuildTrigramIndexes(context.Background(), def.ID, nil); err != nil {
		t.Fatal(err)
	}
	insert(1000)
	flush()     // indexed as the flush writes it
	insert(300) // stays in the tail

	indexFiles := func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "tables", "*", "*", "*"+trgmIndexExt))
		return files
	}
	if n := len(indexFiles()); n != 2 {
		t.Fatalf("%d trigram index files, want 2", n)
	}

	// check compares TrigramSearch with the rows a scan gives.
	check := func(pat string, fold bool) {
		t.Helper()
		keys, ok := trgmindex.LikeKeys(pat, fold)
		if !ok || len(keys) == 0 {
			t.Fatalf("%q: no trigrams", pat)
		}
		tx := db.Begin()
		defer tx.Rollback()
		var want []int64
		for _, r := range scanRows(t, tx, def.ID, true) {
			if s, ok := r[1].(string); ok && trgmindex.Holds(s, keys) {
				want = append(want, r[2].(int64))
			}
		}
		got, err := tx.TrigramSearch(context.Background(), def.ID, colID, keys)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want) // scanRows orders rows by their text
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: found %d rows %v..., want %d %v...", pat, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
		}
		if len(want) == 0 {
			t.Fatalf("%q matches no row: a weak test", pat)
		}
	}
	patterns := func() {
		t.Helper()
		check("%münchen%", true)
		check("%MÜNCHEN%", false)
		check("%σίσυφοσ%", true)
		check("row 1%", false)
		check("%row 2__ straße%", true)
		check("%café", true)
	}
	patterns()

	// Deletes: committed, and the transaction's own.
	tx = db.Begin()
	if err := tx.Delete(def.ID, []int64{3, 12, 1500, 2100}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	patterns()

	// A compaction rewrites the segments: the new one is indexed as it is
	// written, the old files go with the old segments.
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	patterns()

	// A restart reads the files; a corrupt or missing file is rebuilt.
	db.Close()
	files := indexFiles()
	if len(files) == 0 {
		t.Fatal("no trigram index file after the restart")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files[1:] {
		os.Remove(f)
	}
	db = openDB(t, dir, Options{})
	patterns()
	if n := len(indexFiles()); n != len(files) {
		t.Fatalf("%d trigram index files after the rebuild, want %d", n, len(files))
	}
	if _, err := readTrgmIndexFile(db.published.Load().tables[def.ID].segments[0], colID); err != nil {
		t.Fatalf("the corrupt file was not rewritten: %v", err)
	}

	// DROP INDEX removes the files.
	tx = db.Begin()
	if err := tx.DropIndex(catalog.PublicSchema, "docs_trgm"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if files := indexFiles(); len(files) != 0 {
		t.Fatalf("files left after DROP INDEX: %s", strings.Join(files, ", "))
	}
}
