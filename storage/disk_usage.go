package storage

// How much disk the data uses, read from the files themselves (a stat of
// each file in a table's folder), for pg_relation_size and its kin.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TableUsage is the disk space of one table's files, in bytes.
type TableUsage struct {
	// Main is the table's own data: its Parquet segments and manifest
	// (PostgreSQL's main fork).
	Main int64
	// Other is what else the table keeps that is not an index: raw
	// vector files (pg_table_size counts them, as PostgreSQL counts a
	// table's TOAST and maps).
	Other int64
	// Indexes is every index file of the table: text (BM25), trigram and
	// vector indexes. Primary and unique keys live in memory and take
	// none.
	Indexes int64
	// ByIndex is the part of Indexes each index definition owns, by
	// index name (the BM25 files belong to the table's text columns, not
	// to one definition, and are in no entry).
	ByIndex map[string]int64
}

// TableUsage returns the disk usage of table id, false when the catalog
// has no such table. Files are stat'ed as they are now: one a flush or
// compaction just retired may still be counted.
func (db *DB) TableUsage(id uint64) (TableUsage, bool) {
	cat := db.Catalog()
	def := cat.TableByID(id)
	if def == nil {
		return TableUsage{}, false
	}
	u := TableUsage{ByIndex: map[string]int64{}}
	owner := map[string]string{} // file suffix -> index name
	for _, ix := range cat.IndexesOf(id) {
		if spec, ok := vectorSpec(ix, def); ok {
			owner["."+spec.key+vecIndexExt] = ix.Name
		} else if ix.Trigram() && len(ix.Columns) > 0 {
			owner[".c"+strconv.Itoa(ix.Columns[0])+trgmIndexExt] = ix.Name
		}
		u.ByIndex[ix.Name] = 0
	}
	dir := db.tableDirFor(def.Schema, id)
	if rt := db.lookupRT(id); rt != nil {
		dir = rt.dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return u, true // a table nothing was flushed for has no folder yet
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		name, size := e.Name(), info.Size()
		switch {
		case strings.HasSuffix(name, vecIndexExt), strings.HasSuffix(name, trgmIndexExt):
			u.Indexes += size
			// seg-000042.<key>.vidx, seg-000042.c7.trgm: the index's
			// part of the name starts at the last dot before the
			// extension.
			base := name[:strings.LastIndexByte(name, '.')]
			if dot := strings.LastIndexByte(base, '.'); dot >= 0 {
				if ix, ok := owner[name[dot:]]; ok {
					u.ByIndex[ix] += size
				}
			}
		case strings.HasSuffix(name, textIndexExt):
			u.Indexes += size
		case strings.HasSuffix(name, vecRawExt):
			u.Other += size
		default:
			u.Main += size
		}
	}
	return u, true
}

// DiskUsage returns the bytes of every file under the data directory:
// catalog, write-ahead log, segments and indexes (pg_database_size).
func (db *DB) DiskUsage() int64 {
	var n int64
	_ = filepath.WalkDir(db.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed while walking
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// RowCounts returns the rows of table id that the latest committed state
// holds (live) and the deleted ones its segments and tail still store
// until a compaction drops them (dead); false for no such table.
func (db *DB) RowCounts(id uint64) (live, dead int64, ok bool) {
	s, unpin := db.pinPublished()
	defer unpin()
	ts := s.tables[id]
	if ts == nil {
		return 0, 0, s.cat.TableByID(id) != nil
	}
	return ts.liveRows(), int64(ts.deleted.GetCardinality()), true
}
