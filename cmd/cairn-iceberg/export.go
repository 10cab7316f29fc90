package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	cairncat "github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage"
)

// Each export of a table commits one Iceberg snapshot, written here rather
// than through iceberg-go's transactions: one cairn version is one
// snapshot that may add data files (new segments, tail files), remove
// others (replaced by a compaction, a TRUNCATE) and replace delete files
// at once, which no single transaction operation of iceberg-go v0.7 does
// (RowDelta cannot remove data files; ReplaceFiles adds delete files only
// in place of others, with their older sequence number, which would not
// apply them to the files added). The snapshot's manifests list every
// live file — ADDED for the new ones, EXISTING (with their first
// snapshot and sequence numbers) for those kept, DELETED for those
// removed — and the catalog's CommitTable adds it, moves main to it and
// drops the snapshots that expire, in one metadata version.
//
// The files:
//   - data files: cairn's segments where they are (no copy), and, for an
//     object store, the rows only the log holds yet (CommittedTable.Tail),
//     one file per tail batch, data/tail-<minlsn>-<lsn>-<rows>-<cols>.parquet
//     (<cols> names the table's columns when it was written: a file is
//     kept while the same batch is in the tail and the columns are the
//     same, and written again otherwise);
//   - position deletes: one file per data file with deleted rows,
//     data/deletes-<hash of the data file>-<count>.parquet, listing all of
//     them: a file's deleted rows only grow, so the count names the set,
//     and a data file whose count changed gets a new delete file in place
//     of the old one.
//
// Each commit writes the table's next vN.metadata.json; the tables keep
// the last --metadata-versions of the older ones (Iceberg's
// write.metadata.previous-versions-max and
// write.metadata.delete-after-commit.enabled, which the exporter sets on
// them and applies after each commit, as Iceberg's own commits do: the
// Hadoop catalog's CommitTable trims the metadata log but deletes no file).
// A table dropped in cairn, or renamed (the Hadoop catalog cannot rename
// a table: the new name is a new Iceberg table, with a history of its
// own), is dropped from the warehouse at the next export: its metadata,
// tail and delete files go, never a file of cairn's. So is a namespace
// its drop leaves empty, when the exporter created it or found it holding
// only tables of this cairn (a dropped schema's); one that holds anything
// else stays.
//
// Older snapshots stay readable (Iceberg time travel) while cairn keeps
// their files: cairn deletes a segment that a compaction replaced
// (--storage: once unreferenced for its retention window, 15 minutes by
// default; a data directory: at once). Each export expires the snapshots
// that reference a segment cairn no longer has, and deletes the files of
// the warehouse (tail and delete files, manifests) that only they used.

// exporter registers tables in an Iceberg catalog, one snapshot per
// export of a table that changed.
type exporter struct {
	cat *hadoop.Catalog
	src *source
	out io.Writer
	// tmp is a local folder for the files written before they are copied
	// into the warehouse.
	tmp string
	// fileSchemas caches the Arrow schemas of segment files by path
	// (they are immutable).
	fileSchemas map[string]*arrow.Schema
	// snapFiles caches, by manifest list, the files each snapshot uses.
	snapFiles map[string]snapshotFiles
	// metaVersions is the number of older metadata files each table
	// keeps.
	metaVersions int
	// exported are the Iceberg tables of the source's cairn tables in the
	// warehouse, by identifier (nil until the first round lists them).
	exported map[string]exportedTable
	// ours are the namespaces (by identKey) that the exporter created, or
	// that held tables of this source and no other when the first round
	// listed them; emptied are those of the tables dropGone dropped. A
	// namespace of both is dropped once empty (dropEmptied).
	ours, emptied map[string]bool
}

// exportedTable is an Iceberg table the exporter keeps for a cairn table.
type exportedTable struct {
	ident   table.Identifier
	tableID string
}

// newExporter returns an exporter of src that reports to out and writes
// its temporary files in tmp; each table keeps metaVersions older
// metadata files.
func newExporter(src *source, out io.Writer, tmp string, metaVersions int) *exporter {
	return &exporter{src: src, out: out, tmp: tmp, fileSchemas: map[string]*arrow.Schema{}, snapFiles: map[string]snapshotFiles{},
		metaVersions: metaVersions}
}

// identKey is the key of ident in exporter.exported.
func identKey(ident table.Identifier) string { return strings.Join(ident, "\x00") }

