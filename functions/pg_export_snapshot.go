package functions

// pg_export_snapshot(): an identifier of the transaction's snapshot, which
// other sessions adopt with SET TRANSACTION SNAPSHOT until the exporting
// transaction ends: pg_dump -j's workers read what its leader reads. The
// session does the exporting (SnapshotExporter).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// SnapshotExporter is the optional part of a SessionInfo that exports
// the transaction's snapshot.
type SnapshotExporter interface {
	ExportSnapshot() (string, error)
}

func init() {
	Register(&Overload{Name: "pg_export_snapshot", Result: tText, Volatility: Volatile,
		Eval: func(ctx *Context, _ []any) (any, error) {
			if ctx != nil {
				if ex, ok := ctx.Session.(SnapshotExporter); ok {
					return ex.ExportSnapshot()
				}
			}
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_export_snapshot is not supported here")
		}})
}
