package functions

// PostgreSQL 15's regexp_count, regexp_instr and regexp_substr:
//
//	regexp_count(string, pattern [, start [, flags]]) -> int4
//	regexp_instr(string, pattern [, start [, n [, endoption [, flags [, subexpr]]]]]) -> int4
//	regexp_substr(string, pattern [, start [, n [, flags [, subexpr]]]]) -> text
//
// Matching starts at character start (1-based, default 1) and finds
// every match (see regexSearch), of which n (default 1) is the one
// reported: regexp_instr gives its first character's position, or with
// endoption 1 the position after its last, 0 when there is no such match;
// regexp_substr its text, NULL when there is none. subexpr selects a
// capture group instead of the whole match. Flag g is refused.

import (
	"math"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	var ovs []*Overload
	for n := 2; n <= 4; n++ {
		ovs = append(ovs, fn("regexp_count", []types.T{tText, tText, tInt4, tText}[:n], tInt4, regexpCount))
	}
	for n := 2; n <= 7; n++ {
		ovs = append(ovs, fn("regexp_instr", []types.T{tText, tText, tInt4, tInt4, tInt4, tText, tInt4}[:n], tInt4, regexpInstr))
	}
	for n := 2; n <= 6; n++ {
		ovs = append(ovs, fn("regexp_substr", []types.T{tText, tText, tInt4, tInt4, tText, tInt4}[:n], tText, regexpSubstr))
	}
	Register(ovs...)
}

// regexpArgs are the optional arguments of regexp_count, regexp_instr
// and regexp_substr, checked in PostgreSQL's order.
type regexpArgs struct {
	start, n, endoption, subexpr int64
	flags                        string
}

// parse reads a[2:] laid out as names says ("start", "n", "endoption",
// "flags", "subexpr"), keeping the defaults for those not given.
func (r *regexpArgs) parse(a []any, names ...string) error {
	r.start, r.n = 1, 1
	for i, name := range names {
		if 2+i >= len(a) {
			break
		}
		v := a[2+i]
		switch name {
		case "flags":
			r.flags = v.(string)
		case "start":
			if r.start = v.(int64); r.start <= 0 {
				return errRegexpParam(name, r.start)
			}
		case "n":
			if r.n = v.(int64); r.n <= 0 {
				return errRegexpParam(name, r.n)
			}
		case "endoption":
			if r.endoption = v.(int64); r.endoption != 0 && r.endoption != 1 {
				return errRegexpParam(name, r.endoption)
			}
		case "subexpr":
			if r.subexpr = v.(int64); r.subexpr < 0 {
				return errRegexpParam(name, r.subexpr)
			}
		}
	}
	return nil
}

// nth returns the string a[0] and the byte range of the selected capture
// group (the whole match for subexpr 0) of the n-th match from start on;
// ok is false when there is no such match or group, or the group took no
// part in the match.
func (r *regexpArgs) nth(ctx *Context, fn string, a []any) (s string, from, to int, ok bool, err error) {
	s = a[0].(string)
	re, ms, err := regexpMatchesFrom(ctx, fn, s, a[1].(string), r.flags, r.start, int(min(r.n, math.MaxInt32)))
	if err != nil || int64(len(ms)) < r.n {
		return s, 0, 0, false, err
	}
	// With no capture groups PostgreSQL counts the whole match as the
	// only one, so subexpr 1 selects it.
	g := int(r.subexpr)
	if re.NumSubexp() == 0 && g == 1 {
		g = 0
	}
	if g > re.NumSubexp() {
		return s, 0, 0, false, nil
	}
	m := ms[r.n-1]
	if m[2*g] < 0 {
		return s, 0, 0, false, nil
	}
	return s, m[2*g], m[2*g+1], true, nil
}

func regexpCount(ctx *Context, a []any) (any, error) {
	var r regexpArgs
	if err := r.parse(a, "start", "flags"); err != nil {
		return nil, err
	}
	_, ms, err := regexpMatchesFrom(ctx, "regexp_count", a[0].(string), a[1].(string), r.flags, r.start, math.MaxInt)
	if err != nil {
		return nil, err
	}
	return int64(len(ms)), nil
}

func regexpInstr(ctx *Context, a []any) (any, error) {
	var r regexpArgs
	if err := r.parse(a, "start", "n", "endoption", "flags", "subexpr"); err != nil {
		return nil, err
	}
	s, from, to, ok, err := r.nth(ctx, "regexp_instr", a)
	if err != nil || !ok {
		return int64(0), err
	}
	if r.endoption == 1 {
		from = to
	}
	return int64(utf8.RuneCountInString(s[:from]) + 1), nil
}

func regexpSubstr(ctx *Context, a []any) (any, error) {
	var r regexpArgs
	if err := r.parse(a, "start", "n", "flags", "subexpr"); err != nil {
		return nil, err
	}
	s, from, to, ok, err := r.nth(ctx, "regexp_substr", a)
	if err != nil || !ok {
		return nil, err
	}
	return s[from:to], nil
}
