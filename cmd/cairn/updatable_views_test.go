package main

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestUpdatableViewErrors: the errors of writes through views carry
// PostgreSQL 15's DETAIL and HINT (which the logic tests do not compare),
// checked with psql's VERBOSITY verbose against it.
func TestUpdatableViewErrors(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	conn := srv.connect(t)
	mustExec(t, conn, `CREATE TABLE t (a int PRIMARY KEY, b text DEFAULT 'dflt', c int)`)
	mustExec(t, conn, `CREATE VIEW vg AS SELECT a, count(*) FROM t GROUP BY a`)
	mustExec(t, conn, `CREATE VIEW vc AS SELECT a, b, c + 1 AS c1 FROM t WHERE a > 0`)
	mustExec(t, conn, `CREATE VIEW vv AS SELECT a AS x, c1 FROM vc WHERE a < 100 WITH CHECK OPTION`)
	mustExec(t, conn, `CREATE VIEW vnocol AS SELECT a + 1 AS x FROM t`)
	for _, c := range []struct{ sql, code, msg, detail, hint string }{
		{`INSERT INTO vg VALUES (1, 1)`, "55000", `cannot insert into view "vg"`,
			"Views containing GROUP BY are not automatically updatable.",
			"To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule."},
		{`UPDATE vg SET a = 1`, "55000", `cannot update view "vg"`,
			"Views containing GROUP BY are not automatically updatable.",
			"To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule."},
		{`DELETE FROM vg`, "55000", `cannot delete from view "vg"`,
			"Views containing GROUP BY are not automatically updatable.",
			"To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule."},
		{`INSERT INTO vc VALUES (1, 'x', 3)`, "0A000", `cannot insert into column "c1" of view "vc"`,
			"View columns that are not columns of their base relation are not updatable.", ""},
		{`UPDATE vc SET c1 = 3`, "0A000", `cannot update column "c1" of view "vc"`,
			"View columns that are not columns of their base relation are not updatable.", ""},
		{`INSERT INTO vv (x) VALUES (200)`, "44000", `new row violates check option for view "vv"`,
			"Failing row contains (200, dflt, null).", ""},
		{`INSERT INTO vv (x) VALUES (-5)`, "44000", `new row violates check option for view "vc"`,
			"Failing row contains (-5, dflt, null).", ""},
		{`INSERT INTO vnocol VALUES (1)`, "55000", `cannot insert into view "vnocol"`,
			"Views that have no updatable columns are not automatically updatable.",
			"To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule."},
		{`CREATE VIEW vchk AS SELECT sum(a) FROM t WITH CHECK OPTION`, "0A000", "WITH CHECK OPTION is supported only on automatically updatable views",
			"", "Views that return aggregate functions are not automatically updatable."},
	} {
		_, err := conn.Exec(ctx, c.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if pe.Code != c.code || pe.Message != c.msg || pe.Detail != c.detail || pe.Hint != c.hint {
			t.Errorf("%s:\n got %s %q detail %q hint %q\nwant %s %q detail %q hint %q", c.sql, pe.Code, pe.Message, pe.Detail, pe.Hint, c.code, c.msg, c.detail, c.hint)
		}
	}
}

// TestUpdatableViewPrepared: writes through a view take parameters, as
// prepared statements (pgx's extended protocol) send them.
func TestUpdatableViewPrepared(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, "")
	conn := srv.connect(t)
	mustExec(t, conn, `CREATE TABLE t (a int PRIMARY KEY, b text DEFAULT 'dflt', c int)`)
	mustExec(t, conn, `CREATE VIEW v (k, label) AS SELECT a, b FROM t WHERE a < $$100$$::int`)
	for i := 1; i <= 3; i++ {
		var label string
		if err := conn.QueryRow(ctx, `INSERT INTO v (k) VALUES ($1) RETURNING label`, i).Scan(&label); err != nil || label != "dflt" {
			t.Fatalf("insert %d: %q %v", i, label, err)
		}
	}
	tag, err := conn.Exec(ctx, `UPDATE v SET label = $1 WHERE k >= $2`, "set", 2)
	if err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("update: %v %v", tag, err)
	}
	if tag, err = conn.Exec(ctx, `DELETE FROM v WHERE label = $1`, "set"); err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("delete: %v %v", tag, err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM t WHERE b = 'dflt'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("left: %d %v", n, err)
	}
}
