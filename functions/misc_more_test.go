package functions

import (
	"math"
	"testing"
	"time"
)

func TestNumNulls(t *testing.T) {
	runCases(t, []tc{
		{"num_nulls", []string{"1", "NULL", "'a'", "NULL::text"}, "2", "integer"},
		{"num_nonnulls", []string{"1", "NULL", "'a'", "NULL::text"}, "2", "integer"},
		{"num_nulls", []string{"NULL"}, "1", "integer"},
		{"num_nonnulls", []string{"NULL"}, "0", "integer"},
		{"num_nonnulls", []string{"'{1,NULL}'::int4[]", "1.5", "true"}, "3", "integer"},
	})
}

func TestArrayFillTrim(t *testing.T) {
	runCases(t, []tc{
		{"array_fill", []string{"7", "'{3}'::int4[]"}, "{7,7,7}", "integer[]"},
		{"array_fill", []string{"'x'::text", "'{2}'::int4[]"}, "{x,x}", "text[]"},
		{"array_fill", []string{"NULL::int4", "'{2}'::int4[]"}, "{NULL,NULL}", "integer[]"},
		{"array_fill", []string{"1.5", "'{0}'::int4[]"}, "{}", "numeric[]"},
		{"array_fill", []string{"1", "'{2,0}'::int4[]"}, "{}", "integer[]"},
		{"array_fill", []string{"1", "'{}'::int4[]"}, "{}", "integer[]"},
		{"array_fill", []string{"1", "'{2}'::int4[]", "'{1}'::int4[]"}, "{1,1}", "integer[]"},
		{"array_fill", []string{"1", "NULL::int4[]"}, "ERROR 22004: dimension array or low bound array cannot be null", ""},
		{"array_fill", []string{"1", "'{2}'::int4[]", "NULL::int4[]"}, "ERROR 22004: dimension array or low bound array cannot be null", ""},
		{"array_fill", []string{"1", "'{NULL}'::int4[]"}, "ERROR 22004: dimension values cannot be null", ""},
		{"array_fill", []string{"1", "'{{1}}'::int4[]"}, "ERROR 2202E: wrong number of array subscripts", ""},
		{"array_fill", []string{"1", "'{2}'::int4[]", "'{1,1}'::int4[]"}, "ERROR 2202E: wrong number of array subscripts", ""},
		{"array_fill", []string{"1", "'{-1}'::int4[]"}, "ERROR 54000: array size exceeds the maximum allowed (134217727)", ""},
		{"array_fill", []string{"1", "'{100000,100000}'::int4[]"}, "ERROR 54000: array size exceeds the maximum allowed (134217727)", ""},
		{"array_fill", []string{"1", "'{1,1,1,1,1,1,1}'::int4[]"}, "ERROR 54000: number of array dimensions (7) exceeds the maximum allowed (6)", ""},
		{"trim_array", []string{"'{1,2,3,4}'::int4[]", "2"}, "{1,2}", "integer[]"},
		{"trim_array", []string{"'{1,2,3}'::int4[]", "0"}, "{1,2,3}", "integer[]"},
		{"trim_array", []string{"'{1,2,3}'::int4[]", "3"}, "{}", "integer[]"},
		{"trim_array", []string{"'{{1,2},{3,4},{5,6}}'::int4[]", "1"}, "{{1,2},{3,4}}", "integer[]"},
		{"trim_array", []string{"'{}'::text[]", "0"}, "{}", "text[]"},
		{"trim_array", []string{"'{a,NULL}'::text[]", "1"}, "{a}", "text[]"},
		{"trim_array", []string{"'{1,2,3}'::int4[]", "4"}, "ERROR 2202E: number of elements to trim must be between 0 and 3", ""},
		{"trim_array", []string{"'{1,2,3}'::int4[]", "-1"}, "ERROR 2202E: number of elements to trim must be between 0 and 3", ""},
		{"trim_array", []string{"NULL::int4[]", "1"}, NULL, "integer[]"},
		{"trim_array", []string{"'{1}'::int4[]", "NULL::int4"}, NULL, "integer[]"},
	})
	runCasesNoOracle(t, []tc{
		{"array_fill", []string{"7", "'{2}'::int4[]", "'{2}'::int4[]"}, "ERROR 0A000: array_fill with lower bounds other than 1 is not supported", ""},
		{"array_fill", []string{"7", "'{2,2}'::int4[]"}, "ERROR 0A000: array_fill with more than one dimension is not supported", ""},
	})
}

