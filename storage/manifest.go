package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// manifestSegments describes segs.
func manifestSegments(segs []*segment) []manifestSegment {
	out := make([]manifestSegment, 0, len(segs))
	for _, s := range segs {
		out = append(out, manifestSegment{File: s.name, Columns: s.columns, Rows: s.rows,
			MinRowID: s.minRow, MaxRowID: s.maxRow, Bytes: s.bytes})
	}
	return out
}

// segment returns the segment m describes, a file in the table folder dir
// ("": its path is set later).
func (m manifestSegment) segment(dir string) (*segment, error) {
	if m.File == "" || filepath.Base(m.File) != m.File || !strings.HasPrefix(m.File, "seg-") {
		return nil, fmt.Errorf("bad segment file name %q", m.File)
	}
	s := &segment{name: m.File, columns: m.Columns, rows: m.Rows, minRow: m.MinRowID, maxRow: m.MaxRowID, bytes: m.Bytes}
	if dir != "" {
		s.path = filepath.Join(dir, m.File)
	}
	return s, nil
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
	m := &manifest{TableID: id, LSN: lsn, NextRowID: nextRowID, NextSegment: nextSeg, Segments: manifestSegments(segs)}
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
	return decodeManifest(dir, b)
}

// decodeManifest reads manifest.json's content b, the manifest of the
// table folder dir.
func decodeManifest(dir string, b []byte) (*manifest, []*segment, *roaring64.Bitmap, error) {
	path := filepath.Join(dir, manifestName)
	m := &manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, nil, nil, fmt.Errorf("corrupt manifest %s: %w", path, err)
	}
	var segs []*segment
	for _, s := range m.Segments {
		seg, err := s.segment(dir)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("corrupt manifest %s: %w", path, err)
		}
		segs = append(segs, seg)
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
