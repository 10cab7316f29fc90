// Command cairn-iceberg registers the tables of a stopped cairn data
// directory as Apache Iceberg tables, so that Spark, Trino or DuckDB read
// cairn's own Parquet segment files (no copy) through Iceberg metadata.
// It is a separate binary because github.com/apache/iceberg-go and its
// cloud dependencies would add tens of MB to cmd/cairn.
//
//	cairn-iceberg export --data-dir DIR --warehouse DIR [--catalog hadoop] [schema.table|table ...]
//
// The catalog is iceberg-go's Hadoop (filesystem) catalog: table
// <schema>.<name> lives in WAREHOUSE/<schema>/<name>/metadata/vN.metadata.json
// with a version-hint.text. Deleted rows become one Iceberg position-delete
// file per table. Each export replaces the Iceberg table with the data
// directory's current committed version: cairn's compaction removes
// segment files, so an older Iceberg snapshot would point at files that
// are gone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cairn-db/cairn/storage"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-iceberg:", err)
		os.Exit(1)
	}
}

// run parses args (the subcommand first) and runs it, reporting each
// exported table to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		return errors.New("usage: cairn-iceberg export --data-dir DIR --warehouse DIR [--catalog hadoop] [tables...]")
	}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./cairn-data", "the data directory of a stopped cairn server (read, never written)")
	warehouse := fs.String("warehouse", "", "the Iceberg warehouse folder (created if missing)")
	catalogKind := fs.String("catalog", "hadoop", "the Iceberg catalog: hadoop (a metadata-file layout in the warehouse)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *warehouse == "" {
		return errors.New("export: --warehouse is required")
	}
	if *catalogKind != "hadoop" {
		return fmt.Errorf("export: catalog %q is not supported yet (only hadoop)", *catalogKind)
	}
	if strings.Contains(*warehouse, "://") && !strings.HasPrefix(*warehouse, "file://") {
		return fmt.Errorf("export: warehouse %s: only a local folder is supported yet", *warehouse)
	}
	_, tables, err := storage.ReadCommitted(*dataDir)
	if err != nil {
		return err
	}
	selected, err := selectTables(tables, fs.Args())
	if err != nil {
		return err
	}
	return exportTables(ctx, *warehouse, selected, out)
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
