package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// keyRows is COPY text data of rows (id, u, v) for the given ids; u is
// -id, or NULL for every third row.
func keyRows(ids []int) string {
	var b strings.Builder
	for i, id := range ids {
		u := fmt.Sprint(-id)
		if i%3 == 1 {
			u = `\N`
		}
		fmt.Fprintf(&b, "%d\t%s\trow %d\n", id, u, id)
	}
	return b.String()
}

// seq returns from, from+1, ..., to.
func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestCopyDuplicateKeys loads COPYs of several thousand rows (several
// chunks of the parallel parse) into a table with a bigint primary key
// and an integer unique column, keys a server checks by value: a
// duplicate at the first, a middle or the last row — of a committed row
// or of an earlier row of the same COPY, in ascending, descending and
// random order, in either column — fails the whole COPY with 23505 and
// the key, and leaves nothing behind; NULLs never conflict.
func TestCopyDuplicateKeys(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE k (id bigint PRIMARY KEY, u int UNIQUE, v text)`)
	mustExec(t, conn, `INSERT INTO k VALUES (100000, -100000, 'committed'), (100001, NULL, 'committed')`)
	const n = 6000
	up := seq(1, n)
	down := seq(1, n)
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		down[i], down[j] = down[j], down[i]
	}
	shuffled := seq(1, n)
	rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	with := func(ids []int, at, id int) []int {
		out := append([]int(nil), ids...)
		out[at] = id
		return out
	}
	pk := `duplicate key value violates unique constraint "k_pkey"`
	for _, c := range []struct {
		name   string
		data   string
		msg    string
		detail string
	}{
		{"first row repeats a committed key", keyRows(with(up, 0, 100000)), pk, "Key (id)=(100000) already exists."},
		{"middle row repeats a committed key", keyRows(with(up, n/2, 100001)), pk, "Key (id)=(100001) already exists."},
		{"last row repeats a committed key", keyRows(with(down, n-1, 100000)), pk, "Key (id)=(100000) already exists."},
		{"last row repeats the first", keyRows(with(up, n-1, 1)), pk, "Key (id)=(1) already exists."},
		{"middle row repeats one of an earlier chunk", keyRows(with(down, n/2, n-10)), pk, fmt.Sprintf("Key (id)=(%d) already exists.", n-10)},
		{"random order, the last row repeats", keyRows(with(shuffled, n-1, shuffled[n/3])), pk, fmt.Sprintf("Key (id)=(%d) already exists.", shuffled[n/3])},
		{"the next row of a chunk repeats", keyRows(with(up, 2049, 2049)), pk, "Key (id)=(2049) already exists."},
		{"unique column, last row", keyRows(up) + "200000\t-6\tx\n", `duplicate key value violates unique constraint "k_u_key"`, "Key (u)=(-6) already exists."},
		{"unique column, committed key", "200000\t-100000\tx\n" + keyRows(up), `duplicate key value violates unique constraint "k_u_key"`, "Key (u)=(-100000) already exists."},
	} {
		pe := copyErr(conn, `COPY k FROM STDIN`, c.data)
		if pe == nil || pe.Code != "23505" || pe.Message != c.msg || pe.Detail != c.detail {
			t.Errorf("%s: got %+v, want 23505 %s (%s)", c.name, pe, c.msg, c.detail)
		}
		var rows int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM k`).Scan(&rows); err != nil || rows != 2 {
			t.Fatalf("%s: %d rows after the error, %v", c.name, rows, err)
		}
	}
	for _, ids := range [][]int{shuffled, down} {
		mustExec(t, conn, `DELETE FROM k WHERE id <= $1`, n)
		if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(keyRows(ids)), `COPY k FROM STDIN`); err != nil {
			t.Fatal(err)
		}
		var rows, nulls int
		if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE u IS NULL) FROM k`).Scan(&rows, &nulls); err != nil ||
			rows != n+2 || nulls != n/3+1 {
			t.Fatalf("%d rows, %d NULLs, %v; want %d, %d", rows, nulls, err, n+2, n/3+1)
		}
	}
}

// TestCopyKeyLocks runs a COPY whose keys another transaction inserted and
// has not committed: the COPY waits for it, fails with 23505 if it
// commits and goes through if it rolls back; a transaction inserting a key
// an uncommitted COPY loaded waits for the COPY's transaction alike.
func TestCopyKeyLocks(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	copier, other := ts.connect(t), ts.connect(t)
	mustExec(t, copier, `CREATE TABLE kl (id bigint PRIMARY KEY, u int UNIQUE, v text)`)
	const n = 5000
	data := keyRows(seq(1, n))
	copyAsync := func() chan error {
		done := make(chan error, 1)
		go func() {
			_, err := copier.PgConn().CopyFrom(ctx, strings.NewReader(data), `COPY kl FROM STDIN`)
			done <- err
		}()
		return done
	}
	waits := func(done chan error, what string) {
		t.Helper()
		select {
		case err := <-done:
			t.Fatalf("%s did not wait: %v", what, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
	for _, commit := range []bool{true, false} {
		mustExec(t, other, `BEGIN`)
		mustExec(t, other, `INSERT INTO kl VALUES (4000, NULL, 'other')`)
		done := copyAsync()
		waits(done, "a COPY of a key an open transaction inserted")
		if commit {
			mustExec(t, other, `COMMIT`)
			var pe *pgconn.PgError
			if err := <-done; !asPgError(err, &pe) || pe.Code != "23505" || pe.Detail != "Key (id)=(4000) already exists." {
				t.Fatalf("COPY after the other committed: %v", err)
			}
			mustExec(t, other, `DELETE FROM kl`)
			continue
		}
		mustExec(t, other, `ROLLBACK`)
		if err := <-done; err != nil {
			t.Fatalf("COPY after the other rolled back: %v", err)
		}
	}

	// The other way round: the COPY's transaction holds the keys.
	mustExec(t, copier, `DELETE FROM kl`)
	mustExec(t, copier, `BEGIN`)
	if _, err := copier.PgConn().CopyFrom(ctx, strings.NewReader(data), `COPY kl FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO kl VALUES ($1, NULL, 'batch'), ($2, NULL, 'batch')`, n+1, n+2)
		b.Queue(`INSERT INTO kl VALUES ($1, $2, 'batch'), ($3, NULL, 'batch')`, n+3, -(n + 3), 2500)
		done <- other.SendBatch(ctx, b).Close()
	}()
	waits(done, "an insert of a key an open COPY loaded")
	mustExec(t, copier, `COMMIT`)
	var pe *pgconn.PgError
	if err := <-done; !asPgError(err, &pe) || pe.Code != "23505" || pe.Detail != "Key (id)=(2500) already exists." {
		t.Fatalf("insert after the COPY committed: %v", err)
	}
	var rows int
	if err := other.QueryRow(ctx, `SELECT count(*) FROM kl`).Scan(&rows); err != nil || rows != n {
		t.Fatalf("%d rows, %v; want %d (the failed batch left none)", rows, err, n)
	}
}

// TestInsertBatchDuplicateKeys sends multi-row INSERTs of bigint keys
// with binary parameters in a pgx batch (one implicit transaction): a key
// repeated within a statement, across its statements or of a committed
// row fails the batch with the key and leaves none of its rows.
func TestInsertBatchDuplicateKeys(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE ib (id bigint PRIMARY KEY, v text)`)
	mustExec(t, conn, `INSERT INTO ib VALUES (7, 'committed')`)
	const per = 100
	stmt := `INSERT INTO ib VALUES ` + func() string {
		var vals []string
		for i := range per {
			vals = append(vals, fmt.Sprintf("($%d, $%d)", 2*i+1, 2*i+2))
		}
		return strings.Join(vals, ", ")
	}()
	args := func(ids []int) []any {
		var out []any
		for _, id := range ids {
			out = append(out, int64(id), fmt.Sprint("row ", id))
		}
		return out
	}
	for _, c := range []struct {
		name   string
		stmts  [][]int
		detail string
	}{
		{"within a statement", [][]int{seq(1000, 1000+per-1), append(seq(2000, 2000+per-2), 2050)}, "Key (id)=(2050) already exists."},
		{"across statements", [][]int{seq(1000, 1000+per-1), seq(1050, 1050+per-1)}, "Key (id)=(1050) already exists."},
		{"of a committed row", [][]int{seq(1000, 1000+per-1), append([]int{7}, seq(2000, 2000+per-2)...)}, "Key (id)=(7) already exists."},
	} {
		b := &pgx.Batch{}
		for _, ids := range c.stmts {
			b.Queue(stmt, args(ids)...)
		}
		var pe *pgconn.PgError
		if err := conn.SendBatch(ctx, b).Close(); !asPgError(err, &pe) || pe.Code != "23505" || pe.Detail != c.detail {
			t.Errorf("%s: %v, want 23505 (%s)", c.name, err, c.detail)
		}
		var rows int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM ib`).Scan(&rows); err != nil || rows != 1 {
			t.Fatalf("%s: %d rows after the error, %v", c.name, rows, err)
		}
	}
	b := &pgx.Batch{}
	b.Queue(stmt, args(seq(1000, 1000+per-1))...)
	b.Queue(stmt, args(seq(2000, 2000+per-1))...)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
}

// asPgError reports whether err is a PostgreSQL error, setting *pe.
func asPgError(err error, pe **pgconn.PgError) bool {
	return errors.As(err, pe)
}
