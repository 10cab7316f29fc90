package main

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestTypesRoundTrip sends every column type as a pgx parameter (binary
// where pgx prefers it), reads it back in binary and in text, and checks
// the values survive exactly, NULLs included.
func TestTypesRoundTrip(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE ty (id int PRIMARY KEY, b bool, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
		n numeric, t text, vc varchar(10), by bytea, u uuid, j json, jb jsonb, d date, ts timestamp, tz timestamptz,
		e float4[], e2 float4[][], ia int[], ta text[], i8a bigint[], f8a float8[], ba bool[])`)

	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	big := make([]float32, 4096)
	for i := range big {
		big[i] = float32(math.Sin(float64(i))) * 1e3
	}
	var num pgtype.Numeric
	if err := num.Scan("12345678901234567890.123456789"); err != nil {
		t.Fatal(err)
	}
	uuid := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	row := []any{1, true, int16(-32768), int32(2147483647), int64(-9223372036854775808), float32(1.5), math.Pi,
		num, "héllo", "abc", []byte{0, 1, 0xfe, 0xff}, uuid, `{"a": [1, 2]}`, map[string]any{"b": 1.5, "a": "x"},
		time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), ts, ts.Add(-2 * time.Hour),
		big, [][]float32{{1, 2}, {3, 4}}, []int32{1, 2, 3}, []string{"a b", "", `q"uote`}, []int64{1 << 40},
		[]float64{0.1, -2}, []bool{true, false}}
	_, err := conn.Exec(ctx, `INSERT INTO ty VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`, row...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `INSERT INTO ty (id) VALUES ($1)`, 2)
	if err != nil {
		t.Fatal(err)
	}

	var (
		id         int
		b          bool
		i2         int16
		i4         int32
		i8         int64
		f4         float32
		f8         float64
		n          pgtype.Numeric
		tx, vc     string
		by         []byte
		u          [16]byte
		j          string
		jb         map[string]any
		d, tsv, tz time.Time
		e          []float32
		e2         [][]float32
		ia         []int32
		ta         []string
		i8a        []int64
		f8a        []float64
		ba         []bool
	)
	err = conn.QueryRow(ctx, `SELECT * FROM ty WHERE id = 1`).Scan(&id, &b, &i2, &i4, &i8, &f4, &f8, &n, &tx, &vc, &by, &u, &j, &jb, &d, &tsv, &tz, &e, &e2, &ia, &ta, &i8a, &f8a, &ba)
	if err != nil {
		t.Fatal(err)
	}
	numText, _ := n.Value()
	checks := []struct {
		name      string
		got, want any
	}{
		{"bool", b, true}, {"int2", i2, int16(-32768)}, {"int4", i4, int32(2147483647)}, {"int8", i8, int64(-9223372036854775808)},
		{"float4", f4, float32(1.5)}, {"float8", f8, math.Pi}, {"numeric", numText, "12345678901234567890.123456789"},
		{"text", tx, "héllo"}, {"varchar", vc, "abc"}, {"bytea", by, []byte{0, 1, 0xfe, 0xff}}, {"uuid", u, uuid},
		{"json", j, `{"a": [1, 2]}`}, {"jsonb", jb, map[string]any{"a": "x", "b": 1.5}},
		{"date", d, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)}, {"timestamp", tsv, ts}, {"timestamptz", tz.UTC(), ts.Add(-2 * time.Hour)},
		{"float4[]", e, big}, {"float4[][]", e2, [][]float32{{1, 2}, {3, 4}}}, {"int[]", ia, []int32{1, 2, 3}},
		{"text[]", ta, []string{"a b", "", `q"uote`}}, {"bigint[]", i8a, []int64{1 << 40}}, {"float8[]", f8a, []float64{0.1, -2}},
		{"bool[]", ba, []bool{true, false}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}

	// NULL in every column, in binary and in text results.
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		rows, err := conn.Query(ctx, `SELECT * FROM ty WHERE id = 2`, mode)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals[1:] {
			if v != nil {
				t.Errorf("mode %v column %d: got %v, want NULL", mode, i+1, v)
			}
		}
	}

	// Text results (simple protocol) parse back to the same values.
	var e2t [][]float32
	var tzt time.Time
	var nt pgtype.Numeric
	if err := conn.QueryRow(ctx, `SELECT e2, tz, n FROM ty WHERE id = 1`, pgx.QueryExecModeSimpleProtocol).Scan(&e2t, &tzt, &nt); err != nil {
		t.Fatal(err)
	}
	ntext, _ := nt.Value()
	if !reflect.DeepEqual(e2t, [][]float32{{1, 2}, {3, 4}}) || !tzt.Equal(ts.Add(-2*time.Hour)) || ntext != "12345678901234567890.123456789" {
		t.Errorf("text results: %v %v %v", e2t, tzt, ntext)
	}
}

