package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/types"
)

// panicRow is the argument on which cairn_test_panic panics.
const panicRow = 4242

// Functions that exist only in this test binary, to provoke a real Go
// panic inside the server wherever a statement evaluates them: in the
// session's goroutine, in the partitions of a parallel top-k, in the
// hybrid search's similarity workers. Both are immutable, so nothing
// keeps them out of parallel plans.
func init() {
	functions.Register(
		// cairn_test_panic(id) is true, except that it panics for panicRow.
		&functions.Overload{Name: "cairn_test_panic", Args: []types.T{types.Int8T}, Result: types.BoolT,
			Eval: func(_ *functions.Context, a []any) (any, error) {
				if a[0].(int64) == panicRow {
					panic("cairn_test_panic: row 4242")
				}
				return true, nil
			}},
		// cairn_test_panic_plan(bigint) panics when a statement calling it
		// is bound (the binder asks ResultFn for its result type), so in
		// Parse or Bind, before anything runs; cairn_test_panic_plan(text)
		// binds and returns its argument.
		&functions.Overload{Name: "cairn_test_panic_plan", Args: []types.T{types.Int8T},
			ResultFn: func([]types.T) types.T { panic("cairn_test_panic_plan: bound") },
			Eval:     func(_ *functions.Context, a []any) (any, error) { return a[0], nil }},
		&functions.Overload{Name: "cairn_test_panic_plan", Args: []types.T{types.TextT}, Result: types.TextT,
			Eval: func(_ *functions.Context, a []any) (any, error) { return a[0], nil }},
		// cairn_test_panic_vec(embedding) always panics.
		&functions.Overload{Name: "cairn_test_panic_vec", Args: []types.T{types.ArrayOf(types.Float4T, 1)}, Result: types.ArrayOf(types.Float4T, 1),
			Eval: func(*functions.Context, []any) (any, error) {
				panic("cairn_test_panic_vec")
			}},
	)
}

// wantInternalError checks that err is the XX000 error of a recovered
// panic.
func wantInternalError(t *testing.T, what string, err error) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "XX000" || !strings.Contains(pe.Message, "internal error: cairn_test_panic") {
		t.Fatalf("%s: got %v, want XX000 internal error", what, err)
	}
}

// wantAlive checks that conn still answers.
func wantAlive(t *testing.T, what string, conn *pgx.Conn) {
	t.Helper()
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("%s: session is gone after a panic: %v", what, err)
	}
}

