package main

import (
	"context"
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
