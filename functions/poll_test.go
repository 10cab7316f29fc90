package functions

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/tsearch"
	"github.com/jackc/pgerrcode"
)

// overload is the registered overload of name with exactly args.
func overload(t *testing.T, name string, args ...types.T) *Overload {
	t.Helper()
	for _, ov := range Overloads(name) {
		if len(ov.Args) == len(args) && func() bool {
			for i, a := range args {
				if !ov.Args[i].Equal(a) {
					return false
				}
			}
			return true
		}() {
			return ov
		}
	}
	t.Fatalf("no %s%v", name, args)
	return nil
}

// TestLongCallsStop: the functions that can work long over one value
// (repeat, replace, the regexp_ ones, translate, string_to_array,
// array_to_string, md5, to_tsvector, ts_headline) stop with 57014 under a cancelled
// context, and give the same answers as the standard library across the
// pieces they work in.
func TestLongCallsStop(t *testing.T) {
	long := strings.Repeat("word ", 3*pollWork/5)
	calls := []struct {
		ov   *Overload
		args []any
	}{
		{overload(t, "repeat", tText, tInt4), []any{"abc", int64(pollWork)}},
		{overload(t, "replace", tText, tText, tText), []any{long, "o", "oo"}},
		{overload(t, "regexp_replace", tText, tText, tText, tText), []any{long, "w", "v", "g"}},
		{overload(t, "md5", tText), []any{long}},
		{overload(t, "md5", types.ByteaT), []any{[]byte(long)}},
		{overload(t, "to_tsvector", tRegConfig, tText), []any{tsearch.English.OID, long}},
		{overload(t, "ts_headline", tRegConfig, tText, types.TSQueryT), []any{tsearch.English.OID, long, "'word'"}},
		{overload(t, "regexp_count", tText, tText), []any{long, "w"}},
		{overload(t, "translate", tText, tText, tText), []any{long, "w", "v"}},
		{overload(t, "string_to_array", tText, tText), []any{long, " "}},
		{overload(t, "array_to_string", ArgAnyArray, tText), []any{&types.Array{Elem: tText, Dims: []int{pollWork}, Elems: slices.Repeat([]any{"w"}, pollWork)}, ","}},
	}
	for _, timeout := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		want := "canceling statement due to user request"
		if timeout {
			ctx, cancel = context.WithTimeout(context.Background(), 0)
			want = "canceling statement due to statement timeout"
		}
		cancel()
		fn := &Context{Ctx: ctx}
		stopped := func(name string, err error) {
			t.Helper()
			if pe := pgerr.From(err); err == nil || pe.Code != pgerrcode.QueryCanceled || pe.Message != want {
				t.Errorf("%s under a done context: %v", name, err)
			}
		}
		for _, c := range calls {
			_, err := c.ov.Eval(fn, c.args)
			stopped(c.ov.Name, err)
		}
		// A set-returning function that finds its rows at once.
		_, err := SetReturningFunc("regexp_matches").Call(fn, []any{long, "w", "g"}, []types.T{tText, tText, tText}, nil)
		stopped("regexp_matches", err)
	}

	eval := func(ov *Overload, args ...any) any {
		t.Helper()
		v, err := ov.Eval(&Context{Ctx: context.Background()}, args)
		if err != nil {
			t.Fatalf("%s: %v", ov.Name, err)
		}
		return v
	}
	for _, s := range []string{"abc", "abcdefg", strings.Repeat("xyz", 1000)} {
		n := 3*pollWork/len(s) + 1 // pieces, and a last shorter one
		if got, want := eval(calls[0].ov, s, int64(n)), strings.Repeat(s, n); got != want {
			t.Errorf("repeat(%.5q, %d) differs from strings.Repeat", s, n)
		}
	}
	if got := eval(calls[1].ov, long, "o", "oo"); got != strings.ReplaceAll(long, "o", "oo") {
		t.Errorf("replace over %d bytes differs from strings.ReplaceAll", len(long))
	}
	sum := md5.Sum([]byte(long))
	if got := eval(calls[3].ov, long); got != hex.EncodeToString(sum[:]) {
		t.Errorf("md5 over %d bytes: %v", len(long), got)
	}
	if got := eval(calls[4].ov, []byte(long)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("md5 over %d bytes of bytea: %v", len(long), got)
	}
}
