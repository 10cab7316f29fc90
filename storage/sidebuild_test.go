package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

// TestSpilledSegmentsIndexedAfterCommit: a transaction's spilled segments
// are written without their text and trigram indexes, which the commit
// has built in the background. BM25 statistics and matches and trigram
// candidates are the same after that build as on a copy of the data
// directory taken before it (a crash before the build), where the search
// builds the missing indexes itself and writes their files.
func TestSpilledSegmentsIndexedAfterCommit(t *testing.T) {
	defer func(m bool) { mergeSpills = m }(mergeSpills)
	mergeSpills = false // the spilled segments stay as they are
	dir := t.TempDir()
	opts := Options{SpillBytes: 16 << 10, FlushRows: 1 << 30}
	db := openDB(t, dir, opts)
	defer func() { db.Close() }()
	def := kvTable(t, db, "t")
	colID := def.Columns[1].ID
	tx := db.Begin()
	if err := tx.CreateIndex(&catalog.IndexDef{Schema: catalog.PublicSchema, Name: "t_trgm", Table: def.ID,
		Method: "gin", Columns: []int{colID}, OpClass: catalog.OpClassGinTrgm}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	// The builder waits until the crash image is taken.
	release := make(chan struct{})
	var once sync.Once
	releaseBuilds := func() { once.Do(func() { close(release) }) }
	defer releaseBuilds() // before db.Close, which waits for the builder
	testHookSidecarBuild = func(*segment) { <-release }
	defer func() { testHookSidecarBuild = nil }()

	tx = db.Begin()
	insertBatches(t, tx, def, 0, 900)
	mustCommit(t, tx)
	segs := db.published.Load().tables[def.ID].segments
	if len(segs) < 2 || len(segs) > smallSegments {
		t.Fatalf("the transaction spilled %d segments, want 2 to %d (no compaction)", len(segs), smallSegments)
	}
	exists := func(path string) bool {
		_, err := os.Stat(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}
	// indexed reports how many of segs have both index files under root.
	indexed := func(root string) int {
		n := 0
		for _, seg := range segs {
			rel, err := filepath.Rel(dir, seg.path)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, rel)
			if exists(textIndexPath(p)) && exists(trgmIndexPath(p, colID)) {
				n++
			} else if exists(textIndexPath(p)) || exists(trgmIndexPath(p, colID)) {
				t.Fatalf("%s has one index file of two", p)
			}
		}
		return n
	}
	if n := indexed(dir); n != 0 {
		t.Fatalf("%d spilled segments indexed as they were written", n)
	}
	crash := t.TempDir()
	copyDir(t, dir, crash)

	releaseBuilds()
	deadline := time.Now().Add(time.Minute)
	for {
		db.sideMu.Lock()
		running := db.sideRunning
		db.sideMu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the index builds did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := indexed(dir); n != len(segs) {
		t.Fatalf("after the builds: %d of %d spilled segments indexed", n, len(segs))
	}

	search := func(db *DB) (TextMatches, []int64) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{"w123", "common", "nothing"})
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := trgmindex.LikeKeys("%w12%", false)
		ids, err := tx.TrigramSearch(context.Background(), def.ID, colID, keys)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return m, ids
	}
	m, ids := search(db)
	if m.Docs != 900 || !slices.Equal(m.DocFreq, []int64{1, 900, 0}) || len(m.RowIDs) != 900 || len(ids) != 11 {
		t.Fatalf("after the build: %d documents, document frequencies %v, %d matches, %d trigram candidates",
			m.Docs, m.DocFreq, len(m.RowIDs), len(ids))
	}

	db2 := openDB(t, crash, opts)
	defer db2.Close()
	if n := indexed(crash); n != 0 {
		t.Fatalf("the crash image has %d spilled segments indexed", n)
	}
	m2, ids2 := search(db2)
	if !reflect.DeepEqual(m2, m) || !slices.Equal(ids2, ids) {
		t.Fatalf("restarted before the build: %d documents, %v, %d matches, %d candidates; after it: %d, %v, %d, %d",
			m2.Docs, m2.DocFreq, len(m2.RowIDs), len(ids2), m.Docs, m.DocFreq, len(m.RowIDs), len(ids))
	}
	if n := indexed(crash); n != len(segs) {
		t.Fatalf("after a search on the restarted server: %d of %d spilled segments indexed", n, len(segs))
	}
}

// TestMergedSpillsIndexedOnce: the segments a transaction spilled and the
// next compaction merges get no index builds of their own (the merged
// segment is indexed as it is written); those it leaves as they are get
// theirs once it has run. Either way every segment ends up with its text
// index, and searches find every row.
func TestMergedSpillsIndexedOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flushRows int
		allMerged bool
	}{
		{"all merged", 1 << 12, true}, // merged segments hold 64k rows: one merge takes every spill
		{"some left", 8, false},       // merged segments hold 128 rows: the bigger spills stay
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var built []*segment
			testHookSidecarBuild = func(seg *segment) {
				mu.Lock()
				defer mu.Unlock()
				built = append(built, seg)
			}
			defer func() { testHookSidecarBuild = nil }()
			dir := t.TempDir()
			db := openDB(t, dir, Options{SpillBytes: 16 << 10, FlushRows: tc.flushRows})
			defer db.Close()
			def := kvTable(t, db, "t")
			tx := db.Begin()
			insertBatches(t, tx, def, 0, 900)
			spilled := len(tx.tables[def.ID].spilled)
			mustCommit(t, tx)
			if spilled < 2 {
				t.Fatalf("the transaction spilled %d segments, want 2 or more", spilled)
			}
			// The worker merges; then the builder runs for what it left.
			var segs []*segment
			deadline := time.Now().Add(time.Minute)
			for {
				db.workMu.Lock()
				pending := len(db.spillMerges) > 0 || len(db.pendingFlush) > 0
				db.workMu.Unlock()
				db.sideMu.Lock()
				running := db.sideRunning
				db.sideMu.Unlock()
				segs = db.published.Load().tables[def.ID].segments
				if !pending && !running && (len(segs) < spilled || !tc.allMerged) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the background work did not end")
				}
				time.Sleep(10 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, seg := range built {
				if seg.x.merged.Load() {
					t.Errorf("%s: indexed, then merged", seg.name)
				}
			}
			if tc.allMerged && (len(segs) != 1 || len(built) != 0) {
				t.Fatalf("%d segments, %d index builds; want one merged segment and no builds", len(segs), len(built))
			}
			if !tc.allMerged && (len(built) == 0 || len(segs) < 2) {
				t.Fatalf("%d segments, %d index builds; want spilled segments left and built", len(segs), len(built))
			}
			for _, seg := range segs {
				if _, err := os.Stat(textIndexPath(seg.path)); err != nil {
					t.Errorf("%s has no text index: %v", seg.name, err)
				}
			}
			tx = db.Begin()
			defer tx.Rollback()
			m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{"common"})
			if err != nil {
				t.Fatal(err)
			}
			if m.Docs != 900 || len(m.RowIDs) != 900 {
				t.Fatalf("%d documents, %d matches; want 900", m.Docs, len(m.RowIDs))
			}
		})
	}
}
