package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/cairn-db/cairn/sql/catalog"
)

// CommittedTable is one table of a stopped data directory as its files
// hold it: what an exporter (cmd/cairn-iceberg) needs to describe the
// table to another format without rewriting its data.
type CommittedTable struct {
	Def      *catalog.TableDef
	Segments []CommittedSegment
}

// CommittedSegment is one live Parquet segment file of a table.
type CommittedSegment struct {
	// Path is the absolute path of the file.
	Path  string
	Rows  int64
	Bytes int64
	// Columns maps the column IDs the file holds to their field names in
	// the file (a column renamed later keeps its old name in older files).
	Columns map[int]string
	// DeletedPositions are the 0-based row positions in the file of the
	// rows deleted since it was written, ascending.
	DeletedPositions []int64
}

// ReadCommitted reads the committed state of the data directory dir
// without changing it: catalog.json, each table's manifest and its
// segments' row IDs. It takes the directory's lock for the duration, so it
// fails while a server has the directory open, and it refuses a directory
// whose write-ahead log holds commits no checkpoint covers yet (a server
// that was killed rather than stopped): its files would miss them. It
// refuses an object store's cache (Options.Store) for the same reason.
func ReadCommitted(dir string) (*catalog.Catalog, []CommittedTable, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "wal")); err != nil {
		return nil, nil, fmt.Errorf("%s is not a cairn data directory: %w", abs, err)
	}
	if _, err := os.Stat(filepath.Join(abs, cacheMarker)); err == nil {
		return nil, nil, fmt.Errorf("%s is the cache of an object store, not a database: its files miss the commits in the store's log", abs)
	}
	lock, err := lockDir(abs)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Close()
	cf, err := readCatalogFile(filepath.Join(abs, catalogFileName))
	if err != nil {
		return nil, nil, err
	}
	if cf == nil { // never checkpointed: everything is in the log
		cf = &catalogFile{Catalog: catalog.New()}
	}
	if err := checkWALCovered(filepath.Join(abs, "wal"), cf.LSN); err != nil {
		return nil, nil, err
	}
	ids := make([]uint64, 0, len(cf.Catalog.Tables))
	for id := range cf.Catalog.Tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var out []CommittedTable
	for _, id := range ids {
		def := cf.Catalog.Tables[id]
		// The folder keeps the schema the table was created in; a table
		// that never flushed has none.
		tdirs, err := filepath.Glob(filepath.Join(abs, "tables", "*", strconv.FormatUint(id, 10)))
		if err != nil || len(tdirs) > 1 {
			return nil, nil, fmt.Errorf("table %s.%s (id %d) has %d folders", def.Schema, def.Name, id, len(tdirs))
		}
		t := CommittedTable{Def: def}
		if len(tdirs) == 0 {
			out = append(out, t)
			continue
		}
		_, segs, deleted, err := readManifest(tdirs[0])
		if err != nil {
			return nil, nil, err
		}
		for _, s := range segs {
			cs := CommittedSegment{Path: s.path, Rows: s.rows, Bytes: s.bytes, Columns: map[int]string{}}
			for _, c := range s.columns {
				cs.Columns[c.ID] = c.Name
			}
			if deleted != nil && (deleted.Contains(uint64(s.minRow)) || deleted.Rank(uint64(s.maxRow)) > deleted.Rank(uint64(s.minRow))) {
				if cs.DeletedPositions, err = deletedPositions(s, deleted.Contains); err != nil {
					return nil, nil, err
				}
			}
			t.Segments = append(t.Segments, cs)
		}
		out = append(out, t)
	}
	return cf.Catalog, out, nil
}

// deletedPositions lists the positions in seg's file of the rows whose
// IDs isDeleted reports.
func deletedPositions(seg *segment, isDeleted func(uint64) bool) ([]int64, error) {
	sf, err := openSegment(seg)
	if err != nil {
		return nil, err
	}
	defer sf.close()
	var out []int64
	pos := int64(0)
	for g := 0; g < sf.numRowGroups(); g++ {
		ids, err := sf.readRowIDs(g)
		if err != nil {
			return nil, err
		}
		for _, id := range ids.Int64Values() {
			if isDeleted(uint64(id)) {
				out = append(out, pos)
			}
			pos++
		}
		ids.Release()
	}
	return out, nil
}

// errNotCheckpointed reports a write-ahead log with records past
// catalog.json.
var errNotCheckpointed = errors.New("the data directory has commits that are only in its write-ahead log: start the server and stop it cleanly (or run CHECKPOINT) first")

// checkWALCovered fails with errNotCheckpointed when a record in the WAL
// files of walDir is newer than LSN lsn.
func checkWALCovered(walDir string, lsn uint64) error {
	files, err := listWALFiles(walDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, f := range files {
		_, _, err := readWALFile(f.path, func(p []byte) error {
			rec, err := decodeWALRecord(p)
			if err != nil {
				return err
			}
			if rec.lsn > lsn {
				return errNotCheckpointed
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
