package types

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// oracleCase is one input PostgreSQL 15 was asked about (see
// internal/oraclegen): its text output and binary output, or the error it
// gave.
type oracleCase struct {
	typ, in, tz             string
	out, bin                string
	code, msg, detail, hint string
}

// oracleType maps the oracle's type names to T.
func oracleType(t *testing.T, name string) T {
	t.Helper()
	if base, ok := strings.CutSuffix(name, "[]"); ok {
		return ArrayOf(oracleType(t, base), 1)
	}
	typ, ok := Named(name)
	if !ok {
		t.Fatalf("unknown type %q", name)
	}
	return typ
}

// deviations are the oracle cases where cairn knowingly differs from
// PostgreSQL 15, with what cairn does instead (out, or an error code).
var deviations = map[string]struct{ out, code string }{
	// Timestamps are int64 microseconds since 1970 (and MaxInt64 is
	// 'infinity'), which ends in 294247 where PostgreSQL's end in 294276.
	"timestamp|294276-12-31 23:59:59.999999":   {code: "22008"},
	"timestamp|294247-01-10 04:00:54.775807":   {code: "22008"},
	"timestamptz|294276-12-31 23:59:59.999999": {code: "22008"},
	// Arrays start at 1: another lower bound is refused.
	"int4[]|[2:3]={1,2}": {code: "0A000"},
	"int4[]|[0:1]={1,2}": {code: "0A000"},
	// PostgreSQL 15 accepts sub-arrays nested at different depths and
	// builds odd values from them (PostgreSQL 16 rejects them, as cairn
	// does).
	"int4[]|{{1},{{2}}}": {code: "22P02"},
	"int4[]|{{{1}},{2}}": {code: "22P02"},
}

// noReadBack are outputs PostgreSQL cannot read back either.
var noReadBack = map[string]bool{
	"interval|-9223372036854775808 microseconds": true,
}

func TestOracleCases(t *testing.T) {
	for _, c := range oracleCases {
		if d, ok := deviations[c.typ+"|"+c.in]; ok {
			c.out, c.code, c.msg, c.detail, c.hint, c.bin = d.out, d.code, "", "", "", ""
		}
		typ := oracleType(t, c.typ)
		loc := time.UTC
		if c.tz != "" {
			if loc = LoadZone(c.tz); loc == nil {
				t.Logf("time zone %s not available, skipped", c.tz)
				continue
			}
		}
		opts := &TextOptions{Location: loc}
		name := c.typ + " " + c.in
		if c.tz != "" {
			name += " @" + c.tz
		}
		v, err := ParseTextOpts(c.in, typ, opts)
		if c.code != "" {
			if err == nil {
				t.Errorf("%s: got %q, want error %s %s", name, FormatTextTZ(v, typ, loc), c.code, c.msg)
				continue
			}
			pe := pgerr.From(err)
			if c.msg == "" && pe.Code == c.code {
				continue // a deviation: only the code is fixed
			}
			if pe.Code != c.code || pe.Message != c.msg || pe.Detail != c.detail || pe.Hint != c.hint {
				t.Errorf("%s: got error %s %q (detail %q hint %q), want %s %q (detail %q hint %q)",
					name, pe.Code, pe.Message, pe.Detail, pe.Hint, c.code, c.msg, c.detail, c.hint)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: unexpected error %v (want %q)", name, err, c.out)
			continue
		}
		if got := string(AppendText(nil, v, typ, opts)); got != c.out {
			t.Errorf("%s: text %q, want %q", name, got, c.out)
			continue
		}
		// Text round trip of the output.
		v2, err := ParseTextOpts(c.out, typ, opts)
		if noReadBack[c.typ+"|"+c.in] {
			if err == nil {
				t.Errorf("%s: reading back %q worked, PostgreSQL fails", name, c.out)
			}
		} else if err != nil {
			t.Errorf("%s: reading back %q: %v", name, c.out, err)
		} else if got := string(AppendText(nil, v2, typ, opts)); got != c.out {
			t.Errorf("%s: round trip %q, want %q", name, got, c.out)
		}
		if c.bin == "" {
			continue
		}
		bin, err := EncodeBinary(nil, v, typ)
		if err != nil {
			t.Errorf("%s: EncodeBinary: %v", name, err)
			continue
		}
		if got := hex.EncodeToString(bin); got != c.bin {
			t.Errorf("%s: binary %s, want %s", name, got, c.bin)
		}
		pgBin, _ := hex.DecodeString(c.bin)
		v3, err := DecodeBinary(pgBin, typ)
		if err != nil {
			t.Errorf("%s: DecodeBinary(%s): %v", name, c.bin, err)
			continue
		}
		if got := string(AppendText(nil, v3, typ, opts)); got != c.out {
			t.Errorf("%s: decoded binary reads %q, want %q", name, got, c.out)
		}
	}
}