func TestJsonbInsertExists(t *testing.T) {
	runCases(t, []tc{
		{"jsonb_insert", []string{`'{"a": [0,1,2]}'::jsonb`, "'{a,1}'", `'"new_value"'`}, `{"a": [0, "new_value", 1, 2]}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": [0,1,2]}'::jsonb`, "'{a,1}'", `'"new_value"'`, "true"}, `{"a": [0, 1, "new_value", 2]}`, "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{-1}'", "'9'", "true"}, "[0, 1, 2, 9]", "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{-1}'", "'9'"}, "[0, 1, 9, 2]", "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{-9}'", "'9'"}, "[9, 0, 1, 2]", "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{-9}'", "'9'", "true"}, "[9, 0, 1, 2]", "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{9}'", "'9'"}, "[0, 1, 2, 9]", "jsonb"},
		{"jsonb_insert", []string{`'[0,1,2]'::jsonb`, "'{ 1}'", "'9'"}, "[0, 9, 1, 2]", "jsonb"},
		{"jsonb_insert", []string{`'[]'::jsonb`, "'{5}'", "'9'"}, "[9]", "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{b}'", "'2'"}, `{"a": 1, "b": 2}`, "jsonb"},
		{"jsonb_insert", []string{`'{}'::jsonb`, "'{b}'", "'2'"}, `{"b": 2}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": {"b": 1}}'::jsonb`, "'{a,c}'", "'[1]'"}, `{"a": {"b": 1, "c": [1]}}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{b,c}'", "'2'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{b,NULL}'", "'2'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{a,b}'", "'2'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_insert", []string{`'[1, [2]]'::jsonb`, "'{5,0}'", "'2'"}, "[1, [2]]", "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{}'", "'2'"}, `{"a": 1}`, "jsonb"},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{a}'", "'2'"}, "ERROR 22023: cannot replace existing key", ""},
		{"jsonb_insert", []string{`'{"a": 1}'::jsonb`, "'{NULL}'", "'2'"}, "ERROR 22004: path element at position 1 is null", ""},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{x}'", "'2'"}, `ERROR 22P02: path element at position 1 is not an integer: "x"`, ""},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{\"1 \"}'", "'2'"}, `ERROR 22P02: path element at position 1 is not an integer: "1 "`, ""},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{99999999999}'", "'2'"}, `ERROR 22P02: path element at position 1 is not an integer: "99999999999"`, ""},
		{"jsonb_insert", []string{`'1'::jsonb`, "'{a}'", "'2'"}, "ERROR 22023: cannot set path in scalar", ""},
		{"jsonb_insert", []string{`'1'::jsonb`, "'{}'", "'2'"}, "ERROR 22023: cannot set path in scalar", ""},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{{0}}'", "'2'"}, "ERROR 2202E: wrong number of array subscripts", ""},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{0}'", "NULL::jsonb"}, NULL, "jsonb"},
		{"jsonb_insert", []string{`'[1]'::jsonb`, "'{0}'", "'2'", "NULL::bool"}, NULL, "jsonb"},
		{"jsonb_exists", []string{`'{"a": 1, "b": 2}'::jsonb`, "'b'"}, "t", "boolean"},
		{"jsonb_exists", []string{`'{"a": {"b": 1}}'::jsonb`, "'b'"}, "f", "boolean"},
		{"jsonb_exists", []string{`'["a", 1]'::jsonb`, "'a'"}, "t", "boolean"},
		{"jsonb_exists", []string{`'["a", 1]'::jsonb`, "'1'"}, "f", "boolean"},
		{"jsonb_exists", []string{`'"a"'::jsonb`, "'a'"}, "t", "boolean"},
		{"jsonb_exists", []string{`'{"a": 1}'::jsonb`, "NULL::text"}, NULL, "boolean"},
	})
}

func TestDateBinIsFinite(t *testing.T) {
	runCases(t, []tc{
		{"date_bin", []string{"'15 minutes'::interval", "'2020-02-11 15:44:17'::timestamp", "'2001-01-01'::timestamp"}, "2020-02-11 15:30:00", "timestamp without time zone"},
		{"date_bin", []string{"'15 minutes'::interval", "'2020-02-11 15:44:17'::timestamp", "'2001-01-01 00:02:30'::timestamp"}, "2020-02-11 15:32:30", "timestamp without time zone"},
		{"date_bin", []string{"'15 minutes'::interval", "'2020-02-01 00:02:30'::timestamp", "'2020-02-01 00:15:00'::timestamp"}, "2020-02-01 00:00:00", "timestamp without time zone"},
		{"date_bin", []string{"'1 day 2 hours'::interval", "'2020-02-11 15:44:17+00'::timestamptz", "'2000-01-01 00:00:00+00'::timestamptz"}, "2020-02-11 02:00:00+00", "timestamp with time zone"},
		{"date_bin", []string{"'1 microsecond'::interval", "'2020-02-11 15:44:17.123456'::timestamp", "'2000-01-01'::timestamp"}, "2020-02-11 15:44:17.123456", "timestamp without time zone"},
		{"date_bin", []string{"'1 hour'::interval", "'infinity'::timestamp", "'2020-01-01'::timestamp"}, "infinity", "timestamp without time zone"},
		{"date_bin", []string{"'1 hour'::interval", "'2020-01-01'::timestamp", "'infinity'::timestamp"}, "ERROR 22008: origin out of range", ""},
		{"date_bin", []string{"'1 month'::interval", "'2020-01-01'::timestamp", "'2020-01-01'::timestamp"}, "ERROR 0A000: timestamps cannot be binned into intervals containing months or years", ""},
		{"date_bin", []string{"'0 minutes'::interval", "'2020-01-01'::timestamp", "'2020-01-01'::timestamp"}, "ERROR 22008: stride must be greater than zero", ""},
		{"date_bin", []string{"'-1 minute'::interval", "'2020-01-01'::timestamp", "'2020-01-01'::timestamp"}, "ERROR 22008: stride must be greater than zero", ""},
		{"date_bin", []string{"'1 day -1 minute'::interval", "'2020-01-01 00:00:30'::timestamp", "'2020-01-01'::timestamp"}, "2020-01-01 00:00:00", "timestamp without time zone"},
		{"date_bin", []string{"'200000000 days'::interval", "'2020-01-01'::timestamp", "'2020-01-01'::timestamp"}, "ERROR 22008: interval out of range", ""},
		{"date_bin", []string{"'100000 days'::interval", "'4713-01-01 BC'::timestamp", "'290000-01-01'::timestamp"}, "ERROR 22008: interval out of range", ""},
		{"date_bin", []string{"'1 day'::interval", "'4714-11-24 00:00:00 BC'::timestamp", "'4714-11-24 00:00:01 BC'::timestamp"}, "ERROR 22008: timestamp out of range", ""},
		{"date_bin", []string{"NULL::interval", "'2020-01-01'::timestamp", "'2020-01-01'::timestamp"}, NULL, "timestamp without time zone"},
		{"isfinite", []string{"'2020-01-01'::date"}, "t", "boolean"},
		{"isfinite", []string{"'-infinity'::date"}, "f", "boolean"},
		{"isfinite", []string{"'2020-01-01'::timestamp"}, "t", "boolean"},
		{"isfinite", []string{"'infinity'::timestamp"}, "f", "boolean"},
		{"isfinite", []string{"'infinity'::timestamptz"}, "f", "boolean"},
		{"isfinite", []string{"'2020-01-01 00:00+00'::timestamptz"}, "t", "boolean"},
		{"isfinite", []string{"'4 hours'::interval"}, "t", "boolean"},
		{"isfinite", []string{"NULL::date"}, NULL, "boolean"},
	})
}

// timeoutSession is a session whose statement_timeout is ms milliseconds.
type timeoutSession struct {
	fakeSession
	ms string
}

func (s timeoutSession) Setting(name string) (string, bool) {
	if name == "statement_timeout" {
		return s.ms, true
	}
	return s.fakeSession.Setting(name)
}

func TestPgSleep(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"pg_sleep", []string{"0"}, "", "text"},
		{"pg_sleep", []string{"-5"}, "", "text"},
		{"pg_sleep", []string{"'NaN'::float8"}, "", "text"},
		{"pg_sleep", []string{"0.01"}, "", "text"},
		{"pg_sleep", []string{"NULL::float8"}, NULL, "text"},
	})
	sleep := Overloads("pg_sleep")[0]
	for _, c := range []struct {
		secs     float64
		timeout  string
		min, max time.Duration
		err      bool
	}{
		{0.05, "0", 50 * time.Millisecond, time.Second, false},
		{0.05, "1000", 50 * time.Millisecond, time.Second, false},
		{math.Inf(1), "50", 50 * time.Millisecond, time.Second, true},
		{3600, "50", 50 * time.Millisecond, time.Second, true},
	} {
		ctx := testCtx(nil)
		ctx.Session = timeoutSession{ms: c.timeout}
		start := time.Now()
		v, err := sleep.Eval(ctx, []any{c.secs})
		took := time.Since(start)
		if took < c.min || took > c.max {
			t.Errorf("pg_sleep(%v) with statement_timeout %s took %v", c.secs, c.timeout, took)
		}
		switch {
		case c.err && (err == nil || errText(err) != "ERROR 57014: canceling statement due to statement timeout"):
			t.Errorf("pg_sleep(%v) with statement_timeout %s: %v, %v", c.secs, c.timeout, v, err)
		case !c.err && (err != nil || v != ""):
			t.Errorf("pg_sleep(%v): %v, %v", c.secs, v, err)
		}
	}
}
