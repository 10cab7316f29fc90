package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	cairncat "github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage"
)

// exportTables registers each of tables in the Hadoop catalog at
// warehouse, replacing an earlier export of it.
func exportTables(ctx context.Context, warehouse string, tables []storage.CommittedTable, out io.Writer) error {
	if err := os.MkdirAll(strings.TrimPrefix(warehouse, "file://"), 0o755); err != nil {
		return err
	}
	cat, err := hadoop.NewCatalog("cairn", warehouse, nil)
	if err != nil {
		return err
	}
	defer cat.Close()
	for _, t := range tables {
		loc, err := exportTable(ctx, cat, t)
		if err != nil {
			return fmt.Errorf("export %s.%s: %w", t.Def.Schema, t.Def.Name, err)
		}
		fmt.Fprintf(out, "%s.%s -> %s\n", t.Def.Schema, t.Def.Name, loc)
	}
	return nil
}

// exportTable (re)creates the Iceberg table of t and commits one snapshot
// adding t's segment files and a position-delete file for its deleted
// rows. It returns the new metadata file's location.
func exportTable(ctx context.Context, cat *hadoop.Catalog, t storage.CommittedTable) (string, error) {
	sc, err := icebergSchema(t)
	if err != nil {
		return "", err
	}
	ns := table.Identifier{t.Def.Schema}
	ident := table.Identifier{t.Def.Schema, t.Def.Name}
	if ok, err := cat.CheckNamespaceExists(ctx, ns); err != nil {
		return "", err
	} else if !ok {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			return "", err
		}
	}
	if ok, err := cat.CheckTableExists(ctx, ident); err != nil {
		return "", err
	} else if ok {
		// Only metadata lives under the table folder; the data files
		// stay in the cairn data directory.
		if err := cat.DropTable(ctx, ident); err != nil {
			return "", err
		}
	}
	tbl, err := cat.CreateTable(ctx, ident, sc, catalog.WithProperties(iceberg.Properties{
		table.PropertyFormatVersion: "2",
		"cairn.table-id":            fmt.Sprint(t.Def.ID),
	}))
	if err != nil {
		return "", err
	}
	mapping, err := nameMapping(tbl.Schema(), t)
	if err != nil {
		return "", err
	}
	tx := tbl.NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{table.DefaultNameMappingKey: mapping}); err != nil {
		return "", err
	}
	var dataFiles []iceberg.DataFile
	for _, s := range t.Segments {
		b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentData, s.Path,
			iceberg.ParquetFile, nil, nil, nil, s.Rows, s.Bytes)
		if err != nil {
			return "", err
		}
		dataFiles = append(dataFiles, b.Build())
	}
	if len(dataFiles) > 0 {
		rd := tx.NewRowDelta(nil).AddRows(dataFiles...)
		del, err := writePositionDeletes(tbl.Location(), t.Segments)
		if err != nil {
			return "", err
		}
		if del != nil {
			rd.AddDeletes(del)
		}
		if err := rd.Commit(ctx); err != nil {
			return "", err
		}
	}
	tbl, err = tx.Commit(ctx)
	if err != nil {
		return "", err
	}
	return tbl.MetadataLocation(), nil
}

// icebergSchema is the Iceberg schema of t's current columns. Field IDs
// are cairn's column IDs for top-level fields; list elements get IDs past
// the table's NextColumnID. (The catalog may renumber them; nameMapping
// maps the files by name to the IDs it kept.)
func icebergSchema(t storage.CommittedTable) (*iceberg.Schema, error) {
	next := max(t.Def.NextColumnID, len(t.Def.Columns)+1)
	fields := make([]iceberg.NestedField, 0, len(t.Def.Columns))
	for _, c := range t.Def.Columns {
		typ, err := icebergType(c.Type.Arrow(), &next)
		if err != nil {
			return nil, fmt.Errorf("column %q (%s): %w", c.Name, c.Type, err)
		}
		fields = append(fields, iceberg.NestedField{ID: c.ID, Name: c.Name, Type: typ, Required: c.NotNull, Doc: c.Comment})
	}
	return iceberg.NewSchema(0, fields...), nil
}

// errUnsupportedType is returned for a column type Iceberg has no
// counterpart for that reads cairn's Parquet encoding as is.
var errUnsupportedType = errors.New("no Iceberg type reads this column's Parquet encoding (interval and oid types are not exported yet)")

// icebergType maps the Arrow type cairn stores a column as to the Iceberg
// type that reads its Parquet encoding; *next hands out list element IDs.
func icebergType(dt arrow.DataType, next *int) (iceberg.Type, error) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return iceberg.PrimitiveTypes.Bool, nil
	case *arrow.Int16Type, *arrow.Int32Type:
		return iceberg.PrimitiveTypes.Int32, nil
	case *arrow.Int64Type:
		return iceberg.PrimitiveTypes.Int64, nil
	case *arrow.Float32Type:
		return iceberg.PrimitiveTypes.Float32, nil
	case *arrow.Float64Type:
		return iceberg.PrimitiveTypes.Float64, nil
	case *arrow.StringType:
		// text, varchar, json(b), numeric (its exact text form).
		return iceberg.PrimitiveTypes.String, nil
	case *arrow.BinaryType:
		return iceberg.PrimitiveTypes.Binary, nil
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth == 16 {
			return iceberg.PrimitiveTypes.UUID, nil
		}
	case *arrow.Date32Type:
		return iceberg.PrimitiveTypes.Date, nil
	case *arrow.Time64Type:
		if t.Unit == arrow.Microsecond {
			return iceberg.PrimitiveTypes.Time, nil
		}
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond && t.TimeZone != "" {
			return iceberg.PrimitiveTypes.TimestampTz, nil
		}
		if t.Unit == arrow.Microsecond {
			return iceberg.PrimitiveTypes.Timestamp, nil
		}
	case *arrow.ListType:
		id := *next
		*next++
		elem, err := icebergType(t.Elem(), next)
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{ElementID: id, Element: elem}, nil
	}
	return nil, errUnsupportedType
}

