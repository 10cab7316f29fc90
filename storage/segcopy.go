package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/cairn-db/cairn/sql/catalog"
)

// A bulk load's rows reach disk in the segments its transaction spilled
// (spill.go), tens of thousands of rows each, and compaction merges those
// into segments of up to mergeRows rows. None of a fresh load's rows is
// deleted and its segments have the merged segment's columns, so their
// row groups need no change: compaction copies each one's bytes into the
// merged file as they are (copy_file_range where the kernel has it) and
// moves the footer's offsets, instead of decoding the columns and
// encoding them again. The merged segment's text indexes still see every
// row: only the text columns they index and the row IDs are read.

// copyGroups appends the row groups of src, an open segment file, to sw
// as they are. It reports false, having written nothing, when the file is
// not one it copies: another schema (a column added or dropped since),
// column chunks not back to back, page indexes or bloom filters (cairn's
// writer writes neither). The row group sw was filling is written first.
func (sw *segmentWriter) copyGroups(src *segmentFile) (bool, error) {
	meta := src.pf.Metadata()
	if !reflect.DeepEqual(meta.Schema, sw.meta.Schema) {
		return false, nil
	}
	type span struct{ start, end int64 }
	spans := make([]span, len(meta.RowGroups))
	for g, rg := range meta.RowGroups {
		if len(rg.Columns) != len(sw.order) {
			return false, nil
		}
		for i := range rg.Columns {
			cc := &rg.Columns[i]
			md := &cc.MetaData
			if cc.FilePath != "" || cc.ColumnIndexOffset != 0 || cc.OffsetIndexOffset != 0 ||
				md.IndexPageOffset != 0 || md.BloomFilterOffset != 0 || md.TotalCompressedSize < 0 {
				return false, nil
			}
			start := chunkStart(md)
			if i == 0 {
				spans[g].start = start
			} else if start != spans[g].end {
				return false, nil
			}
			spans[g].end = start + md.TotalCompressedSize
		}
	}
	// The bytes go on as they are, so their checksums are checked here:
	// a damaged page copied into the merged segment would pass for good
	// under the new file's name once the damaged one is deleted.
	for _, rg := range meta.RowGroups {
		for i := range rg.Columns {
			if err := verifyPages(src.f, &rg.Columns[i].MetaData); err != nil {
				return false, fmt.Errorf("segment %s: column chunk %q: %w", src.seg.path, rg.Columns[i].MetaData.PathInSchema, err)
			}
		}
	}
	if err := sw.flushGroup(); err != nil {
		return false, err
	}
	for g, rg := range meta.RowGroups {
		n := spans[g].end - spans[g].start
		if _, err := src.f.Seek(spans[g].start, io.SeekStart); err != nil {
			return false, err
		}
		at := sw.off
		copied, err := sw.f.ReadFrom(&io.LimitedReader{R: src.f, N: n})
		sw.off += copied
		if err == nil && copied != n {
			err = fmt.Errorf("copying row group %d of %s: %d of %d bytes", g, src.seg.path, copied, n)
		}
		if err != nil {
			return false, err
		}
		delta := at - spans[g].start
		rg.Columns = append([]format.ColumnChunk(nil), rg.Columns...)
		for i := range rg.Columns {
			md := &rg.Columns[i].MetaData
			md.DataPageOffset += delta
			if md.DictionaryPageOffset != 0 {
				md.DictionaryPageOffset += delta
			}
			if rg.Columns[i].FileOffset != 0 {
				rg.Columns[i].FileOffset += delta
			}
		}
		rg.FileOffset = at
		rg.Ordinal = int16(len(sw.meta.RowGroups))
		sw.meta.RowGroups = append(sw.meta.RowGroups, rg)
		sw.meta.NumRows += rg.NumRows
	}
	seg := src.seg
	if sw.rows == 0 || seg.minRow < sw.minRow {
		sw.minRow = seg.minRow
	}
	sw.maxRow = max(sw.maxRow, seg.maxRow)
	sw.rows += seg.rows
	return true, nil
}

// verifyPages reads the pages of the column chunk md describes from r and
// checks each one's CRC-32, where its header has one (cairn's writer
// writes them), as a reader decoding the page would.
func verifyPages(r io.ReaderAt, md *format.ColumnMetaData) error {
	size := md.TotalCompressedSize
	counted := &countingReader{r: io.NewSectionReader(r, chunkStart(md), size)}
	br := bufio.NewReaderSize(counted, 64<<10)
	decoder := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReader(br))
	var page []byte
	for counted.n-int64(br.Buffered()) < size {
		var h format.PageHeader
		if err := decoder.Decode(&h); err != nil {
			return fmt.Errorf("reading a page header: %w", err)
		}
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > size {
			return fmt.Errorf("a page of %d bytes in a chunk of %d", h.CompressedPageSize, size)
		}
		page = slices.Grow(page[:0], int(h.CompressedPageSize))[:h.CompressedPageSize]
		if _, err := io.ReadFull(br, page); err != nil {
			return fmt.Errorf("reading a page: %w", err)
		}
		if h.CRC != 0 && uint32(h.CRC) != crc32.ChecksumIEEE(page) {
			return errors.New("crc32 checksum mismatch in a page: corrupted parquet page")
		}
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// chunkStart is where a column chunk's pages begin: its dictionary page,
// when it has one, comes before its data pages.
func chunkStart(md *format.ColumnMetaData) int64 {
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < md.DataPageOffset {
		return md.DictionaryPageOffset
	}
	return md.DataPageOffset
}

// noneDeleted reports whether no row of seg is in deleted (no ID in its
// row ID range is).
func noneDeleted(seg *segment, deleted deletedRows) bool {
	if seg.rows == 0 || seg.minRow < 0 {
		return false
	}
	if deleted.IsEmpty() {
		return true
	}
	below := uint64(0)
	if seg.minRow > 0 {
		below = deleted.Rank(uint64(seg.minRow - 1))
	}
	return deleted.Rank(uint64(seg.maxRow)) == below
}

// copyIntoMerge appends seg's row groups, none of whose rows is deleted
// (noneDeleted), to sw, the segment compactTable writes, as they are
// (copyGroups), and shows sw's side the rows' IDs and the text columns it
// indexes. It reports false, having written nothing, when seg must be
// merged row by row instead.
func (db *DB) copyIntoMerge(snap *dbState, def *catalog.TableDef, sw *segmentWriter, seg *segment) (bool, error) {
	var files segReader
	defer files.close()
	sf, err := files.file(seg)
	if err != nil {
		return false, err
	}
	if ok, err := sw.copyGroups(sf); !ok || err != nil {
		return false, err
	}
	side := sw.side
	if side == nil {
		return true, nil
	}
	// The copied rows' arrays are not at hand to cache: the merged
	// segment is read from its file when first searched.
	side.dropChunks()
	side.warm = false
	var positions []int
	for i := range side.specs {
		if side.text[i] != nil || side.trgm[i] != nil {
			positions = append(positions, i)
		}
	}
	r := db.newScan(context.Background(), snap, &tableState{segments: []*segment{seg}}, def, positions, true, nil, nil, nil)
	r.uncached = true
	defer r.Release()
	for r.Next() {
		cols := r.Record().Columns()
		chunk := segmentChunk{cols: make([]arrow.Array, len(side.specs)), rowIDs: cols[len(cols)-1].(*array.Int64)}
		for k, p := range positions {
			chunk.cols[p] = cols[k]
		}
		side.add(chunk)
	}
	return true, r.Err()
}
