package exec

import (
	"context"
	"regexp"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

func TestAnalyzeLines(t *testing.T) {
	rt := testRuntime(t)
	rt.Analyze = true
	smallBatches(t, 2)
	in := intRows(1, row(int64(1)), row(int64(2)), row(int64(3)), row(int64(4)), row(int64(5)))
	plan := &sql.Limit{Input: &sql.Filter{Input: in, Cond: call(opGt, ref(0, types.Int8T), i64(1))}, Count: i64(2)}
	op, err := Build(rt, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := Drain(context.Background(), op, func(arrow.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	lines := AnalyzeLines(op, plan)
	want := []string{
		`^Limit Count: 2 \(actual rows=2 time=\d+\.\d{3} ms\)$`,
		`^  ->  Filter: \(c0 > 1\) \(actual rows=3 time=\d+\.\d{3} ms\)$`,
		`^        ->  Values Scan \(5 rows\) \(actual rows=4 time=\d+\.\d{3} ms\)$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("lines %q", lines)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i, lines[i], re)
		}
	}
	// Rows are counted per batch: the filter passed 2 and 3 (then Limit
	// took what it needed). A node that never ran:
	plan2 := &sql.Limit{Input: intRows(1, row(int64(1))), Count: i64(0)}
	op2, err := Build(rt, plan2)
	if err != nil {
		t.Fatal(err)
	}
	if err := Drain(context.Background(), op2, func(arrow.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	lines = AnalyzeLines(op2, plan2)
	if !regexp.MustCompile(`never executed\)?$`).MatchString(lines[1]) {
		t.Errorf("unexecuted child: %q", lines[1])
	}
}
