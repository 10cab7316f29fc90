package functions

import (
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

func TestExtract(t *testing.T) {
	const ts = "'2024-01-07 10:20:05.5'::timestamp"
	runCases(t, []tc{
		{"extract", []string{"'epoch'", "'2024-01-01 00:00:00.5+00'::timestamptz"}, "1704067200.500000", "numeric"},
		{"extract", []string{"'second'", ts}, "5.500000", "numeric"},
		{"extract", []string{"'milliseconds'", ts}, "5500.000", "numeric"},
		{"extract", []string{"'microseconds'", ts}, "5500000", "numeric"},
		{"extract", []string{"'minute'", ts}, "20", "numeric"},
		{"extract", []string{"'hour'", ts}, "10", "numeric"},
		{"extract", []string{"'day'", ts}, "7", "numeric"},
		{"extract", []string{"'month'", ts}, "1", "numeric"},
		{"extract", []string{"'year'", ts}, "2024", "numeric"},
		{"extract", []string{"'YEAR'", ts}, "2024", "numeric"},
		{"extract", []string{"'dow'", ts}, "0", "numeric"},
		{"extract", []string{"'isodow'", ts}, "7", "numeric"},
		{"extract", []string{"'doy'", "'2024-12-31'::date"}, "366", "numeric"},
		{"extract", []string{"'week'", "'2024-12-30'::date"}, "1", "numeric"},
		{"extract", []string{"'isoyear'", "'2024-12-30'::date"}, "2025", "numeric"},
		{"extract", []string{"'quarter'", "'2024-05-01'::date"}, "2", "numeric"},
		{"extract", []string{"'decade'", "'2024-05-01'::date"}, "202", "numeric"},
		{"extract", []string{"'century'", "'2000-05-01'::date"}, "20", "numeric"},
		{"extract", []string{"'millennium'", "'2001-05-01'::date"}, "3", "numeric"},
		{"extract", []string{"'epoch'", "'2024-01-01'::date"}, "1704067200", "numeric"},
		{"extract", []string{"'julian'", "'2024-01-01 12:00'::timestamp"}, "2460311.50000000000000000000", "numeric"},
		{"extract", []string{"'hour'", "'2024-01-01'::date"}, `ERROR 0A000: unit "hour" not supported for type date`, ""},
		{"extract", []string{"'foo'", ts}, `ERROR 22023: unit "foo" not recognized for type timestamp without time zone`, ""},
		{"extract", []string{"'timezone'", "'2024-01-01 00:00+00'::timestamptz"}, "0", "numeric"},
		{"extract", []string{"'timezone'", ts}, `ERROR 0A000: unit "timezone" not supported for type timestamp without time zone`, ""},
		{"extract", []string{"'epoch'", "'1 day 1.5 sec'::interval"}, "86401.500000", "numeric"},
		{"extract", []string{"'month'", "'14 months'::interval"}, "2", "numeric"},
		{"extract", []string{"'year'", "'-14 months'::interval"}, "-1", "numeric"},
		{"extract", []string{"'second'", "'1 min 5.25 sec'::interval"}, "5.250000", "numeric"},
		{"extract", []string{"'epoch'", "'1 mon'::interval"}, "2592000.000000", "numeric"},
		{"extract", []string{"'epoch'", "'1 year'::interval"}, "31557600.000000", "numeric"},
		{"extract", []string{"'hour'", "'-25:30'::interval"}, "-25", "numeric"},
		{"extract", []string{"'hour'", "'10:30:15.5'::time"}, "10", "numeric"},
		{"extract", []string{"'second'", "'10:30:15.5'::time"}, "15.500000", "numeric"},
		{"extract", []string{"'epoch'", "'10:30:15.5'::time"}, "37815.500000", "numeric"},
		{"extract", []string{"'year'", "'infinity'::timestamp"}, "Infinity", "numeric"},
		{"extract", []string{"'hour'", "'infinity'::timestamp"}, NULL, "numeric"},
		{"date_part", []string{"'second'", ts}, "5.5", "double precision"},
		{"date_part", []string{"'epoch'", "'2024-01-01'::date"}, "1704067200", "double precision"},
		{"date_part", []string{"'year'", "'2024-01-01'::date"}, "2024", "double precision"},
		{"date_part", []string{"'year'", "'0044-03-15 BC'::date"}, "-44", "double precision"},
	})
}

func TestDateTrunc(t *testing.T) {
	runCases(t, []tc{
		{"date_trunc", []string{"'week'", "'2024-01-07 10:00'::timestamp"}, "2024-01-01 00:00:00", "timestamp without time zone"},
		{"date_trunc", []string{"'quarter'", "'2024-05-17'::timestamp"}, "2024-04-01 00:00:00", "timestamp without time zone"},
		{"date_trunc", []string{"'day'", "'2024-01-07 10:00+05'::timestamptz"}, "2024-01-07 00:00:00+00", "timestamp with time zone"},
		{"date_trunc", []string{"'day'", "'2024-01-07 22:00+00'::timestamptz", "'Asia/Tokyo'"}, "2024-01-07 15:00:00+00", "timestamp with time zone"},
		{"date_trunc", []string{"'hour'", "'3 days 04:05:06'::interval"}, "3 days 04:00:00", "interval"},
		{"date_trunc", []string{"'month'", "'2 years 3 mons 4 days'::interval"}, "2 years 3 mons", "interval"},
		{"date_trunc", []string{"'week'", "'10 days'::interval"}, `ERROR 0A000: unit "week" not supported for type interval`, ""},
		{"date_trunc", []string{"'decade'", "'2024-05-17'::timestamp"}, "2020-01-01 00:00:00", "timestamp without time zone"},
		{"date_trunc", []string{"'century'", "'2024-05-17'::timestamp"}, "2001-01-01 00:00:00", "timestamp without time zone"},
		{"date_trunc", []string{"'millennium'", "'2024-05-17'::timestamp"}, "2001-01-01 00:00:00", "timestamp without time zone"},
		{"date_trunc", []string{"'milliseconds'", "'2024-05-17 10:00:00.123456'::timestamp"}, "2024-05-17 10:00:00.123", "timestamp without time zone"},
		{"date_trunc", []string{"'minute'", "'2024-05-17 10:11:12'::timestamp"}, "2024-05-17 10:11:00", "timestamp without time zone"},
		{"date_trunc", []string{"'year'", "'2024-05-17'::date"}, "2024-01-01 00:00:00+00", "timestamp with time zone"},
		{"date_trunc", []string{"'foo'", "'2024-05-17'::timestamp"}, `ERROR 22023: unit "foo" not recognized for type timestamp without time zone`, ""},
		{"date_trunc", []string{"'day'", "'infinity'::timestamp"}, "infinity", "timestamp without time zone"},
	})
}

func TestAge(t *testing.T) {
	runCases(t, []tc{
		{"age", []string{"'2024-03-15'::timestamp", "'2023-01-31'::timestamp"}, "1 year 1 mon 15 days", "interval"},
		{"age", []string{"'2024-01-01'::timestamp", "'2024-03-15 10:00'::timestamp"}, "-2 mons -14 days -10:00:00", "interval"},
		{"age", []string{"'2024-03-01'::date", "'2024-01-31'::date"}, "1 mon 1 day", "interval"},
		{"age", []string{"'2024-03-01 00:00+00'::timestamptz", "'2024-02-28 12:00+00'::timestamptz"}, "1 day 12:00:00", "interval"},
	})
}

func TestNow(t *testing.T) {
	ctx := testCtx(nil)
	ctx.Location = time.FixedZone("X", 5*3600)
	call := func(name string, args ...any) any {
		ts := make([]types.T, len(args))
		for i := range args {
			ts[i] = types.Int4T
		}
		ov, _, err := Resolve(name, ts)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ov.Eval(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := call("now"); v != types.Timestamp(testNow.UnixMicro()) {
		t.Errorf("now() = %v", v)
	}
	if v := call("current_timestamp", int64(0)); v != types.Timestamp(testNow.Truncate(time.Second).Add(time.Second).UnixMicro()) {
		t.Errorf("current_timestamp(0) = %v", v)
	}
	if v := call("current_date"); types.FormatText(v, types.DateT) != "2024-03-15" {
		t.Errorf("current_date = %v", types.FormatText(v, types.DateT))
	}
	if v := call("localtimestamp"); types.FormatText(v, types.TimestampT) != "2024-03-15 17:34:56.789" {
		t.Errorf("localtimestamp = %v", types.FormatText(v, types.TimestampT))
	}
	if v := call("localtime"); types.FormatText(v, types.TimeT) != "17:34:56.789" {
		t.Errorf("localtime = %v", types.FormatText(v, types.TimeT))
	}
	a := call("clock_timestamp").(types.Timestamp)
	if d := time.Since(time.UnixMicro(int64(a))); d < 0 || d > time.Minute {
		t.Errorf("clock_timestamp() = %v", a)
	}
	if ov, _, _ := Resolve("clock_timestamp", nil); ov.Volatility != Volatile {
		t.Errorf("clock_timestamp() must be volatile")
	}
}

func TestToTimestamp(t *testing.T) {
	runCases(t, []tc{
		{"to_timestamp", []string{"1704067200.5"}, "2024-01-01 00:00:00.5+00", "timestamp with time zone"},
		{"to_timestamp", []string{"0"}, "1970-01-01 00:00:00+00", "timestamp with time zone"},
		{"to_timestamp", []string{"'infinity'::float8"}, "infinity", "timestamp with time zone"},
		{"to_timestamp", []string{"'NaN'::float8"}, "ERROR 22008: timestamp cannot be NaN", ""},
		{"to_timestamp", []string{"'2024-03-05 14:07:09'", "'YYYY-MM-DD HH24:MI:SS'"}, "2024-03-05 14:07:09+00", "timestamp with time zone"},
		{"to_timestamp", []string{"'05 Mar 2024 02:07 PM'", "'DD Mon YYYY HH12:MI AM'"}, "2024-03-05 14:07:00+00", "timestamp with time zone"},
		{"to_timestamp", []string{"'2024-03-05 14:07:09.123 +05:30'", "'YYYY-MM-DD HH24:MI:SS.MS TZH:TZM'"}, "2024-03-05 08:37:09.123+00", "timestamp with time zone"},
		{"to_date", []string{"'2024-03-05'", "'YYYY-MM-DD'"}, "2024-03-05", "date"},
		{"to_date", []string{"'20240305'", "'YYYYMMDD'"}, "2024-03-05", "date"},
		{"to_date", []string{"'March 5, 2024'", "'Month DD, YYYY'"}, "2024-03-05", "date"},
		{"to_date", []string{"'2024/3/5'", "'YYYY-MM-DD'"}, "2024-03-05", "date"},
		{"to_date", []string{"'24-03-05'", "'YY-MM-DD'"}, "2024-03-05", "date"},
		{"to_date", []string{"'2024-13-01'", "'YYYY-MM-DD'"}, `ERROR 22008: date/time field value out of range: "2024-13-01"`, ""},
		{"to_date", []string{"'abc'", "'YYYY'"}, `ERROR 22007: invalid value "abc" for "YYYY"`, ""},
		{"to_date", []string{"'2024 060'", "'YYYY DDD'"}, "2024-02-29", "date"},
	})
}

func TestMakeDate(t *testing.T) {
	runCases(t, []tc{
		{"make_date", []string{"2024", "2", "29"}, "2024-02-29", "date"},
		{"make_date", []string{"-44", "3", "15"}, "0044-03-15 BC", "date"},
		{"make_date", []string{"2024", "2", "30"}, "ERROR 22008: date field value out of range: 2024-02-30", ""},
		{"make_date", []string{"0", "1", "1"}, "ERROR 22008: date field value out of range: 0-01-01", ""},
		{"make_time", []string{"10", "30", "15.5"}, "10:30:15.5", "time without time zone"},
		{"make_time", []string{"25", "0", "0"}, "ERROR 22008: time field value out of range: 25:00:00", ""},
		{"make_timestamp", []string{"2024", "1", "2", "3", "4", "5.5"}, "2024-01-02 03:04:05.5", "timestamp without time zone"},
		{"make_timestamptz", []string{"2024", "1", "2", "3", "4", "5.5"}, "2024-01-02 03:04:05.5+00", "timestamp with time zone"},
		{"make_timestamptz", []string{"2024", "1", "2", "3", "4", "5", "'Asia/Tokyo'"}, "2024-01-01 18:04:05+00", "timestamp with time zone"},
		{"make_interval", []string{"1", "2", "3", "4", "5", "6", "7.5"}, "1 year 2 mons 25 days 05:06:07.5", "interval"},
		{"make_interval", []string{"0", "0", "0", "10"}, "10 days", "interval"},
		{"make_interval", []string{"0", "0", "0", "0", "0", "0", "1.0000005"}, "00:00:01.000001", "interval"},
		{"justify_days", []string{"'35 days'::interval"}, "1 mon 5 days", "interval"},
		{"justify_hours", []string{"'27 hours'::interval"}, "1 day 03:00:00", "interval"},
		{"justify_interval", []string{"'1 mon -1 hour'::interval"}, "29 days 23:00:00", "interval"},
	})
}