// TestTwoDimensionalArrayParameter binds 2-D arrays to int[] parameters,
// in text and in binary, as PostgreSQL 15 takes them: int[] holds arrays
// of any dimensions, so $1::int[] returns the value whole, array_dims and
// subscripts see its dimensions, and a prepared statement described for
// a 1-D value runs with a 2-D one and back. cairn's array types carry
// their dimensions (the binder makes '{{1,2}}'::int[] 2-D), so the
// portal is bound for its value's; storing it in an int[] column, whose
// rows all have its declared dimensions, stays an error.
func TestTwoDimensionalArrayParameter(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	const q = "SELECT $1::int[]::text, array_dims($1::int[]), ($1::int[])[2][1]"
	for _, tc := range []struct {
		name  string
		arg   any
		modes []any
		want  []string
	}{
		{"text", "{{1,2},{3,4}}", []any{pgx.QueryExecModeExec}, []string{"{{1,2},{3,4}}", "[1:2][1:2]", "3"}},
		{"binary", [][]int32{{1, 2}, {3, 4}}, nil, []string{"{{1,2},{3,4}}", "[1:2][1:2]", "3"}},
		{"binary, cached statement, 1-D", []int32{5, 6}, nil, []string{"{5,6}", "[1:2]", ""}},
		{"three dimensions", "{{{1},{2}},{{3},{4}}}", []any{pgx.QueryExecModeExec}, []string{"{{{1},{2}},{{3},{4}}}", "[1:2][1:2][1:1]", ""}},
	} {
		var arr, dims string
		var elem *int32
		if err := conn.QueryRow(ctx, q, append(tc.modes, tc.arg)...).Scan(&arr, &dims, &elem); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := []string{arr, dims, ""}
		if elem != nil {
			got[2] = fmt.Sprint(*elem)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	var back [][]int32
	if err := conn.QueryRow(ctx, "SELECT $1::int[]", [][]int32{{1, 2}, {3, 4}}).Scan(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, [][]int32{{1, 2}, {3, 4}}) {
		t.Errorf("binary result: %v", back)
	}

	mustExec(t, conn, "CREATE TABLE grid (a int[][]); CREATE TABLE line (a int[])")
	mustExec(t, conn, "PREPARE put(int[]) AS INSERT INTO grid VALUES ($1)")
	mustExec(t, conn, "EXECUTE put('{{1,2},{3,4}}')")
	var dims string
	if err := conn.QueryRow(ctx, "SELECT array_dims(a::int[]) FROM grid").Scan(&dims); err != nil || dims != "[1:2][1:2]" {
		t.Errorf("2-D column cast to int[]: %q, %v", dims, err)
	}
	_, err := conn.Exec(ctx, "INSERT INTO line VALUES ($1)", [][]int32{{1, 2}, {3, 4}})
	if sqlState(err) != "2202E" {
		t.Errorf("2-D value into an int[] column: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM grid").Scan(&n); err != nil || n != 1 {
		t.Errorf("session after the error: %d, %v", n, err)
	}
}
