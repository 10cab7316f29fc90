package functions

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// volatilitySamples are argument values, as text, for the argument types
// TestImmutableIgnoresSession calls overloads with: times around a
// daylight-saving change and month ends (where the time zone moves the
// wall clock across a day or a month), fractional floats, bytes that
// print differently under bytea_output, intervals that print differently
// under IntervalStyle.
var volatilitySamples = map[string][]string{
	"text":                        {"day", "2024-03-10 01:30:00", "a,b"},
	"integer":                     {"1", "-2", "30"},
	"bigint":                      {"3", "-40"},
	"smallint":                    {"2"},
	"double precision":            {"0.1", "1e300", "-2.5"},
	"real":                        {"0.1", "3.25"},
	"numeric":                     {"0.1", "12.345"},
	"boolean":                     {"true", "false"},
	"bytea":                       {"\\x00ff10"},
	"date":                        {"2024-03-10", "2024-02-29"},
	"timestamp without time zone": {"2024-03-10 01:30:00", "2024-03-31 23:59:00"},
	"timestamp with time zone":    {"2024-03-10 06:30:00+00", "2024-03-11 06:00:00+00", "2024-03-31 23:30:00+00", "2024-03-01 00:00:00+00"},
	"time without time zone":      {"01:30:00", "23:59:59.5"},
	"interval":                    {"1 day", "-1 mon 3 days", "25:00:00"},
	"jsonb":                       {`{"a": 1, "b": [1, 2.5]}`, `[1, "x", null]`},
	"json":                        {`{"a": 1, "b": [1, 2.5]}`},
	"text[]":                      {"{a,b}"},
	"real[]":                      {"{0.1,0.2}"},
	"integer[]":                   {"{1,2}"},
}

// TestImmutableIgnoresSession checks that every immutable overload gives
// the same result under sessions whose settings differ (TimeZone,
// DateStyle, extra_float_digits, bytea_output, IntervalStyle). Immutable
// results are shared between sessions (the executor's ExprCache), so one
// that follows a setting hands one session's answer to another: age of
// two timestamptz values, computed in one session's time zone, was
// answered to a session in another from the cache.
func TestImmutableIgnoresSession(t *testing.T) {
	mem := memory.NewGoAllocator()
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	sessions := []*Context{
		{Now: testNow, Location: time.UTC, Mem: mem},
		{Now: testNow, Location: newYork, Mem: mem,
			DateStyle:     types.DateStyle{Output: types.DateOutputGerman, Order: types.DateOrderDMY},
			Floats:        types.FloatStyleFor(-3),
			ByteaEscape:   true,
			IntervalStyle: types.IntervalSQLStandard},
	}
	checked := 0
	for _, name := range Names() {
		for _, ov := range Overloads(name) {
			if ov.Volatility != Immutable || ov.Variadic {
				continue
			}
			argSets := [][]any{nil}
			for _, at := range ov.Args {
				samples, ok := volatilitySamples[at.String()]
				if !ok {
					argSets = nil
					break
				}
				var next [][]any
				for _, set := range argSets {
					for _, s := range samples {
						v, err := types.ParseText(s, at)
						if err != nil {
							t.Fatalf("sample %q of %s: %v", s, at, err)
						}
						next = append(next, append(append([]any(nil), set...), v))
					}
				}
				argSets = next
			}
			for _, args := range argSets {
				checked++
				var got []string
				for _, ctx := range sessions {
					got = append(got, callForText(ctx, ov, args))
				}
				if got[0] != got[1] {
					t.Errorf("immutable %s%v depends on the session: %s, then %s", name, ov.Args, got[0], got[1])
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d calls checked", checked)
	}
}

// callForText calls ov's Eval and gives its result in a fixed text form,
// or its error.
func callForText(ctx *Context, ov *Overload, args []any) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	v, err := ov.Eval(ctx, args)
	if err != nil {
		return "error: " + err.Error()
	}
	if v == nil {
		return "NULL"
	}
	return fmt.Sprintf("%#v", v)
}
