package functions

import "testing"

func TestDatetimeOperators(t *testing.T) {
	runCases(t, []tc{
		{"+", []string{"'2024-02-28'::date", "1"}, "2024-02-29", "date"},
		{"+", []string{"7", "'2024-02-28'::date"}, "2024-03-06", "date"},
		{"-", []string{"'2024-03-01'::date", "1"}, "2024-02-29", "date"},
		{"-", []string{"'2024-03-01'::date", "'2024-01-01'::date"}, "60", "integer"},
		{"+", []string{"'2024-01-31'::date", "'1 month'::interval"}, "2024-02-29 00:00:00", "timestamp without time zone"},
		{"-", []string{"'2024-03-31'::date", "'1 month'::interval"}, "2024-02-29 00:00:00", "timestamp without time zone"},
		{"+", []string{"'2024-01-01'::date", "'10:30'::time"}, "2024-01-01 10:30:00", "timestamp without time zone"},
		{"+", []string{"'2024-01-31 10:00'::timestamp", "'1 mon 2 days 03:00:00.5'::interval"}, "2024-03-02 13:00:00.5", "timestamp without time zone"},
		{"-", []string{"'2024-01-01 00:00'::timestamp", "'1 sec'::interval"}, "2023-12-31 23:59:59", "timestamp without time zone"},
		{"+", []string{"'1 hour'::interval", "'2024-01-01 00:00'::timestamp"}, "2024-01-01 01:00:00", "timestamp without time zone"},
		{"+", []string{"'2024-01-01 00:00+00'::timestamptz", "'1 day 1 hour'::interval"}, "2024-01-02 01:00:00+00", "timestamp with time zone"},
		{"-", []string{"'2024-01-03 01:00'::timestamp", "'2024-01-01'::timestamp"}, "2 days 01:00:00", "interval"},
		{"-", []string{"'2024-01-01'::timestamp", "'2024-01-03 01:00'::timestamp"}, "-2 days -01:00:00", "interval"},
		{"-", []string{"'2024-01-01 12:00+00'::timestamptz", "'2024-01-01 10:30+00'::timestamptz"}, "01:30:00", "interval"},
		{"-", []string{"'2024-03-01'::date", "'2024-02-01 12:00'::timestamp"}, "28 days 12:00:00", "interval"},
		{"+", []string{"'23:00'::time", "'2 hours'::interval"}, "01:00:00", "time without time zone"},
		{"-", []string{"'01:00'::time", "'2 hours'::interval"}, "23:00:00", "time without time zone"},
		{"-", []string{"'12:00'::time", "'10:30'::time"}, "01:30:00", "interval"},
		{"+", []string{"'1 day'::interval", "'1 hour'::interval"}, "1 day 01:00:00", "interval"},
		{"-", []string{"'1 mon'::interval", "'1 day'::interval"}, "1 mon -1 days", "interval"},
		{"-", []string{"'1 day 2 hours'::interval"}, "-1 days -02:00:00", "interval"},
		{"*", []string{"'1 day'::interval", "1.5"}, "1 day 12:00:00", "interval"},
		{"*", []string{"'1 mon'::interval", "1.5"}, "1 mon 15 days", "interval"},
		{"*", []string{"2", "'1 hour 30 min'::interval"}, "03:00:00", "interval"},
		{"*", []string{"'1 mon 1 day'::interval", "0.3"}, "9 days 07:12:00", "interval"},
		{"/", []string{"'1 day'::interval", "3"}, "08:00:00", "interval"},
		{"/", []string{"'1 mon'::interval", "7"}, "4 days 06:51:25.6896", "interval"},
		{"/", []string{"'1 day'::interval", "0"}, "ERROR 22012: division by zero", ""},
		{"+", []string{"'infinity'::timestamp", "'1 day'::interval"}, "infinity", "timestamp without time zone"},
		{"-", []string{"'infinity'::date", "'2024-01-01'::date"}, "ERROR 22008: cannot subtract infinite dates", ""},
		{"+", []string{"'5874897-12-31'::date", "1"}, "ERROR 22008: date out of range", ""},
	})
}
