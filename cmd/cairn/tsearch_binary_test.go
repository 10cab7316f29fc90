package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTextSearchBinary reads tsvector and tsquery in the binary format
// (tsvector_send, tsquery_send) and sends them back as binary parameters
// (tsvector_recv, tsquery_recv). The expected bytes are what PostgreSQL
// 15 sends for the same values.
func TestTextSearchBinary(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	conn, err := pgconn.Connect(ctx, ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	want := []string{
		"00000003636174000002c0010003646f67000001000269742773000000",
		"0000000602040002010000726174000203020101000063617400010c0166617400",
		"00000000",
		"00000000",
	}
	rr := conn.ExecParams(ctx, `SELECT $$'cat':1A,3 'dog':2 'it''s'$$::tsvector, $$('fat':*AB | !'cat') <2> 'rat'$$::tsquery, ''::tsquery, ''::tsvector`,
		nil, nil, nil, []int16{1, 1, 1, 1})
	var got [][]byte
	for rr.NextRow() {
		for _, v := range rr.Values() {
			got = append(got, bytes.Clone(v))
		}
	}
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if hex.EncodeToString(got[i]) != want[i] {
			t.Errorf("value %d: got %x, want %s", i, got[i], want[i])
		}
	}

	// The binary values go back in as parameters and print as PostgreSQL
	// prints them.
	rr = conn.ExecParams(ctx, `SELECT $1::tsvector::text, $2::tsquery::text, $1::tsvector @@ $2::tsquery`,
		[][]byte{got[0], got[1]}, []uint32{3614, 3615}, []int16{1, 1}, []int16{0, 0, 0})
	var row []string
	for rr.NextRow() {
		for _, v := range rr.Values() {
			row = append(row, string(v))
		}
	}
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	wantRow := []string{`'cat':1A,3 'dog':2 'it''s'`, `( 'fat':*AB | !'cat' ) <2> 'rat'`, "f"}
	if len(row) != 3 || row[0] != wantRow[0] || row[1] != wantRow[1] || row[2] != wantRow[2] {
		t.Errorf("round trip: got %q, want %q", row, wantRow)
	}

	// Lexemes out of order are sorted; positions out of order are
	// refused, as PostgreSQL does (it says XX000; cairn's wire layer
	// reports a bind parameter's internal error as 22P03 with the
	// message as detail).
	rr = conn.ExecParams(ctx, `SELECT $1::tsvector`, [][]byte{{0, 0, 0, 2, 'b', 0, 0, 0, 'a', 0, 0, 0}}, []uint32{3614}, []int16{1}, nil)
	var sorted string
	for rr.NextRow() {
		sorted = string(rr.Values()[0])
	}
	if _, err := rr.Close(); err != nil || sorted != "'a' 'b'" {
		t.Errorf("misordered lexemes: got %q, %v; want 'a' 'b'", sorted, err)
	}
	rr = conn.ExecParams(ctx, `SELECT $1::tsvector`, [][]byte{{0, 0, 0, 1, 'b', 0, 0, 2, 0, 2, 0, 1}}, []uint32{3614}, []int16{1}, nil)
	for rr.NextRow() {
	}
	if _, err := rr.Close(); err == nil {
		t.Error("misordered positions: no error")
	} else if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "22P03" || pe.Detail != "position information is misordered" {
		t.Errorf("misordered positions: %v, want 22P03 with detail position information is misordered", err)
	}
}
