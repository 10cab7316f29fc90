package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/textsearch"
	"github.com/cairn-db/cairn/sql/types"
)

// textTable is (id bigint, body text, tag varchar, n int).
func textTable(t testing.TB, db *DB, name string) *catalog.TableDef {
	return createTable(t, db, name, []catalog.ColumnDef{col("id", types.Int8T), col("body", types.TextT),
		col("tag", types.VarcharT), col("n", types.Int4T)})
}

var textVocab = strings.Fields("agent memory recall Vector vector search hybrid-search BM25 cache ci/cd token Straße the a of")

// randomText returns a short text, an empty one or NULL.
func randomText(rng *rand.Rand) any {
	switch rng.Intn(12) {
	case 0:
		return nil
	case 1:
		return ""
	}
	w := make([]string, 1+rng.Intn(10))
	for i := range w {
		w[i] = textVocab[rng.Intn(len(textVocab))]
	}
	return strings.Join(w, " ")
}

// bruteText computes, from a Scan, what TextSearch must return for terms:
// statistics and per row ID "len tf tf ...".
func bruteText(t *testing.T, tx *Tx, id uint64, column int, terms []string) (docs, tokens int64, df []int64, rows map[int64]string) {
	t.Helper()
	r, err := tx.Scan(context.Background(), id, []int{column}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	df = make([]int64, len(terms))
	rows = map[int64]string{}
	for r.Next() {
		rec := r.Record()
		s := rec.Column(0).(*array.String)
		ids := rec.Column(1).(*array.Int64)
		for i := 0; i < s.Len(); i++ {
			if s.IsNull(i) {
				continue
			}
			toks := textsearch.Tokenize(s.Value(i))
			docs++
			tokens += int64(len(toks))
			tf := make([]int, len(terms))
			hit := false
			for _, tok := range toks {
				for k, term := range terms {
					if tok == term {
						tf[k]++
						hit = true
					}
				}
			}
			for k := range terms {
				if tf[k] > 0 {
					df[k]++
				}
			}
			if hit {
				rows[ids.Value(i)] = fmt.Sprint(len(toks), tf)
			}
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return
}

// checkText compares TextStats and TextSearch with bruteText for several
// queries on both text columns.
func checkText(t *testing.T, tx *Tx, id uint64, label string) {
	t.Helper()
	queries := [][]string{{"vector"}, {"memory", "agent"}, {"hybrid-search", "ci", "cd"}, {"straße", "the", "missing"},
		{"a", "a", "of"}, {}, {"nothing"}}
	for _, column := range []int{1, 2} {
		for _, terms := range queries {
			uniq, _ := dedupeTerms(terms)
			docs, tokens, df, rows := bruteText(t, tx, id, column, uniq)
			gd, gt, gdf, err := tx.TextStats(id, column, terms)
			if err != nil {
				t.Fatal(err)
			}
			wantDF := make([]int64, len(terms))
			for i, term := range terms {
				wantDF[i] = df[slices.Index(uniq, term)]
			}
			if gd != docs || gt != tokens || !slices.Equal(gdf, wantDF) {
				t.Fatalf("%s: column %d %q: TextStats %d %d %v, want %d %d %v", label, column, terms, gd, gt, gdf, docs, tokens, wantDF)
			}
			m, err := tx.TextSearch(context.Background(), id, column, terms)
			if err != nil {
				t.Fatal(err)
			}
			if m.Docs != docs || m.TotalTokens != tokens || !slices.Equal(m.DocFreq, df) || !slices.Equal(m.Terms, uniq) {
				t.Fatalf("%s: column %d %q: TextSearch stats %d %d %v, want %d %d %v", label, column, terms, m.Docs, m.TotalTokens, m.DocFreq, docs, tokens, df)
			}
			got := map[int64]string{}
			for i, rid := range m.RowIDs {
				if _, dup := got[rid]; dup {
					t.Fatalf("%s: row %d matched twice", label, rid)
				}
				tf := make([]int, len(uniq))
				for k := range uniq {
					tf[k] = int(m.Freq(i, k))
				}
				got[rid] = fmt.Sprint(m.DocLen[i], tf)
			}
			if len(got) != len(rows) {
				t.Fatalf("%s: column %d %q: %d matches, want %d", label, column, terms, len(got), len(rows))
			}
			for rid, w := range rows {
				if got[rid] != w {
					t.Fatalf("%s: column %d %q: row %d: %q, want %q", label, column, terms, rid, got[rid], w)
				}
			}
		}
	}
}

// textWorkload drives inserts, deletes, updates, flushes and compactions
// of a text table, checking the text indexes against brute force.
func TestTextIndexMatchesScan(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	def := textTable(t, db, "docs")
	rng := rand.New(rand.NewSource(7))
	next := 0
	newRows := func(n int) [][]any {
		var rows [][]any
		for i := 0; i < n; i++ {
			rows = append(rows, []any{next, randomText(rng), randomText(rng), next})
			next++
		}
		return rows
	}
	ids := func(tx *Tx, pick func(k int) bool) []int64 {
		var out []int64
		for _, r := range scanRows(t, tx, def.ID, true) {
			if pick(r[0].(int)) {
				out = append(out, r[4].(int64))
			}
		}
		return out
	}
	checkNow := func(label string) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		checkText(t, tx, def.ID, label)
	}

	insert(t, db, def, newRows(500)...)
	checkNow("tail only")
	for i := 0; i < 20; i++ {
		insert(t, db, def, newRows(1)...) // merged small batches
	}
	checkNow("small batches")
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
	checkNow("one segment")
	insert(t, db, def, newRows(700)...)
	db.flushTable(def.ID, true)
	insert(t, db, def, newRows(300)...)
	checkNow("segments and tail")

	// Deletes in segments and tail, one commit after the other (the
	// deletion states grow incrementally).
	for round := 0; round < 3; round++ {
		tx := db.Begin()
		tx.Delete(def.ID, ids(tx, func(k int) bool { return k%(7+round) == round }))
		mustCommit(t, tx)
		checkNow(fmt.Sprint("deletes round ", round))
	}
	// An older snapshot sees fewer deletions than the newest one; its
	// deletion state is first computed after the newest one's.
	tx := db.Begin()
	tx.Delete(def.ID, ids(tx, func(k int) bool { return k%17 == 4 }))
	mustCommit(t, tx)
	old := db.Begin()
	// Updates: delete + reinsert with a new text.
	tx = db.Begin()
	tx.Delete(def.ID, ids(tx, func(k int) bool { return k%5 == 1 }))
	if err := tx.Insert(def.ID, makeRecord(t, def, newRows(40)...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	// Newest state first, then the older one (not a superset of what the
	// units remember), then the newest again.
	checkNow("after updates")
	checkText(t, old, def.ID, "old snapshot")
	old.Rollback()
	checkNow("after updates, again")

	// A transaction's own view: its deletes of committed rows, its own
	// inserts, some deleted again.
	tx = db.Begin()
	tx.Delete(def.ID, ids(tx, func(k int) bool { return k%11 == 3 }))
	// Rows already deleted in the snapshot (as a refreshed snapshot can
	// show rows the transaction deleted too) count once.
	var gone []int64
	for _, u := range tx.snap.tables[def.ID].deleted.union().ToArray()[:20] {
		gone = append(gone, int64(u))
	}
	tx.Delete(def.ID, gone)
	if err := tx.Insert(def.ID, makeRecord(t, def, newRows(60)...)); err != nil {
		t.Fatal(err)
	}
	tx.Delete(def.ID, ids(tx, func(k int) bool { return k >= next-60 && k%2 == 0 }))
	checkText(t, tx, def.ID, "own changes")
	mustCommit(t, tx)
	checkNow("own changes committed")

	// Flushes and a compaction (which drops deleted rows).
	for i := 0; i < 2*smallSegments; i++ {
		insert(t, db, def, newRows(50)...)
		db.flushTable(def.ID, true)
	}
	checkNow("many segments")
	if err := db.compactTable(def.ID); err != nil {
		t.Fatal(err)
	}
	checkNow("compacted")
	tx = db.Begin()
	tx.Delete(def.ID, ids(tx, func(k int) bool { return k%13 == 0 }))
	mustCommit(t, tx)
	// A second segment (the compaction merged all into one), and a tail.
	insert(t, db, def, newRows(40)...)
	db.flushTable(def.ID, true)
	insert(t, db, def, newRows(30)...)

	// Crash + reopen: segments' .bm25 files, the tail from the WAL.
	img := crashImage(t, db)
	db.Close()
	db = openDB(t, img, Options{FlushRows: 1 << 30})
	checkNow("after crash")
	// A corrupt and a missing text index file are rebuilt.
	files, _ := filepath.Glob(filepath.Join(img, "tables", "public", "*", "*"+textIndexExt))
	if len(files) < 2 {
		t.Fatalf("%d text index files", len(files))
	}
	db.Close()
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 0xff
	os.WriteFile(files[0], b, 0o644)
	os.Remove(files[1])
	db = openDB(t, img, Options{FlushRows: 1 << 30})
	checkNow("rebuilt")
	for _, f := range files[:2] {
		seg := &segment{}
		for _, s := range db.published.Load().tables[def.ID].segments {
			if textIndexPath(s.path) == f {
				seg = s
			}
		}
		if _, err := readTextIndexFile(seg); err != nil {
			t.Errorf("%s not rewritten: %v", f, err)
		}
	}
	// Truncate in a transaction: only its own rows.
	tx = db.Begin()
	tx.Truncate(def.ID)
	tx.Insert(def.ID, makeRecord(t, def, newRows(3)...))
	checkText(t, tx, def.ID, "truncated")
	tx.Rollback()
	db.Close()
}

func TestTextIndexUnavailable(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	def := textTable(t, db, "docs")
	insert(t, db, def, []any{1, "a b", "c", 1})
	tx := db.Begin()
	if _, _, _, err := tx.TextStats(def.ID, 3, []string{"a"}); !errors.Is(err, ErrNoTextIndex) {
		t.Fatalf("int column: %v", err)
	}
	if _, err := tx.TextSearch(context.Background(), def.ID, 0, []string{"a"}); !errors.Is(err, ErrNoTextIndex) {
		t.Fatalf("int column: %v", err)
	}
	if _, _, _, err := tx.TextStats(def.ID, 9, nil); err == nil || errors.Is(err, ErrNoTextIndex) {
		t.Fatalf("bad position: %v", err)
	}
	tx.Rollback()
	dir := db.Dir()
	db.Close()
	db = openDB(t, dir, Options{DisableTextIndex: true})
	defer db.Close()
	tx = db.Begin()
	defer tx.Rollback()
	if _, _, _, err := tx.TextStats(def.ID, 1, []string{"a"}); !errors.Is(err, ErrNoTextIndex) {
		t.Fatalf("disabled: %v", err)
	}
}

// TestTextIndexNewColumn: a text column added after segments were
// written reads as NULL there; the column's index covers the new rows.
func TestTextIndexNewColumn(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "agent memory"}, []any{2, "vector"})
	db.flushTable(def.ID, true)
	tx := db.Begin()
	nd := def.Clone()
	nd.Columns = append(nd.Columns, col("extra", types.TextT))
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	def = db.Catalog().Tables[def.ID]
	insert(t, db, def, []any{3, "x", "agent agent"})
	tx = db.Begin()
	defer tx.Rollback()
	docs, tokens, df, err := tx.TextStats(def.ID, 2, []string{"agent"})
	if err != nil || docs != 1 || tokens != 2 || df[0] != 1 {
		t.Fatalf("new column: %d %d %v %v", docs, tokens, df, err)
	}
	checkText(t, tx, def.ID, "new column")
}
