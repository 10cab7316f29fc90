package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// DB runs SQL for a Store. The store sends one statement at a time with
// its parameters as $1...; user text only ever travels as a parameter.
// Implementations must be safe for the sequential use of one Store; the
// HTTP endpoint gives each request a DB of its own.
type DB interface {
	// Query runs one statement with args, which are nil, string, bool,
	// int64, float64, []string, []int64 or time.Time. A statement that
	// returns rows gives them in Rows; one that does not gives the rows
	// it affected in Affected. When readOnly is set the statement runs in
	// a read-only transaction of its own (sql_query).
	Query(ctx context.Context, readOnly bool, sql string, args ...any) (*Rows, error)
}

// Rows is a statement's result: each value is JSON (numbers, strings,
// booleans, arrays, objects; timestamps as RFC 3339 strings).
type Rows struct {
	Columns  []string
	Values   [][]json.RawMessage
	Affected int64
}

// scan decodes the values of row into dst, one pointer per column.
func scan(row []json.RawMessage, dst ...any) error {
	if len(row) != len(dst) {
		return fmt.Errorf("row has %d columns, expected %d", len(row), len(dst))
	}
	for i, v := range row {
		if t, ok := dst[i].(*time.Time); ok {
			if err := scanTime(v, t); err != nil {
				return fmt.Errorf("column %d: %w", i+1, err)
			}
			continue
		}
		if err := json.Unmarshal(v, dst[i]); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

// scanTime decodes a timestamp in RFC 3339 (pgx) or in PostgreSQL's
// output form (a session: 2026-01-02 15:04:05.123456+00).
func scanTime(v json.RawMessage, t *time.Time) error {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return err
	}
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999-07:00"} {
		if *t, err = time.Parse(layout, s); err == nil {
			return nil
		}
	}
	return err
}

// PgxDB is a DB over pgx connections to a running cairn server: what
// `cairn mcp` and the memory commands use. Conn is a *pgxpool.Pool where
// calls may come concurrently (MCP), or a *pgx.Conn.
type PgxDB struct {
	Conn interface {
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	}
}

// Query implements DB.
func (d PgxDB) Query(ctx context.Context, readOnly bool, sql string, args ...any) (*Rows, error) {
	if !readOnly {
		return collect(d.Conn.Query(ctx, sql, args...))
	}
	tx, err := d.Conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	// Nothing a read-only statement did needs keeping: roll back always
	// (a COMMIT the statement ran itself leaves nothing to roll back).
	defer tx.Rollback(context.WithoutCancel(ctx))
	return collect(tx.Query(ctx, sql, args...))
}

// collect reads all of rows as JSON values.
func collect(rows pgx.Rows, err error) (*Rows, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &Rows{}
	for _, f := range rows.FieldDescriptions() {
		out.Columns = append(out.Columns, f.Name)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]json.RawMessage, len(vals))
		for i, v := range vals {
			if row[i], err = json.Marshal(jsonValue(v)); err != nil {
				return nil, err
			}
		}
		out.Values = append(out.Values, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out.Affected = rows.CommandTag().RowsAffected()
	return out, nil
}

// jsonValue turns what pgx decodes into what encoding/json writes as the
// HTTP API would: timestamps in RFC 3339, numerics and UUIDs as text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case pgtype.Numeric:
		b, err := x.MarshalJSON()
		if err != nil {
			return nil
		}
		return json.RawMessage(b)
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}
