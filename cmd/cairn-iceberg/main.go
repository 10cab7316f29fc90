// Command cairn-iceberg registers cairn's tables as Apache Iceberg tables,
// so that Spark, Trino or DuckDB read cairn's own Parquet segment files
// (no copy) through Iceberg metadata. It is a separate binary because
// github.com/apache/iceberg-go and its cloud dependencies would add tens
// of MB to cmd/cairn.
//
//	cairn-iceberg export --storage s3://bucket/prefix --warehouse W [--follow [--interval 5s]] [schema.table|table ...]
//	cairn-iceberg export --data-dir DIR --warehouse W [schema.table|table ...]
//
// --storage reads the object store live servers share (without a lock,
// writing nothing to it: storage.StoreReader; each --follow round applies
// only the log objects put since the round before); --data-dir reads the
// data directory of a stopped server. The catalog is iceberg-go's
// Hadoop (file) catalog: table <schema>.<name> lives in
// W/<schema>/<name>/metadata/vN.metadata.json with a version-hint.text; W
// is a local folder or s3://bucket/path. Each export that finds a table
// changed commits one snapshot (export.go), so Iceberg time travel shows
// the versions the exports saw; --follow exports every --interval. A table
// dropped or renamed in cairn leaves the warehouse at the next export, and
// each table keeps its last --metadata-versions metadata files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icebergio "github.com/apache/iceberg-go/io"
	// The s3 scheme of Iceberg file IO: an s3:// warehouse, and the
	// segments of an s3:// storage.
	_ "github.com/apache/iceberg-go/io/gocloud/s3"

	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/objstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-iceberg:", err)
		os.Exit(1)
	}
}

const usage = "usage: cairn-iceberg export (--storage s3://bucket/prefix | --data-dir DIR) --warehouse W [--follow [--interval 5s]] [--metadata-versions 10] [tables...]"

