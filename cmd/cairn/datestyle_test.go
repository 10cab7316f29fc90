package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDateStyleCopyAndParameters checks the text that enters and leaves
// a session outside queries' result rows against PostgreSQL 15's: COPY
// FROM reads ambiguous dates in the session's DateStyle field order, COPY
// TO (text and CSV) writes dates, timestamps and floats in its DateStyle
// and extra_float_digits, and a text-format Bind parameter is read in the
// field order too.
func TestDateStyleCopyAndParameters(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	pg := conn.PgConn()
	mustExec(t, conn, `SET DateStyle = 'SQL, DMY'`)
	mustExec(t, conn, `SET extra_float_digits = -3`)
	mustExec(t, conn, `SET TimeZone = 'Asia/Tokyo'`)
	mustExec(t, conn, `CREATE TABLE c (d date, ts timestamptz, f float8, r real[])`)
	in := "02/01/2024\t03/04/2024 05:06:07\t0.1\t{1.5,0.333333333333}\n" +
		"31.12.2023\t31/12/2023 23:59:59.5+02\t123456789.123\t\\N\n"
	if _, err := pg.CopyFrom(ctx, strings.NewReader(in), `COPY c FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	copyOut := func(sql string) string {
		t.Helper()
		var b bytes.Buffer
		if _, err := pg.CopyTo(ctx, &b, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return b.String()
	}
	// PostgreSQL 15's answers.
	for _, c := range []struct{ sql, want string }{
		{`COPY c TO STDOUT`, "02/01/2024\t03/04/2024 05:06:07 JST\t0.1\t{1.5,0.333}\n" +
			"31/12/2023\t01/01/2024 06:59:59.5 JST\t123456789.123\t\\N\n"},
		{`COPY c TO STDOUT (FORMAT csv, HEADER)`, "d,ts,f,r\n" +
			"02/01/2024,03/04/2024 05:06:07 JST,0.1,\"{1.5,0.333}\"\n" +
			"31/12/2023,01/01/2024 06:59:59.5 JST,123456789.123,\n"},
	} {
		if got := copyOut(c.sql); got != c.want {
			t.Errorf("%s:\n%s\nwant (PostgreSQL):\n%s", c.sql, got, c.want)
		}
	}
	mustExec(t, conn, `SET DateStyle = 'Postgres, MDY'`)
	mustExec(t, conn, `SET extra_float_digits = 0`)
	for _, c := range []struct{ sql, want string }{
		{`COPY c TO STDOUT (FORMAT csv)`, "01-02-2024,Wed Apr 03 05:06:07 2024 JST,0.1,\"{1.5,0.333333}\"\n" +
			"12-31-2023,Mon Jan 01 06:59:59.5 2024 JST,123456789.123,\n"},
		{`COPY (SELECT d, f / 3 FROM c) TO STDOUT`, "01-02-2024\t0.0333333333333333\n12-31-2023\t41152263.041\n"},
	} {
		if got := copyOut(c.sql); got != c.want {
			t.Errorf("%s:\n%s\nwant (PostgreSQL):\n%s", c.sql, got, c.want)
		}
	}

	// A text-format parameter of type date, under each field order.
	const dateOID = 1082
	for _, c := range []struct{ style, want string }{
		{"ISO, MDY", "2024-03-04"},
		{"SQL, DMY", "2024-04-03"},
	} {
		mustExec(t, conn, `SET DateStyle = '`+c.style+`'`)
		res := pg.ExecParams(ctx, `SELECT to_char($1, 'YYYY-MM-DD')`, [][]byte{[]byte("03/04/2024")}, []uint32{dateOID}, []int16{0}, []int16{0}).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", c.style, res.Err)
		}
		if got := string(res.Rows[0][0]); got != c.want {
			t.Errorf("'03/04/2024' as a date parameter under %s: %s, want %s", c.style, got, c.want)
		}
	}
}

// TestDateStyleErrorDetails checks that the values a constraint error's
// detail shows print as the session prints them (PostgreSQL 15's details).
func TestDateStyleErrorDetails(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	for _, sql := range []string{
		`SET DateStyle = 'SQL, DMY'`, `SET extra_float_digits = -3`, `SET TimeZone = 'Asia/Tokyo'`,
		`CREATE TABLE k1 (d date PRIMARY KEY)`,
		`CREATE TABLE k2 (d date REFERENCES k1, ts timestamptz, f float8 CHECK (f > 0))`,
	} {
		mustExec(t, conn, sql)
	}
	for _, c := range []struct{ sql, detail string }{
		{`INSERT INTO k2 VALUES (NULL, '2024-01-02 03:04:05+00', -0.1)`, `Failing row contains (null, 02/01/2024 12:04:05 JST, -0.1).`},
		{`INSERT INTO k2 VALUES ('02/01/2024', '2024-01-02 03:04:05+00', 1)`, `Key (d)=(02/01/2024) is not present in table "k1".`},
	} {
		_, err := conn.Exec(ctx, c.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Detail != c.detail {
			t.Errorf("%s: %v (detail %q), want the detail %q", c.sql, err, detailOf(pe), c.detail)
		}
	}
}

func detailOf(pe *pgconn.PgError) string {
	if pe == nil {
		return ""
	}
	return pe.Detail
}
