package main

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestFailingRowDetailClipped: the DETAIL "Failing row contains (...)" of
// a NOT NULL, CHECK or view check option violation shows each value cut
// to 64 bytes at a character's end, followed by "...", as PostgreSQL's
// ExecBuildSlotValueDescription does, so that a row with a document or an
// embedding does not make the error megabytes long; a duplicate key's
// DETAIL shows the key whole. The expected texts are PostgreSQL 15's.
func TestFailingRowDetailClipped(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE ck2 (a int NOT NULL, b text UNIQUE, c text CHECK (length(c) < 5), e real[])`)
	mustExec(t, conn, `INSERT INTO ck2 VALUES (1, repeat('é', 100), 'x')`)
	mustExec(t, conn, `CREATE VIEW ck2v AS SELECT * FROM ck2 WHERE length(c) < 3 WITH CHECK OPTION`)
	for _, c := range []struct{ stmt, detail string }{
		{`INSERT INTO ck2 VALUES (2, repeat('é', 100), 'x')`,
			`Key (b)=(éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé) already exists.`},
		{`INSERT INTO ck2 VALUES (NULL, repeat('ab', 100), repeat('z', 70))`,
			`Failing row contains (null, abababababababababababababababababababababababababababababababab..., zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz..., null).`},
		{`INSERT INTO ck2 VALUES (3, 'q', repeat('z', 64))`,
			`Failing row contains (3, q, zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz, null).`},
		{`INSERT INTO ck2 VALUES (3, 'q', repeat('z', 65))`,
			`Failing row contains (3, q, zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz..., null).`},
		{`INSERT INTO ck2 VALUES (3, 'q', repeat('é', 33))`,
			`Failing row contains (3, q, éééééééééééééééééééééééééééééééé..., null).`},
		{`INSERT INTO ck2 VALUES (3, 'q', 'a' || repeat('é', 33))`,
			`Failing row contains (3, q, aééééééééééééééééééééééééééééééé..., null).`},
		{`INSERT INTO ck2 (a, c, e) SELECT NULL, 'x', array_agg(g::real / 7) FROM generate_series(1, 384) g`,
			`Failing row contains (null, null, x, {0.14285715,0.2857143,0.42857143,0.5714286,0.71428573,0.85714287...).`},
		{`INSERT INTO ck2v VALUES (4, repeat('y', 80), 'abcd')`,
			`Failing row contains (4, yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy..., abcd, null).`},
	} {
		_, err := conn.Exec(ctx, c.stmt)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Detail != c.detail {
			t.Errorf("%s:\n got %v (detail %q)\nwant detail %q", c.stmt, err, detailOf(pe), c.detail)
		}
	}
}