// run parses args (the subcommand first) and runs it, reporting each
// exported table to out. With --follow it exports until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "the data directory of a stopped cairn server (read, never written)")
	storageURL := fs.String("storage", os.Getenv("CAIRN_STORAGE"), "the object store cairn servers keep their state in, s3://bucket/prefix (env CAIRN_STORAGE; the standard AWS_* environment configures the client), read without a lock and never written")
	cacheDir := fs.String("cache-dir", "", "with --storage: a folder of this exporter's own for the copies of the checkpoint, the log and the segments it reads (default: a temporary one)")
	warehouse := fs.String("warehouse", "", "the Iceberg warehouse: a local folder (created if missing) or s3://bucket/path")
	catalogKind := fs.String("catalog", "hadoop", "the Iceberg catalog: hadoop (a metadata-file layout in the warehouse)")
	follow := fs.Bool("follow", false, "with --storage: keep exporting, every --interval, until interrupted")
	interval := fs.Duration("interval", 5*time.Second, "with --follow: the time between exports")
	metaVersions := fs.Int("metadata-versions", 10, "the metadata files (vN.metadata.json) each Iceberg table keeps besides the current one: the tables' write.metadata.previous-versions-max, with write.metadata.delete-after-commit.enabled")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *warehouse == "" {
		return errors.New("export: --warehouse is required")
	}
	if *catalogKind != "hadoop" {
		return fmt.Errorf("export: catalog %q is not supported yet (only hadoop)", *catalogKind)
	}
	if (*dataDir == "") == (*storageURL == "") {
		return errors.New("export: give one of --storage and --data-dir")
	}
	if *follow && *storageURL == "" {
		return errors.New("export: --follow needs --storage (a data directory is read only while its server is stopped)")
	}
	if *interval <= 0 {
		return errors.New("export: --interval must be positive")
	}
	if *metaVersions < 1 {
		return errors.New("export: --metadata-versions must be at least 1")
	}
	src := &source{dataDir: *dataDir}
	if *storageURL != "" {
		st, err := objstore.Open(ctx, *storageURL)
		if err != nil {
			return err
		}
		src.store, src.url = st, strings.TrimRight(*storageURL, "/")
		if l, ok := st.(*objstore.Local); ok {
			src.url = l.Dir()
		}
		cache := *cacheDir
		if cache == "" {
			tmp, err := os.MkdirTemp("", "cairn-iceberg-cache-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			cache = tmp
		}
		src.reader = storage.NewStoreReader(st, cache)
		defer src.reader.Close()
	} else {
		abs, err := filepath.Abs(*dataDir)
		if err != nil {
			return err
		}
		src.dataDir = abs
	}
	tmp, err := os.MkdirTemp("", "cairn-iceberg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := newExporter(src, out, tmp, *metaVersions)
	for {
		err := e.round(ctx, *warehouse, fs.Args(), *follow)
		if !*follow {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			// The next round tries again (the reader starts over from the
			// latest checkpoint if the failure left it broken).
			fmt.Fprintln(out, "cairn-iceberg:", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*interval):
		}
	}
}

// round reads the source once, drops the Iceberg tables of cairn tables
// dropped or renamed since, and exports the tables names selects.
func (e *exporter) round(ctx context.Context, warehouse string, names []string, quiet bool) error {
	tables, err := e.src.read()
	if err != nil {
		return err
	}
	if e.cat == nil {
		if !strings.Contains(warehouse, "://") {
			if err := os.MkdirAll(warehouse, 0o755); err != nil {
				return err
			}
		}
		if e.cat, err = hadoop.NewCatalog("cairn", warehouse, icebergProps(warehouse)); err != nil {
			return err
		}
	}
	if err := e.dropGone(ctx, tables); err != nil {
		return err
	}
	selected, err := selectTables(tables, names)
	if err != nil {
		return err
	}
	return e.exportTables(ctx, selected, quiet)
}

// icebergProps configures iceberg-go's S3 file IO from the standard AWS
// environment, as cmd/cairn's object store is (AWS_ENDPOINT_URL selects
// an S3-compatible server and path-style addressing; credentials and
// region come from the usual chain). The Hadoop catalog on S3 commits
// by rename, which S3 does not make atomic: it is safe with one exporter
// per warehouse, which is how cairn-iceberg is run.
func icebergProps(warehouse string) iceberg.Properties {
	p := iceberg.Properties{}
	if u, err := url.Parse(warehouse); err == nil && u.Scheme != "" && u.Scheme != "file" && len(u.Scheme) > 1 {
		p["allow-unsafe-commits"] = "true"
	}
	endpoint := cmpOr(os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("AWS_ENDPOINT_URL"))
	if endpoint != "" {
		p[icebergio.S3EndpointURL] = endpoint
	}
	if region := cmpOr(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")); region != "" {
		p[icebergio.S3Region] = region
	} else if endpoint != "" {
		p[icebergio.S3Region] = "us-east-1"
	}
	return p
}

// source is where the exported tables are read: a stopped data directory
// or an object store.
type source struct {
	dataDir string
	// store, url: the object store and the location of its keys (an
	// s3://bucket/prefix URL, or a local folder); reader reads it, round
	// after round.
	store  objstore.Store
	url    string
	reader *storage.StoreReader
}

// name identifies the source in the tables' properties.
func (s *source) name() string {
	if s.store != nil {
		return s.url
	}
	return s.dataDir
}

// read reads the source's committed tables.
func (s *source) read() ([]storage.CommittedTable, error) {
	var tables []storage.CommittedTable
	var err error
	if s.store != nil {
		_, tables, err = s.reader.Read()
	} else {
		_, tables, err = storage.ReadCommitted(s.dataDir)
	}
	return tables, err
}

// dataPath is where Iceberg readers find segment seg.
func (s *source) dataPath(seg storage.CommittedSegment) string {
	if s.store != nil {
		return s.url + "/" + seg.Key
	}
	return seg.Path
}

// owns reports whether path is one of the source's files (not one the
// exporter wrote to the warehouse).
func (s *source) owns(path string) bool {
	return strings.HasPrefix(path, s.name()+"/")
}

// liveFiles returns what tells whether one of the source's files still
// exists: for an object store, one listing of its tables.
func (s *source) liveFiles(ctx context.Context) (func(string) bool, error) {
	if s.store == nil {
		return func(path string) bool {
			_, err := os.Stat(path)
			return err == nil
		}, nil
	}
	keys := map[string]bool{}
	for info, err := range s.store.List(ctx, "tables/") {
		if err != nil {
			return nil, err
		}
		keys[s.url+"/"+info.Key] = true
	}
	return func(path string) bool { return keys[path] }, nil
}

// selectTables picks the tables names lists ("schema.table", or "table"
// in any schema); all of them when names is empty.
func selectTables(tables []storage.CommittedTable, names []string) ([]storage.CommittedTable, error) {
	if len(names) == 0 {
		return tables, nil
	}
	var out []storage.CommittedTable
	for _, n := range names {
		schema, name, qualified := strings.Cut(n, ".")
		if !qualified {
			schema, name = "", n
		}
		found := false
		for _, t := range tables {
			if t.Def.Name == name && (schema == "" || t.Def.Schema == schema) {
				out = append(out, t)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("export: table %q does not exist", n)
		}
	}
	return out, nil
}