// nameMapping is the JSON of the table's schema.name-mapping.default: each
// field of sc under its current name plus the older names segment files
// still use for it (cairn renames columns without rewriting files), so
// that readers match cairn's files, which carry no Iceberg field IDs.
func nameMapping(sc *iceberg.Schema, t storage.CommittedTable) (string, error) {
	nm := sc.NameMapping()
	owner := map[string]int{}
	for i := range nm {
		for _, n := range nm[i].Names {
			owner[n] = i
		}
	}
	for _, c := range t.Def.Columns {
		i := slices.IndexFunc(nm, func(f iceberg.MappedField) bool { return slices.Contains(f.Names, c.Name) })
		for _, s := range t.Segments {
			old, ok := s.Columns[c.ID]
			if !ok || slices.Contains(nm[i].Names, old) {
				continue
			}
			if _, taken := owner[old]; taken {
				return "", fmt.Errorf("segment %s holds column %q under the name %q, which another column of the Iceberg schema has: Iceberg's name mapping cannot tell them apart", filepath.Base(s.Path), c.Name, old)
			}
			nm[i].Names = append(nm[i].Names, old)
			owner[old] = i
		}
	}
	// iceberg-go refuses a file with a column the mapping lacks: map
	// __rowid and the columns of files written before a column was
	// dropped to IDs the schema does not use, so that readers skip them.
	next := sc.HighestFieldID() + 1
	for _, s := range t.Segments {
		var dropped []string
		for _, id := range slices.Sorted(maps.Keys(s.Columns)) {
			if i, _ := t.Def.ColumnByID(id); i >= 0 {
				continue
			}
			name := s.Columns[id]
			if i, taken := owner[name]; taken && i < len(sc.Fields()) {
				return "", fmt.Errorf("segment %s holds a dropped column under the name %q, which a current column has: Iceberg's name mapping cannot tell them apart", filepath.Base(s.Path), name)
			}
			if _, taken := owner[name]; !taken {
				dropped = append(dropped, name)
			}
		}
		if _, taken := owner[cairncat.RowIDColumn]; !taken {
			dropped = append(dropped, cairncat.RowIDColumn)
		}
		if len(dropped) == 0 {
			continue
		}
		fsc, err := fileSchema(s.Path)
		if err != nil {
			return "", err
		}
		for _, name := range dropped {
			idx := fsc.FieldIndices(name)
			if len(idx) != 1 {
				return "", fmt.Errorf("segment %s has no column %q", filepath.Base(s.Path), name)
			}
			owner[name] = len(nm)
			nm = append(nm, mappedField(fsc.Field(idx[0]), &next))
		}
	}
	b, err := json.Marshal(nm)
	return string(b), err
}

// fileSchema is the Arrow schema of the Parquet file at path.
func fileSchema(path string) (*arrow.Schema, error) {
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", path, err)
	}
	defer rd.Close()
	return pqarrow.FromParquet(rd.MetaData().Schema, nil, rd.MetaData().KeyValueMetadata())
}

// mappedField maps f and its nested fields to fresh IDs from *next.
func mappedField(f arrow.Field, next *int) iceberg.MappedField {
	id := *next
	*next++
	m := iceberg.MappedField{Names: []string{f.Name}, FieldID: &id}
	switch t := f.Type.(type) {
	case arrow.ListLikeType:
		m.Fields = []iceberg.MappedField{mappedField(t.ElemField(), next)}
	case *arrow.StructType:
		for _, sf := range t.Fields() {
			m.Fields = append(m.Fields, mappedField(sf, next))
		}
	}
	return m
}

// writePositionDeletes writes one Iceberg position-delete file under the
// table location listing the deleted rows of segs, sorted by file and
// position as the spec requires; nil when no row is deleted.
func writePositionDeletes(location string, segs []storage.CommittedSegment) (iceberg.DataFile, error) {
	segs = slices.Clone(segs)
	slices.SortFunc(segs, func(a, b storage.CommittedSegment) int { return strings.Compare(a.Path, b.Path) })
	sc := table.PositionalDeleteArrowSchema
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	paths := bld.Field(0).(*array.StringBuilder)
	poss := bld.Field(1).(*array.Int64Builder)
	for _, s := range segs {
		for _, p := range s.DeletedPositions {
			paths.Append(s.Path)
			poss.Append(p)
		}
	}
	n := int64(poss.Len())
	if n == 0 {
		return nil, nil
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	dir := filepath.Join(strings.TrimPrefix(location, "file://"), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "cairn-deletes-"+uuid.NewString()+".parquet")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(parquet.WithStats(true)), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentPosDeletes, path,
		iceberg.ParquetFile, nil, nil, nil, n, st.Size())
	if err != nil {
		return nil, err
	}
	return b.Build(), nil
}
