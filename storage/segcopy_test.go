package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

// TestCompactionCopiesSpilledRowGroups: compaction merges two bulk loads'
// spilled segments into one, copying the row groups of the segments it
// can (segcopy.go) and merging row by row those written before a column
// was added and the one with deleted rows. The merged segment reads back
// every live row, finds them by row ID and by text search, keeps their
// keys unique, and reads the same after a restart.
func TestCompactionCopiesSpilledRowGroups(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SpillBytes: 4 << 10, FlushRows: 1 << 20}
	db := openDB(t, dir, opts)
	defer func() { db.Close() }()
	def := kvTable(t, db, "t")
	tx := db.Begin()
	insertBatches(t, tx, def, 0, 1500)
	mustCommit(t, tx)

	tx = db.Begin()
	nd := tx.Catalog().Tables[def.ID].Clone()
	nd.Columns = append(nd.Columns, col("extra", types.Int4T))
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	nd = db.Catalog().Tables[def.ID]
	tx = db.Begin()
	for i := 1500; i < 3000; i += 100 {
		var rows [][]any
		for id := i; id < i+100; id++ {
			rows = append(rows, []any{id, fmt.Sprintf("w%d common", id), id})
		}
		if err := tx.Insert(def.ID, makeRecord(t, nd, rows...)); err != nil {
			t.Fatal(err)
		}
	}
	var del []int64
	for _, r := range scanRows(t, tx, def.ID, true) {
		if id := r[0].(int); id >= 2000 && id < 2010 {
			del = append(del, r[3].(int64))
		}
	}
	if err := tx.Delete(def.ID, del); err != nil {
		t.Fatal(err)
	}
	if n := len(tx.tables[def.ID].spilled); n < 10 {
		t.Fatalf("the second load spilled %d segments, want many", n)
	}
	mustCommit(t, tx)

	for range 4 {
		if err := db.compactTable(def.ID); err != nil {
			t.Fatal(err)
		}
	}
	segs := db.head.Load().tables[def.ID].segments
	if len(segs) != 1 || segs[0].rows != 2990 {
		t.Fatalf("after compaction: %d segments (first of %d rows), want one of 2990", len(segs), segs[0].rows)
	}
	groups, err := footerGroups(segs[0].path)
	if err != nil {
		t.Fatal(err)
	}
	// The first load's rows (another schema) are one row group, merged
	// row by row, as is the segment with the deleted rows; the others are
	// the spilled files' own groups.
	if len(groups) < 10 {
		t.Fatalf("merged segment of %d row groups %v: the spilled groups were not copied", len(groups), groups)
	}

	check := func(db *DB) {
		t.Helper()
		rows := scanAll(t, db, def)
		if len(rows) != 2990 {
			t.Fatalf("%d rows, want 2990", len(rows))
		}
		for _, r := range rows {
			id := r[0].(int)
			want := fmt.Sprint([]any{id, fmt.Sprintf("w%d common", id), id})
			if id < 1500 {
				want = fmt.Sprint([]any{id, fmt.Sprintf("w%d common", id), nil})
			}
			if id >= 2000 && id < 2010 || fmt.Sprint(r) != want {
				t.Fatalf("row %v, want %s", r, want)
			}
		}
		tx := db.Begin()
		defer tx.Rollback()
		m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{"w2500", "w10", "w2005"})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.RowIDs) != 2 {
			t.Fatalf("text search: %d matches, want 2 (w2005 was deleted)", len(m.RowIDs))
		}
		rec, err := tx.FetchRows(context.Background(), def.ID, []int{0, 2}, m.RowIDs)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rec.Column(0), rec.Column(1)); got != "[2500 10] [2500 (null)]" && got != "[10 2500] [(null) 2500]" {
			t.Fatalf("fetched %s", got)
		}
		rec.Release()
		if err := tx.Insert(def.ID, makeRecord(t, nd, []any{2500, "again", 0})); sqlstate(err) != "23505" {
			t.Fatalf("duplicate of a merged key: %v, want 23505", err)
		}
	}
	check(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, opts)
	check(db)
}

// TestCompactionRefusesDamagedPage: a byte flipped inside a spilled
// segment's pages makes the compaction that would copy its row groups fail
// naming the file, and leaves the segment in place, rather than copying
// the damaged page into a merged segment under a new name (which, once
// the damaged file was removed, a reader would blame instead).
func TestCompactionRefusesDamagedPage(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SpillBytes: 4 << 10, FlushRows: 1 << 20}
	db := openDB(t, dir, opts)
	defer func() { db.Close() }()
	def := kvTable(t, db, "t")
	tx := db.Begin()
	insertBatches(t, tx, def, 0, 1500)
	mustCommit(t, tx)
	before := db.head.Load().tables[def.ID].segments
	if len(before) < 2 {
		t.Fatalf("%d segments, want several to merge", len(before))
	}
	victim := before[len(before)/2].path
	b, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x40
	if err := os.WriteFile(victim, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = db.compactTable(def.ID)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(victim)) {
		t.Fatalf("compaction over a damaged page: %v, want an error naming %s", err, filepath.Base(victim))
	}
	after := db.head.Load().tables[def.ID].segments
	if !slices.ContainsFunc(after, func(s *segment) bool { return s.path == victim }) {
		t.Fatalf("the damaged segment left the table: %d segments", len(after))
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the damaged segment's file: %v", err)
	}
}
