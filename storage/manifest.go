package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// manifestName is the file in a table folder listing its live segments.
const manifestName = "manifest.json"

// manifest is the JSON form of manifest.json: the segments of a table, its
// deleted row IDs (roaring64 portable format, base64) and the WAL LSN the
// file reflects: recovery replays only records past it for this table.
type manifest struct {
	Version     int               `json:"version"`
	TableID     uint64            `json:"table_id"`
	LSN         uint64            `json:"lsn"`
	NextRowID   int64             `json:"next_row_id"`
	NextSegment int               `json:"next_segment"`
	Segments    []manifestSegment `json:"segments"`
	Deleted     string            `json:"deleted,omitempty"`
}

// manifestSegment describes one segment file.
type manifestSegment struct {
	File string `json:"file"`
	// Columns are the table columns in the file: file column name and
	// column ID, in table order as of the write.
	Columns  []segColumn `json:"columns"`
	Rows     int64       `json:"rows"`
	MinRowID int64       `json:"min_row_id"`
	MaxRowID int64       `json:"max_row_id"`
	Bytes    int64       `json:"bytes"`
}

// writeManifest atomically replaces the manifest of the table in dir.
func writeManifest(dir string, m *manifest) error {
	if err := mkdirAllDurable(dir); err != nil {
		return err
	}
	m.Version = 1
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, manifestName), b)
}

// manifestOf builds the manifest of a table state.
func manifestOf(id uint64, lsn uint64, nextRowID int64, nextSeg int, segs []*segment, deleted *roaring64.Bitmap) (*manifest, error) {
	m := &manifest{TableID: id, LSN: lsn, NextRowID: nextRowID, NextSegment: nextSeg, Segments: []manifestSegment{}}
	for _, s := range segs {
		m.Segments = append(m.Segments, manifestSegment{File: s.name, Columns: s.columns, Rows: s.rows,
			MinRowID: s.minRow, MaxRowID: s.maxRow, Bytes: s.bytes})
	}
	if deleted != nil && !deleted.IsEmpty() {
		d := deleted.Clone()
		d.RunOptimize()
		b, err := d.ToBytes()
		if err != nil {
			return nil, err
		}
		m.Deleted = base64.StdEncoding.EncodeToString(b)
	}
	return m, nil
}

// readManifest loads the manifest in dir; (nil, nil) if there is none.
// Errors name the file.
func readManifest(dir string) (*manifest, []*segment, *roaring64.Bitmap, error) {
	path := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	m := &manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, nil, nil, fmt.Errorf("corrupt manifest %s: %w", path, err)
	}
	var segs []*segment
	for _, s := range m.Segments {
		if s.File == "" || filepath.Base(s.File) != s.File {
			return nil, nil, nil, fmt.Errorf("corrupt manifest %s: bad segment file name %q", path, s.File)
		}
		segs = append(segs, &segment{name: s.File, path: filepath.Join(dir, s.File), columns: s.Columns,
			rows: s.Rows, minRow: s.MinRowID, maxRow: s.MaxRowID, bytes: s.Bytes})
	}
	deleted := roaring64.New()
	if m.Deleted != "" {
		raw, err := base64.StdEncoding.DecodeString(m.Deleted)
		if err == nil {
			deleted, err = unmarshalBitmap(raw)
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("corrupt manifest %s: deleted row IDs: %w", path, err)
		}
	}
	return m, segs, deleted, nil
}
