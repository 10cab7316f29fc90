package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// loadResult holds the load phase's figures.
type loadResult struct {
	Rows            int     `json:"rows"`
	Dim             int     `json:"dim"`
	InsertSeconds   float64 `json:"insert_s,omitempty"`
	InsertRowsPerS  float64 `json:"insert_rows_per_s,omitempty"`
	WireScanRowsPS  float64 `json:"wire_scan_rows_per_s,omitempty"`
	CountScanRowsPS float64 `json:"count_scan_rows_per_s,omitempty"`
}

// load (re)creates table and inserts rows deterministic rows of the dataset
// in multi-row INSERTs sent in pgx batches, printing the insert rate (of
// the sending: the rows are generated first).
func load(ctx context.Context, conn *pgx.Conn, table string, rows, dim, perStmt, perBatch int, res *loadResult) error {
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding float4[])"); err != nil {
		return err
	}
	d := newDataset(dim)
	insertSQL := func(n int) string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO " + table + " (task, metadata, embedding) VALUES ")
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "($%d, $%d::jsonb, $%d)", 3*i+1, 3*i+2, 3*i+3)
		}
		return sb.String()
	}
	full := insertSQL(perStmt)

	// The rows are generated before the clock starts, so that the rate is
	// the server's and the driver's, not the generator's.
	type stmt struct {
		sql  string
		args []any
	}
	var stmts []stmt
	for loaded := 0; loaded < rows; {
		n := min(perStmt, rows-loaded)
		args := make([]any, 0, 3*n)
		for i := 0; i < n; i++ {
			task, meta, emb := d.row()
			args = append(args, task, meta, emb)
		}
		q := full
		if n != perStmt {
			q = insertSQL(n)
		}
		stmts = append(stmts, stmt{q, args})
		loaded += n
	}

	start := time.Now()
	loaded := 0
	for len(stmts) > 0 {
		b := &pgx.Batch{}
		for s := 0; s < perBatch && len(stmts) > 0; s++ {
			b.Queue(stmts[0].sql, stmts[0].args...)
			loaded += len(stmts[0].args) / 3
			stmts = stmts[1:]
		}
		if err := conn.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("insert after %d rows: %w", loaded, err)
		}
	}
	dur := time.Since(start)
	res.InsertSeconds = dur.Seconds()
	res.InsertRowsPerS = float64(rows) / dur.Seconds()
	fmt.Printf("insert: %d rows x %d-d in %.2fs = %.0f rows/s\n", rows, dim, dur.Seconds(), res.InsertRowsPerS)
	return nil
}

// scanFigures times scans full scans over the wire (all columns, binary) and
// scans server-side count(*) scans over the embedding column, printing the
// median rates; every scan must see rows rows.
func scanFigures(ctx context.Context, conn *pgx.Conn, table string, rows, scans int, res *loadResult) error {
	if scans <= 0 {
		return nil
	}
	var durs []time.Duration
	for s := 0; s < scans; s++ {
		start := time.Now()
		r, err := conn.Query(ctx, "SELECT id, task, metadata, embedding FROM "+table)
		if err != nil {
			return err
		}
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil {
			return err
		}
		if n != rows {
			return fmt.Errorf("scan returned %d rows, want %d", n, rows)
		}
		durs = append(durs, time.Since(start))
	}
	med := median(durs)
	res.WireScanRowsPS = float64(rows) / med.Seconds()
	fmt.Printf("full scan over the wire (binary, all columns): median %.3fs of %d = %.0f rows/s\n", med.Seconds(), scans, res.WireScanRowsPS)

	durs = durs[:0]
	for s := 0; s < scans; s++ {
		start := time.Now()
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE embedding IS NOT NULL").Scan(&n); err != nil {
			return err
		}
		if n != int64(rows) {
			return fmt.Errorf("count(*) over the embedding column = %d, want %d", n, rows)
		}
		durs = append(durs, time.Since(start))
	}
	med = median(durs)
	res.CountScanRowsPS = float64(rows) / med.Seconds()
	fmt.Printf("server-side scan (count over embedding column): median %.3fs = %.0f rows/s\n", med.Seconds(), res.CountScanRowsPS)
	return nil
}

// median returns the median of durs (sorting it).
func median(durs []time.Duration) time.Duration {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	return durs[len(durs)/2]
}
