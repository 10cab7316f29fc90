package mcp

import (
	"strings"
	"testing"
	"time"
)

// ParseTime reads the three forms of a time the tools take, and refuses a
// time outside years 1 to 9999 (an age that reaches before year 1 once
// surfaced as an internal JSON error).
func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-01-02T15:04:05Z": time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		"2026-01-02":           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		" 7d ":                 now.AddDate(0, 0, -7),
		"90m":                  now.Add(-90 * time.Minute),
	} {
		if got, err := ParseTime(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"99999999d": "out of range",
		"yesterday": "is not a time",
		"-5d":       "is not a time",
	} {
		if _, err := ParseTime(in, now); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseTime(%q): %v, want an error saying %q", in, err, msg)
		}
	}
}