// TestPanicFailsOnlyTheStatement provokes Go panics in every kind of
// goroutine a statement runs in and checks that each fails just that
// statement with XX000: the process survives, the session that hit it
// goes on, another session is untouched, and a data-modifying statement
// that panicked leaves no row locked or changed.
func TestPanicFailsOnlyTheStatement(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE big (id bigint, task text, embedding float4[])`)
	mustExec(t, a, `INSERT INTO big SELECT g, 'task ' || g, ARRAY[sin(g), cos(g), 1]::float4[] FROM generate_series(1, 40000) g`)
	mustExec(t, a, `CREATE TABLE small (id bigint PRIMARY KEY, v int)`)
	mustExec(t, a, `INSERT INTO small SELECT g, 0 FROM generate_series(4240, 4244) g`)

	const topK = `SELECT id FROM big WHERE cairn_test_panic(id) ORDER BY embedding <#> '{1,0,0}'::float4[] DESC LIMIT 3`
	cases := []struct{ name, sql string }{
		// 40000 rows: a parallel top-k, the panic in a partition's goroutine.
		{"parallel partition", topK},
		// The session's own goroutine.
		{"serial", `SELECT count(*) FROM small WHERE cairn_test_panic(id)`},
		// The hybrid search's similarity workers.
		{"hybrid workers", `SELECT id, (cairn_test_panic_vec(embedding), task)::deeplake_hybrid_record <#> deeplake_hybrid_record('{1,0,0}'::float4[], 'task', 0.5, 0.5) AS score FROM big ORDER BY score LIMIT 3`},
		// An UPDATE in its own transaction: rolled back, its row locks freed.
		{"update", `UPDATE small SET v = v + 1 WHERE cairn_test_panic(id)`},
		// A prepared statement over the extended protocol.
		{"extended", `SELECT id FROM small WHERE cairn_test_panic(id) AND id > $1`},
	}
	for _, c := range cases {
		var err error
		if strings.Contains(c.sql, "$1") {
			_, err = a.Exec(ctx, c.sql, 0)
		} else {
			_, err = a.Exec(ctx, c.sql)
		}
		wantInternalError(t, c.name, err)
		wantAlive(t, c.name, a)
		wantAlive(t, c.name+", other session", b)
	}

	// The UPDATE changed nothing and holds no lock: another session
	// updates the same rows at once.
	mustExec(t, b, `SET lock_timeout = '2s'`)
	mustExec(t, b, `UPDATE small SET v = v + 10 WHERE id <> $1`, panicRow)
	var sum int
	if err := a.QueryRow(ctx, `SELECT sum(v) FROM small`).Scan(&sum); err != nil || sum != 40 {
		t.Fatalf("sum(v) = %d, %v; want 40 (the panicked UPDATE must not count)", sum, err)
	}

	// Inside a transaction block the panic aborts the transaction like
	// any error; ROLLBACK ends it and the session carries on.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `INSERT INTO small VALUES (1, 1)`)
	_, err := a.Exec(ctx, `SELECT count(*) FROM small WHERE cairn_test_panic(id)`)
	wantInternalError(t, "in a transaction", err)
	var pe *pgconn.PgError
	if _, err := a.Exec(ctx, `SELECT 1`); !errors.As(err, &pe) || pe.Code != "25P02" {
		t.Fatalf("after a panic in a transaction: %v, want 25P02", err)
	}
	mustExec(t, a, `ROLLBACK`)
	var n int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM small WHERE id = 1`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("row of the rolled-back transaction: %d, %v", n, err)
	}

	// The parallel plan still works on rows that do not panic.
	var ids []int64
	rows, err := a.Query(ctx, `SELECT id FROM big WHERE id <> $1 AND cairn_test_panic(id) ORDER BY embedding <#> '{1,0,0}'::float4[] DESC LIMIT 3`, panicRow)
	if err == nil {
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	if err != nil || len(ids) != 3 {
		t.Fatalf("top-k after the panics: %v, %v", ids, err)
	}

	// A fresh connection is served too.
	c := ts.connect(t)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Ping(cctx); err != nil {
		t.Fatal(err)
	}
}

// TestPanicWhileBindingFailsOnlyTheMessage provokes Go panics while a
// statement is parsed and bound (cairn_test_panic_plan's result type),
// over the simple and the extended protocol, outside and inside a
// transaction block: each fails its message with XX000 and the same
// connection goes on, a transaction block it hit being aborted as after
// any error.
func TestPanicWhileBindingFailsOnlyTheMessage(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	simple := pgx.QueryExecModeSimpleProtocol
	mustExec(t, a, `CREATE TABLE notes (v text)`)
	mustExec(t, a, `INSERT INTO notes VALUES ('kept')`)
	const panics = `SELECT cairn_test_panic_plan(1::bigint)`
	count := func(what string) int {
		t.Helper()
		var n int
		if err := a.QueryRow(ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil {
			t.Fatalf("%s: count: %v", what, err)
		}
		return n
	}

	// Outside a transaction block: a simple Query, pgx's Parse/Describe
	// (the panic in Parse), a named Prepare.
	_, err := a.Exec(ctx, panics, simple)
	wantInternalError(t, "simple query", err)
	wantAlive(t, "simple query", a)
	_, err = a.Exec(ctx, panics)
	wantInternalError(t, "extended protocol", err)
	wantAlive(t, "extended protocol", a)
	_, err = a.Prepare(ctx, "bad", panics)
	wantInternalError(t, "named prepare", err)
	if _, err := a.Exec(ctx, `EXECUTE bad`, simple); sqlState(err) != "26000" {
		t.Fatalf("statement whose Parse panicked: %v, want 26000 (never stored)", err)
	}
	wantAlive(t, "named prepare", a)
	wantAlive(t, "other session", b)

	// A panic in Bind: prepared while notes.v is text, bound after it
	// became bigint, which the binder resolves to the overload that
	// panics.
	if _, err := a.Prepare(ctx, "late", `SELECT cairn_test_panic_plan(v) FROM notes`); err != nil {
		t.Fatal(err)
	}
	mustExec(t, b, `DROP TABLE notes`)
	mustExec(t, b, `CREATE TABLE notes (v bigint)`)
	_, err = a.Exec(ctx, "late")
	wantInternalError(t, "bind", err)
	wantAlive(t, "bind", a)

	// Several statements in one Query: the panic binding the second rolls
	// back the first, as any error does.
	_, err = a.Exec(ctx, `INSERT INTO notes VALUES (1); `+panics, simple)
	wantInternalError(t, "second statement of a query", err)
	if n := count("second statement of a query"); n != 0 {
		t.Fatalf("rows after the failed query: %d, want 0 (rolled back)", n)
	}

	// Inside a transaction block, over either protocol: the block is
	// aborted (25P02 until ROLLBACK), then the session carries on and
	// what the block did is gone.
	for _, mode := range []pgx.QueryExecMode{simple, pgx.QueryExecModeCacheDescribe} {
		what := "in a transaction block, " + mode.String()
		mustExec(t, a, `BEGIN`)
		mustExec(t, a, `INSERT INTO notes VALUES (2)`)
		_, err = a.Exec(ctx, panics, mode)
		wantInternalError(t, what, err)
		if _, err := a.Exec(ctx, `SELECT 1`, mode); sqlState(err) != "25P02" {
			t.Fatalf("%s: next statement: %v, want 25P02", what, err)
		}
		mustExec(t, a, `ROLLBACK`)
		wantAlive(t, what, a)
		if n := count(what); n != 0 {
			t.Fatalf("%s: rows after ROLLBACK: %d, want 0", what, n)
		}
	}
	wantAlive(t, "other session", b)
}