// dropGone drops the Iceberg tables of the source's cairn tables that are
// not among tables under their name any more (dropped, or renamed), as
// the Hadoop catalog drops a table: its folder in the warehouse, which
// holds its metadata, tail and delete files, goes; cairn's segments stay.
// Then the namespaces those tables leave empty (dropEmptied).
func (e *exporter) dropGone(ctx context.Context, tables []storage.CommittedTable) error {
	if e.exported == nil {
		if err := e.listExported(ctx); err != nil {
			return err
		}
	}
	current := map[string]string{}
	schemas := map[string]bool{}
	for _, t := range tables {
		current[identKey(table.Identifier{t.Def.Schema, t.Def.Name})] = strconv.FormatUint(t.Def.ID, 10)
		schemas[identKey(table.Identifier{t.Def.Schema})] = true
	}
	for _, key := range slices.Sorted(maps.Keys(e.exported)) {
		x := e.exported[key]
		if current[key] == x.tableID {
			continue
		}
		tbl, err := e.cat.LoadTable(ctx, x.ident)
		if err == nil {
			e.forgetSnapshots(tbl.Location())
			err = e.cat.DropTable(ctx, x.ident)
		}
		if err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
			return fmt.Errorf("dropping %s: %w", strings.Join(x.ident, "."), err)
		}
		delete(e.exported, key)
		fmt.Fprintf(e.out, "%s -> dropped (cairn table %s is gone, or has another name)\n", strings.Join(x.ident, "."), x.tableID)
		e.emptied[identKey(x.ident[:len(x.ident)-1])] = true
	}
	return e.dropEmptied(ctx, schemas)
}

// dropEmptied drops each namespace of e.emptied that is one of e.ours,
// that no cairn schema with tables needs (schemas, by identKey), and that
// holds nothing now: the Hadoop catalog drops only an empty folder, so a
// namespace that holds another table, or any file, stays. Each leaves
// e.emptied unless dropping it failed.
func (e *exporter) dropEmptied(ctx context.Context, schemas map[string]bool) error {
	for _, key := range slices.Sorted(maps.Keys(e.emptied)) {
		ns := table.Identifier(strings.Split(key, "\x00"))
		if e.ours[key] && !schemas[key] {
			err := e.cat.DropNamespace(ctx, ns)
			if err == nil {
				delete(e.ours, key)
				fmt.Fprintf(e.out, "%s -> namespace dropped (it held only tables of this cairn, now gone)\n", strings.Join(ns, "."))
			} else if !errors.Is(err, catalog.ErrNamespaceNotEmpty) && !errors.Is(err, catalog.ErrNoSuchNamespace) {
				return fmt.Errorf("dropping namespace %s: %w", strings.Join(ns, "."), err)
			}
		}
		delete(e.emptied, key)
	}
	return nil
}

// listExported finds the Iceberg tables of the warehouse that hold the
// source's cairn tables (table properties cairn.source and
// cairn.table-id).
func (e *exporter) listExported(ctx context.Context) error {
	exported := map[string]exportedTable{}
	ours := map[string]bool{}
	namespaces, err := e.cat.ListNamespaces(ctx, nil)
	if errors.Is(err, iofs.ErrNotExist) {
		namespaces, err = nil, nil // a warehouse not written to yet
	}
	if err != nil {
		return err
	}
	for _, ns := range namespaces {
		mine, others := 0, 0
		for ident, err := range e.cat.ListTables(ctx, ns) {
			if err != nil {
				return err
			}
			tbl, err := e.cat.LoadTable(ctx, ident)
			if err != nil {
				return err
			}
			if props := tbl.Properties(); props[propSource] == e.src.name() && props[propTableID] != "" {
				exported[identKey(ident)] = exportedTable{ident: ident, tableID: props[propTableID]}
				mine++
			} else {
				others++
			}
		}
		if mine > 0 && others == 0 {
			ours[identKey(ns)] = true
		}
	}
	e.exported, e.ours, e.emptied = exported, ours, map[string]bool{}
	return nil
}

// forgetSnapshots drops the cached files of the snapshots of the table at
// loc.
func (e *exporter) forgetSnapshots(loc string) {
	prefix := strings.TrimRight(loc, "/") + "/"
	for list := range e.snapFiles {
		if strings.HasPrefix(list, prefix) {
			delete(e.snapFiles, list)
		}
	}
}

// snapshotFiles are the files of one Iceberg snapshot.
type snapshotFiles struct {
	// data and deletes are the paths of its live data and delete files,
	// metadata its manifest list and manifests.
	data, deletes, metadata []string
}

// Table properties the exporter keeps.
const (
	propTableID  = "cairn.table-id"
	propSource   = "cairn.source"
	propFieldIDs = "cairn.field-ids"
)

