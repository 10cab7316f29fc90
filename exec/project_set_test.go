package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// seriesProjectSet is SELECT a, generate_series(1, a) over rows of a.
func seriesProjectSet(rows ...[]any) *sql.ProjectSet {
	in := intRows(1, rows...)
	srf := &sql.SRF{Name: "generate_series", Fn: functions.SetReturningFunc("generate_series"),
		Args: []sql.Expr{i64(1), ref(0, types.Int8T)}, Out: []sql.Col{col("generate_series", types.Int8T)}}
	return &sql.ProjectSet{Input: in, SRFs: []*sql.SRF{srf}, Out: []sql.Col{col("a", types.Int8T), col("generate_series", types.Int8T)}}
}

// TestProjectSetStreams checks that a select-list set-returning function
// yields its rows in batches of at most srfBatchRows as they are asked
// for, and stops when the statement is cancelled: SELECT
// generate_series(1, 300000000) used to box every value into one batch
// first (gigabytes, deaf to cancel requests and statement_timeout) and
// kept the server busy after its client had gone.
func TestProjectSetStreams(t *testing.T) {
	rt := testRuntime(t)
	op, err := Build(rt, seriesProjectSet(row(int64(1_000_000))))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 3; i++ {
		rec, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() != srfBatchRows {
			t.Fatalf("batch %d has %d rows, want %d", i, rec.NumRows(), srfBatchRows)
		}
	}
	cancel()
	if _, err := op.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", err)
	}
}

// TestProjectSetRows checks the rows across batch boundaries: each input
// row repeated for each value, none for a row whose series is empty.
func TestProjectSetRows(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	got := collect(t, rt, seriesProjectSet(row(int64(3)), row(int64(0)), row(int64(srfBatchRows+1)), row(int64(2))))
	var want [][2]int64
	for _, a := range []int64{3, 0, srfBatchRows + 1, 2} {
		for v := int64(1); v <= a; v++ {
			want = append(want, [2]int64{a, v})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r[0].(int64) != want[i][0] || r[1].(int64) != want[i][1] {
			t.Fatalf("row %d: %v, want %v", i, r, want[i])
		}
	}
}
