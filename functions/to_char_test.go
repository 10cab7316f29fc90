package functions

import "testing"

func TestToChar(t *testing.T) {
	const ts = "'2024-03-05 14:07:09.123456'::timestamp"
	runCases(t, []tc{
		{"to_char", []string{ts, "'YYYY-MM-DD HH24:MI:SS'"}, "2024-03-05 14:07:09", "text"},
		{"to_char", []string{ts, "'YYYY-MM-DD\"T\"HH24:MI:SS.MS'"}, "2024-03-05T14:07:09.123", "text"},
		{"to_char", []string{ts, "'HH12:MI AM us US'"}, "02:07 PM 123456 123456", "text"},
		{"to_char", []string{ts, "'hh24 mi ss yyyy'"}, "14 07 09 2024", "text"},
		{"to_char", []string{ts, "'Mon Month MON month DD'"}, "Mar March     MAR march     05", "text"},
		{"to_char", []string{ts, "'FMMonth FMDD, YYYY'"}, "March 5, 2024", "text"},
		{"to_char", []string{ts, "'Day Dy DAY dy D ID'"}, "Tuesday   Tue TUESDAY   tue 3 2", "text"},
		{"to_char", []string{ts, "'DDD IW WW W Q CC J'"}, "065 10 10 1 1 21 2460375", "text"},
		{"to_char", []string{ts, "'DDth FMDDth ddTH'"}, "05th 5th 05TH", "text"},
		{"to_char", []string{ts, "'YY Y YYY Y,YYY'"}, "24 4 024 2,024", "text"},
		{"to_char", []string{ts, "'FF1 FF3 FF6 SSSS'"}, "1 123 123456 50829", "text"},
		{"to_char", []string{ts, "'RM rm a.m.'"}, "III  iii  p.m.", "text"},
		{"to_char", []string{ts, "'IYYY-IW-ID'"}, "2024-10-2", "text"},
		{"to_char", []string{ts, "'\"Quarter\" Q'"}, "Quarter 1", "text"},
		{"to_char", []string{"'2024-03-05 14:07:09+00'::timestamptz", "'YYYY-MM-DD HH24:MI:SS TZ OF'"}, "2024-03-05 14:07:09 UTC +00", "text"},
		{"to_char", []string{"'2024-01-01 00:00:00'::timestamp", "'HH12 AM'"}, "12 AM", "text"},
		{"to_char", []string{"'25 hours 3 min'::interval", "'HH24:MI:SS'"}, "25:03:00", "text"},
		{"to_char", []string{"'1 year 2 mons 3 days'::interval", "'YYYY MM DD'"}, "0001 02 03", "text"},
		{"to_char", []string{"123.456", "'999.99'"}, " 123.46", "text"},
		{"to_char", []string{"-5", "'999'"}, "  -5", "text"},
		{"to_char", []string{"5", "'000'"}, " 005", "text"},
		{"to_char", []string{"123.456", "'FM999.99'"}, "123.46", "text"},
		{"to_char", []string{"1234567", "'9,999,999'"}, " 1,234,567", "text"},
		{"to_char", []string{"12345", "'999'"}, " ###", "text"},
		{"to_char", []string{"0.5", "'0.99'"}, " 0.50", "text"},
		{"to_char", []string{"0.5", "'9.99'"}, "  .50", "text"},
		{"to_char", []string{"-12.5", "'S999.9'"}, " -12.5", "text"},
		{"to_char", []string{"12.5", "'999.9S'"}, " 12.5+", "text"},
		{"to_char", []string{"-12.5", "'999.9MI'"}, " 12.5-", "text"},
		{"to_char", []string{"-12.5", "'999.9PR'"}, " <12.5>", "text"},
		{"to_char", []string{"1.5::float8", "'9.999'"}, " 1.500", "text"},
		{"to_char", []string{"3.1", "'FM9.999'"}, "3.1", "text"},
		{"to_char", []string{"42::int8", "'FM00009'"}, "00042", "text"},
	})
}