// exportTables exports each of tables, reporting to e.out what it did;
// quiet leaves unchanged tables out of the report.
func (e *exporter) exportTables(ctx context.Context, tables []storage.CommittedTable, quiet bool) error {
	live, err := e.src.liveFiles(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		msg, err := e.exportTable(ctx, t, live)
		if err != nil {
			return fmt.Errorf("export %s.%s: %w", t.Def.Schema, t.Def.Name, err)
		}
		if msg != "" || !quiet {
			fmt.Fprintf(e.out, "%s.%s -> %s\n", t.Def.Schema, t.Def.Name, cmpOr(msg, "unchanged"))
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// dataFile is a data file the table's new version has.
type dataFile struct {
	path        string
	rows, bytes int64
	// columns maps the cairn column IDs the file holds to their names in
	// it; deleted are the positions of its deleted rows.
	columns map[int]string
	deleted []int64
	// local returns the file's local path (nil: the file holds only
	// current columns, and its schema is never needed).
	local func() (string, error)
}

// exportTable commits a snapshot of t's current version to its Iceberg
// table (created when missing) unless the table's current snapshot shows
// that version already, and expires the snapshots whose segments live
// reports gone. It returns what it did ("" when nothing changed).
func (e *exporter) exportTable(ctx context.Context, t storage.CommittedTable, live func(string) bool) (string, error) {
	// Refuse a column Iceberg cannot read before anything is written.
	fresh, err := icebergSchema(t.Def)
	if err != nil {
		return "", err
	}
	ns := table.Identifier{t.Def.Schema}
	ident := table.Identifier{t.Def.Schema, t.Def.Name}
	if ok, err := e.cat.CheckNamespaceExists(ctx, ns); err != nil {
		return "", err
	} else if !ok {
		if err := e.cat.CreateNamespace(ctx, ns, nil); err != nil {
			return "", err
		}
		e.ours[identKey(ns)] = true
	}
	tbl, err := e.cat.LoadTable(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchTable) {
		tbl, err = nil, nil
	}
	if err != nil {
		return "", err
	}
	tableID := strconv.FormatUint(t.Def.ID, 10)
	if tbl != nil && (tbl.Properties()[propTableID] != tableID || tbl.Properties()[propSource] != e.src.name()) {
		// Another table of that name (dropped and created again in
		// cairn), or of another database: its versions are not this
		// table's. Only metadata, tail and delete files live under the
		// Iceberg table's folder; cairn's segments stay where they are.
		e.forgetSnapshots(tbl.Location())
		if err := e.cat.DropTable(ctx, ident); err != nil {
			return "", err
		}
		tbl = nil
	}
	ids := map[int]int{}
	if tbl == nil {
		tbl, err = e.cat.CreateTable(ctx, ident, fresh, catalog.WithProperties(iceberg.Properties{
			table.PropertyFormatVersion: "2",
			propTableID:                 tableID,
			propSource:                  e.src.name(),
		}))
		if err != nil {
			return "", err
		}
		// The catalog numbers the fields afresh: remember its IDs.
		for _, c := range t.Def.Columns {
			f, ok := tbl.Schema().FindFieldByName(c.Name)
			if !ok {
				return "", fmt.Errorf("the new Iceberg table has no column %q", c.Name)
			}
			ids[c.ID] = f.ID
		}
	} else if err := json.Unmarshal([]byte(tbl.Properties()[propFieldIDs]), &ids); err != nil {
		return "", fmt.Errorf("table property %s: %w", propFieldIDs, err)
	}
	e.exported[identKey(ident)] = exportedTable{ident: ident, tableID: tableID}
	meta := tbl.Metadata()
	sc, ids, err := evolveSchema(t.Def, meta.CurrentSchema(), ids, meta.LastColumnID())
	if err != nil {
		return "", err
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return "", err
	}
	wfs, ok := fs.(icebergio.WriteFileIO)
	if !ok {
		return "", fmt.Errorf("the warehouse's file system (%T) cannot write files", fs)
	}
	cur, err := liveEntries(fs, tbl.CurrentSnapshot())
	if err != nil {
		return "", err
	}
	loc := strings.TrimRight(tbl.Location(), "/")

	// The files of the version being exported.
	var files []dataFile
	for _, s := range t.Segments {
		files = append(files, dataFile{path: e.src.dataPath(s), rows: s.Rows, bytes: s.Bytes, columns: s.Columns,
			deleted: s.DeletedPositions, local: s.Local})
	}
	tag := columnsTag(t.Def)
	for _, b := range t.Tail {
		path := loc + "/data/" + fmt.Sprintf("tail-%d-%d-%d-%s.parquet", b.MinLSN, b.LSN, b.Rows, tag)
		f := dataFile{path: path, rows: b.Rows, deleted: b.DeletedPositions, columns: map[int]string{}}
		for _, c := range t.Def.Columns {
			f.columns[c.ID] = c.Name
		}
		if ent, ok := cur.data[path]; ok {
			f.bytes = ent.DataFile().FileSizeBytes()
		} else {
			local := filepath.Join(e.tmp, filepath.Base(path))
			cs, err := b.Write(local)
			if err != nil {
				return "", err
			}
			err = copyInto(wfs, local, path)
			os.Remove(local)
			if err != nil {
				return "", err
			}
			f.bytes = cs.Bytes
		}
		files = append(files, f)
	}
	mapping, err := e.nameMapping(sc, t.Def, files)
	if err != nil {
		return "", err
	}
	idsJSON, err := json.Marshal(ids)
	if err != nil {
		return "", err
	}

	var addData, addDels []iceberg.DataFile
	var removeData, removeDels []iceberg.ManifestEntry
	var keepData, keepDels []iceberg.ManifestEntry
	wantData, wantDels := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		wantData[f.path] = true
		if ent, ok := cur.data[f.path]; ok {
			keepData = append(keepData, ent)
		} else {
			b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentData, f.path,
				iceberg.ParquetFile, nil, nil, nil, f.rows, f.bytes)
			if err != nil {
				return "", err
			}
			addData = append(addData, b.Build())
		}
		if len(f.deleted) == 0 {
			continue
		}
		path := loc + "/data/" + fmt.Sprintf("deletes-%s-%d.parquet", shortHash(f.path), len(f.deleted))
		wantDels[path] = true
		if ent, ok := cur.deletes[path]; ok {
			keepDels = append(keepDels, ent)
			continue
		}
		df, err := e.writePositionDeletes(wfs, path, f.path, f.deleted)
		if err != nil {
			return "", err
		}
		addDels = append(addDels, df)
	}
	for _, path := range slices.Sorted(maps.Keys(cur.data)) {
		if !wantData[path] {
			removeData = append(removeData, cur.data[path])
		}
	}
	for _, path := range slices.Sorted(maps.Keys(cur.deletes)) {
		if !wantDels[path] {
			removeDels = append(removeDels, cur.deletes[path])
		}
	}

	var updates []table.Update
	snapshotID := int64(-1)
	if schemaID := schemaIDOf(meta, sc); schemaID < 0 {
		updates = append(updates, table.NewAddSchemaUpdate(sc), table.NewSetCurrentSchemaUpdate(-1))
		sc.ID = 0
		for _, s := range meta.Schemas() {
			sc.ID = max(sc.ID, s.ID+1)
		}
	} else if schemaID != meta.CurrentSchema().ID {
		updates = append(updates, table.NewSetCurrentSchemaUpdate(schemaID))
		sc.ID = schemaID
	}
	props := iceberg.Properties{table.DefaultNameMappingKey: mapping, propFieldIDs: string(idsJSON),
		table.MetadataDeleteAfterCommitEnabledKey: "true", table.MetadataPreviousVersionsMaxKey: strconv.Itoa(e.metaVersions)}
	for k, v := range props {
		if tbl.Properties()[k] != v {
			updates = append(updates, table.NewSetPropertiesUpdate(props))
			break
		}
	}
	changed := len(addData)+len(addDels)+len(removeData)+len(removeDels) > 0
	if changed {
		snap, err := e.writeSnapshot(wfs, meta, loc, sc, t.LSN, keepData, addData, removeData, keepDels, addDels, removeDels)
		if err != nil {
			return "", err
		}
		snapshotID = snap.SnapshotID
		updates = append(updates, table.NewAddSnapshotUpdate(snap),
			table.NewSetSnapshotRefUpdate(table.MainBranch, snap.SnapshotID, table.BranchRef, -1, -1, -1))
	}
	expired, err := e.expired(fs, meta, cur.snapshotID, snapshotID, live)
	if err != nil {
		return "", err
	}
	if len(expired) > 0 {
		updates = append(updates, table.NewRemoveSnapshotsUpdate(expired, false))
	}
	if len(updates) == 0 {
		return "", nil
	}
	reqs := []table.Requirement{table.AssertTableUUID(meta.TableUUID())}
	var curID *int64
	if s := tbl.CurrentSnapshot(); s != nil {
		curID = &s.SnapshotID
	}
	reqs = append(reqs, table.AssertRefSnapshotID(table.MainBranch, curID))
	newMeta, metaLoc, err := e.cat.CommitTable(ctx, ident, reqs, updates)
	if err != nil {
		return "", err
	}
	if err := removeOldMetadata(fs, meta, newMeta); err != nil {
		return "", err
	}
	if err := e.removeOrphans(fs, newMeta, meta, expired, loc); err != nil {
		return "", err
	}
	msg := metaLoc
	if changed {
		msg += fmt.Sprintf(" (snapshot %d: +%d -%d data files, %d delete files)", snapshotID, len(addData), len(removeData), len(keepDels)+len(addDels))
	}
	if len(expired) > 0 {
		msg += fmt.Sprintf(" (expired %d snapshots whose segments cairn removed)", len(expired))
	}
	return msg, nil
}

// schemaIDOf is the ID of the schema of meta equal to sc, or -1.
func schemaIDOf(meta table.Metadata, sc *iceberg.Schema) int {
	if meta.CurrentSchema().Equals(sc) {
		return meta.CurrentSchema().ID
	}
	for _, s := range meta.Schemas() {
		if s.Equals(sc) {
			return s.ID
		}
	}
	return -1
}

// snapshotEntries are the live files of a snapshot, by path.
type snapshotEntries struct {
	snapshotID    int64
	data, deletes map[string]iceberg.ManifestEntry
}

// liveEntries reads the live files of snap (nil: none).
func liveEntries(fs icebergio.IO, snap *table.Snapshot) (snapshotEntries, error) {
	out := snapshotEntries{snapshotID: -1, data: map[string]iceberg.ManifestEntry{}, deletes: map[string]iceberg.ManifestEntry{}}
	if snap == nil {
		return out, nil
	}
	out.snapshotID = snap.SnapshotID
	mfs, err := snap.Manifests(fs)
	if err != nil {
		return out, err
	}
	for _, mf := range mfs {
		ents, err := mf.FetchEntries(fs, true)
		if err != nil {
			return out, err
		}
		for _, ent := range ents {
			if ent.DataFile().ContentType() == iceberg.EntryContentData {
				out.data[ent.DataFile().FilePath()] = ent
			} else {
				out.deletes[ent.DataFile().FilePath()] = ent
			}
		}
	}
	return out, nil
}

// writeSnapshot writes the manifests and manifest list of a new snapshot
// of meta's table (at loc, schema sc) that keeps, adds and removes the
// given data and delete files, and returns it.
func (e *exporter) writeSnapshot(wfs icebergio.WriteFileIO, meta table.Metadata, loc string, sc *iceberg.Schema, lsn uint64,
	keepData []iceberg.ManifestEntry, addData []iceberg.DataFile, removeData []iceberg.ManifestEntry,
	keepDels []iceberg.ManifestEntry, addDels []iceberg.DataFile, removeDels []iceberg.ManifestEntry,
) (*table.Snapshot, error) {
	snapshotID := newSnapshotID(meta)
	seq := meta.LastSequenceNumber() + 1
	commit := uuid.New()
	var mfs []iceberg.ManifestFile
	for i, m := range []struct {
		content    iceberg.ManifestContent
		keep, drop []iceberg.ManifestEntry
		add        []iceberg.DataFile
	}{
		{iceberg.ManifestContentData, keepData, removeData, addData},
		{iceberg.ManifestContentDeletes, keepDels, removeDels, addDels},
	} {
		if len(m.keep)+len(m.drop)+len(m.add) == 0 {
			continue
		}
		path := fmt.Sprintf("%s/metadata/%s-m%d.avro", loc, commit, i)
		mf, err := writeManifest(wfs, path, m.content, sc, snapshotID, m.keep, m.add, m.drop)
		if err != nil {
			return nil, err
		}
		mfs = append(mfs, mf)
	}
	listPath := fmt.Sprintf("%s/metadata/snap-%d-0-%s.avro", loc, snapshotID, commit)
	var parent *int64
	if s := meta.CurrentSnapshot(); s != nil {
		parent = &s.SnapshotID
	}
	out, err := wfs.Create(listPath)
	if err != nil {
		return nil, err
	}
	err = iceberg.WriteManifestList(2, out, snapshotID, parent, &seq, 0, mfs)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing manifest list %s: %w", listPath, err)
	}

	count := func(ents []iceberg.ManifestEntry) (n int64) {
		for _, e := range ents {
			n += e.DataFile().Count()
		}
		return n
	}
	countFiles := func(dfs []iceberg.DataFile) (n int64) {
		for _, df := range dfs {
			n += df.Count()
		}
		return n
	}
	op := table.OpOverwrite
	switch {
	case len(removeData)+len(removeDels)+len(addDels) == 0:
		op = table.OpAppend
	case len(addData) == 0:
		op = table.OpDelete
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	summary := table.Summary{Operation: op, Properties: iceberg.Properties{
		"added-data-files":         strconv.Itoa(len(addData)),
		"deleted-data-files":       strconv.Itoa(len(removeData)),
		"added-records":            itoa(countFiles(addData)),
		"deleted-records":          itoa(count(removeData)),
		"added-delete-files":       strconv.Itoa(len(addDels)),
		"removed-delete-files":     strconv.Itoa(len(removeDels)),
		"added-position-deletes":   itoa(countFiles(addDels)),
		"removed-position-deletes": itoa(count(removeDels)),
		"total-data-files":         strconv.Itoa(len(keepData) + len(addData)),
		"total-delete-files":       strconv.Itoa(len(keepDels) + len(addDels)),
		"total-records":            itoa(count(keepData) + countFiles(addData)),
		"total-position-deletes":   itoa(count(keepDels) + countFiles(addDels)),
		"total-equality-deletes":   "0",
		"cairn.lsn":                strconv.FormatUint(lsn, 10),
	}}
	return &table.Snapshot{
		SnapshotID:       snapshotID,
		ParentSnapshotID: parent,
		SequenceNumber:   seq,
		TimestampMs:      time.Now().UnixMilli(),
		ManifestList:     listPath,
		Summary:          &summary,
		SchemaID:         &sc.ID,
	}, nil
}

// newSnapshotID picks a positive snapshot ID meta does not use.
func newSnapshotID(meta table.Metadata) int64 {
	for {
		id := rand.Int64N(1<<62) + 1
		if meta.SnapshotByID(id) == nil {
			return id
		}
	}
}

// writeManifest writes the manifest at path of snapshot snapshotID: the
// entries keep as EXISTING, the files add as ADDED (their sequence
// numbers inherited from the manifest list), the entries drop as DELETED.
func writeManifest(wfs icebergio.WriteFileIO, path string, content iceberg.ManifestContent, sc *iceberg.Schema, snapshotID int64,
	keep []iceberg.ManifestEntry, add []iceberg.DataFile, drop []iceberg.ManifestEntry,
) (_ iceberg.ManifestFile, err error) {
	out, err := wfs.Create(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			err = fmt.Errorf("writing manifest %s: %w", path, err)
		}
	}()
	cnt := &countingWriter{w: out}
	w, err := iceberg.NewManifestWriter(2, cnt, *iceberg.UnpartitionedSpec, sc, snapshotID, iceberg.WithManifestWriterContent(content))
	if err != nil {
		return nil, err
	}
	for _, ent := range keep {
		if err := w.Existing(ent); err != nil {
			return nil, err
		}
	}
	for _, df := range add {
		if err := w.Add(iceberg.NewManifestEntry(iceberg.EntryStatusADDED, &snapshotID, nil, nil, df)); err != nil {
			return nil, err
		}
	}
	for _, ent := range drop {
		if err := w.Delete(ent); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return w.ToManifestFile(path, cnt.n, iceberg.WithManifestFileContent(content))
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// filesOf returns the files of snapshot s (cached by manifest list).
func (e *exporter) filesOf(fs icebergio.IO, s table.Snapshot) (snapshotFiles, error) {
	if f, ok := e.snapFiles[s.ManifestList]; ok {
		return f, nil
	}
	f := snapshotFiles{metadata: []string{s.ManifestList}}
	ents, err := liveEntries(fs, &s)
	if err != nil {
		return f, err
	}
	f.data = slices.Sorted(maps.Keys(ents.data))
	f.deletes = slices.Sorted(maps.Keys(ents.deletes))
	mfs, err := s.Manifests(fs)
	if err != nil {
		return f, err
	}
	for _, mf := range mfs {
		f.metadata = append(f.metadata, mf.FilePath())
	}
	e.snapFiles[s.ManifestList] = f
	return f, nil
}

// expired lists the snapshots of meta, other than current and
// next (the new one, -1 if none), that use a segment live reports gone:
// cairn removed it after a compaction or TRUNCATE replaced it, so the
// snapshot cannot be read any more. The current snapshot goes too once a
// new one replaces it.
func (e *exporter) expired(fs icebergio.IO, meta table.Metadata, current, next int64, live func(string) bool) ([]int64, error) {
	var out []int64
	for _, s := range meta.Snapshots() {
		if s.SnapshotID == next || (s.SnapshotID == current && next < 0) {
			continue
		}
		f, err := e.filesOf(fs, s)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(f.data, func(p string) bool { return e.src.owns(p) && !live(p) }) {
			out = append(out, s.SnapshotID)
		}
	}
	return out, nil
}

// removeOrphans deletes the files under the table location loc that the
// snapshots expired (of old, the metadata before the commit) used and no
// snapshot of now uses: their manifests and manifest lists, and the tail
// and delete files only they listed. Never a cairn segment.
func (e *exporter) removeOrphans(fs icebergio.IO, now, old table.Metadata, expired []int64, loc string) error {
	if len(expired) == 0 {
		return nil
	}
	used := map[string]bool{}
	for _, s := range now.Snapshots() {
		f, err := e.filesOf(fs, s)
		if err != nil {
			return err
		}
		for _, p := range slices.Concat(f.data, f.deletes, f.metadata) {
			used[p] = true
		}
	}
	for _, id := range expired {
		s := old.SnapshotByID(id)
		if s == nil {
			continue
		}
		f, err := e.filesOf(fs, *s)
		if err != nil {
			return err
		}
		for _, p := range slices.Concat(f.data, f.deletes, f.metadata) {
			if !used[p] && strings.HasPrefix(p, loc+"/") {
				if err := fs.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
		delete(e.snapFiles, s.ManifestList)
	}
	return nil
}

// removeOldMetadata deletes the metadata files that the commit of newMeta
// (over old) dropped from the table's metadata log, when the table's
// write.metadata.delete-after-commit.enabled says so, as Iceberg's own
// commits do (the log keeps write.metadata.previous-versions-max files).
func removeOldMetadata(fs icebergio.IO, old, newMeta table.Metadata) error {
	if !newMeta.Properties().GetBool(table.MetadataDeleteAfterCommitEnabledKey, table.MetadataDeleteAfterCommitEnabledDefault) {
		return nil
	}
	kept := map[string]bool{}
	for ent := range newMeta.PreviousFiles() {
		kept[ent.MetadataFile] = true
	}
	for ent := range old.PreviousFiles() {
		if !kept[ent.MetadataFile] {
			if err := fs.Remove(ent.MetadataFile); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// copyInto copies the local file at local to path in the warehouse.
func copyInto(wfs icebergio.WriteFileIO, local, path string) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := wfs.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// shortHash names a data file in the names of its delete files.
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// columnsTag names the columns of def (IDs, names and types) in the
// names of tail files.
func columnsTag(def *cairncat.TableDef) string {
	var b strings.Builder
	for _, c := range def.Columns {
		fmt.Fprintf(&b, "%d:%s:%s;", c.ID, c.Name, c.Type)
	}
	return shortHash(b.String())[:8]
}

// icebergSchema is the Iceberg schema of def's columns, numbered by
// cairn's column IDs (list elements past them): the catalog that creates
// the table numbers them afresh.
func icebergSchema(def *cairncat.TableDef) (*iceberg.Schema, error) {
	next := max(def.NextColumnID, len(def.Columns)+1)
	fields := make([]iceberg.NestedField, 0, len(def.Columns))
	for _, c := range def.Columns {
		typ, err := icebergType(c.Type.Arrow(), &next)
		if err != nil {
			return nil, fmt.Errorf("column %q (%s): %w", c.Name, c.Type, err)
		}
		fields = append(fields, iceberg.NestedField{ID: c.ID, Name: c.Name, Type: typ, Required: c.NotNull, Doc: c.Comment})
	}
	return iceberg.NewSchema(0, fields...), nil
}

// evolveSchema is the Iceberg schema of def's columns given the table's
// current schema cur, ids (cairn column ID -> Iceberg field ID) and the
// table's last assigned field ID: a column keeps its field (and the IDs
// of its list elements) while its type maps to the same Iceberg type; a
// new column, or one whose type changed, gets new IDs. It returns the
// schema and the IDs of its columns.
func evolveSchema(def *cairncat.TableDef, cur *iceberg.Schema, ids map[int]int, lastID int) (*iceberg.Schema, map[int]int, error) {
	next := lastID + 1
	out := map[int]int{}
	fields := make([]iceberg.NestedField, 0, len(def.Columns))
	for _, c := range def.Columns {
		scratch := 0
		shape, err := icebergType(c.Type.Arrow(), &scratch)
		if err != nil {
			return nil, nil, fmt.Errorf("column %q (%s): %w", c.Name, c.Type, err)
		}
		f := iceberg.NestedField{Name: c.Name, Required: c.NotNull, Doc: c.Comment}
		if id, ok := ids[c.ID]; ok {
			if old, ok := cur.FindFieldByID(id); ok && sameShape(old.Type, shape) {
				f.ID, f.Type = id, old.Type
			}
		}
		if f.ID == 0 {
			f.ID = next
			next++
			if f.Type, err = icebergType(c.Type.Arrow(), &next); err != nil {
				return nil, nil, err
			}
		}
		out[c.ID] = f.ID
		fields = append(fields, f)
	}
	return iceberg.NewSchema(0, fields...), out, nil
}

// sameShape reports whether a and b are the same type but for the IDs of
// nested fields.
func sameShape(a, b iceberg.Type) bool {
	la, okA := a.(*iceberg.ListType)
	lb, okB := b.(*iceberg.ListType)
	if okA || okB {
		return okA && okB && la.ElementRequired == lb.ElementRequired && sameShape(la.Element, lb.Element)
	}
	return a.Equals(b)
}

// nameMapping is the JSON of the table's schema.name-mapping.default: each
// field of sc under its current name plus the older names files still
// use for it (cairn renames columns without rewriting files), so that
// readers match cairn's files, which carry no Iceberg field IDs.
func (e *exporter) nameMapping(sc *iceberg.Schema, def *cairncat.TableDef, files []dataFile) (string, error) {
	nm := sc.NameMapping()
	owner := map[string]int{}
	for i := range nm {
		for _, n := range nm[i].Names {
			owner[n] = i
		}
	}
	for _, c := range def.Columns {
		i := slices.IndexFunc(nm, func(f iceberg.MappedField) bool { return slices.Contains(f.Names, c.Name) })
		for _, f := range files {
			old, ok := f.columns[c.ID]
			if !ok || slices.Contains(nm[i].Names, old) {
				continue
			}
			if _, taken := owner[old]; taken {
				return "", fmt.Errorf("file %s holds column %q under the name %q, which another column of the Iceberg schema has: Iceberg's name mapping cannot tell them apart", f.path, c.Name, old)
			}
			nm[i].Names = append(nm[i].Names, old)
			owner[old] = i
		}
	}
	// iceberg-go refuses a file with a column the mapping lacks: map
	// __rowid and the columns of files written before a column was
	// dropped to IDs the schema does not use, so that readers skip them.
	next := sc.HighestFieldID() + 1
	if _, taken := owner[cairncat.RowIDColumn]; !taken && len(files) > 0 {
		owner[cairncat.RowIDColumn] = len(nm)
		nm = append(nm, mappedField(arrow.Field{Name: cairncat.RowIDColumn, Type: arrow.PrimitiveTypes.Int64}, &next))
	}
	for _, f := range files {
		var dropped []string
		for _, id := range slices.Sorted(maps.Keys(f.columns)) {
			if i, _ := def.ColumnByID(id); i >= 0 {
				continue
			}
			name := f.columns[id]
			if i, taken := owner[name]; taken && i < len(sc.Fields()) {
				return "", fmt.Errorf("file %s holds a dropped column under the name %q, which a current column has: Iceberg's name mapping cannot tell them apart", f.path, name)
			}
			if _, taken := owner[name]; !taken {
				dropped = append(dropped, name)
			}
		}
		if len(dropped) == 0 {
			continue
		}
		fsc, err := e.fileSchema(f)
		if err != nil {
			return "", err
		}
		for _, name := range dropped {
			idx := fsc.FieldIndices(name)
			if len(idx) != 1 {
				return "", fmt.Errorf("file %s has no column %q", f.path, name)
			}
			owner[name] = len(nm)
			nm = append(nm, mappedField(fsc.Field(idx[0]), &next))
		}
	}
	b, err := json.Marshal(nm)
	return string(b), err
}

// fileSchema is the Arrow schema of segment file f (fetched from the
// object store when the cache lacks it).
func (e *exporter) fileSchema(f dataFile) (*arrow.Schema, error) {
	if sc, ok := e.fileSchemas[f.path]; ok {
		return sc, nil
	}
	if f.local == nil {
		return nil, fmt.Errorf("file %s: no local copy to read its schema from", f.path)
	}
	path, err := f.local()
	if err != nil {
		return nil, err
	}
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", path, err)
	}
	defer rd.Close()
	sc, err := pqarrow.FromParquet(rd.MetaData().Schema, nil, rd.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, err
	}
	e.fileSchemas[f.path] = sc
	return sc, nil
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

// writePositionDeletes writes the Iceberg position-delete file at path
// listing positions (ascending) of the data file dataPath.
func (e *exporter) writePositionDeletes(wfs icebergio.WriteFileIO, path, dataPath string, positions []int64) (iceberg.DataFile, error) {
	sc := table.PositionalDeleteArrowSchema
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	paths := bld.Field(0).(*array.StringBuilder)
	poss := bld.Field(1).(*array.Int64Builder)
	for _, p := range positions {
		paths.Append(dataPath)
		poss.Append(p)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	local := filepath.Join(e.tmp, filepath.Base(path))
	defer os.Remove(local)
	f, err := os.Create(local)
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
	st, err := os.Stat(local)
	if err != nil {
		return nil, err
	}
	if err := copyInto(wfs, local, path); err != nil {
		return nil, err
	}
	b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentPosDeletes, path,
		iceberg.ParquetFile, nil, nil, nil, int64(len(positions)), st.Size())
	if err != nil {
		return nil, err
	}
	return b.Build(), nil
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
