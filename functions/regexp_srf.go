package functions

// The set-returning regular expression functions regexp_matches and
// regexp_split_to_table run in the executor (exec/srf.go); this file finds
// their matches with the PostgreSQL-to-RE2 translation of regex.go and
// PostgreSQL's search loop (regexSearch).

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

// RegexpMatches returns the rows of regexp_matches(s, pattern, flags): the
// text[] of the first match (see matchArray), or with flag g of every
// match, empty ones included; none when nothing matches.
func RegexpMatches(s, pattern, flags string) ([]*types.Array, error) {
	_, global, _, err := regexFlags(flags)
	if err != nil {
		return nil, err
	}
	re, err := compileRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	limit := 1
	if global {
		limit = math.MaxInt
	}
	ms, err := regexSearch(re, s, 0, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Array, len(ms))
	for i, m := range ms {
		out[i] = matchArray(s, m)
	}
	return out, nil
}

// RegexpSplit returns the pieces of s between the matches of pattern, as
// fn (regexp_split_to_table or regexp_split_to_array) splits it. As in
// PostgreSQL, empty matches at the start or end of s or right after
// another match split nothing, and flag g is refused.
func RegexpSplit(fn, s, pattern, flags string) ([]string, error) {
	_, global, _, err := regexFlags(flags)
	if err != nil {
		return nil, err
	}
	if global {
		return nil, errGlobalOption(fn)
	}
	re, err := compileRegex(pattern, flags)
	if err != nil {
		return nil, err
	}
	// Go's FindAll finds PostgreSQL's matches but for the empty ones
	// right after another match (see regexSearch), which splitting
	// ignores anyway; it is faster than regexSearch.
	var out []string
	start, prevEnd := 0, 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] < len(s) && m[1] > prevEnd {
			out = append(out, s[start:m[0]])
			start = m[1]
		}
		prevEnd = m[1]
	}
	return append(out, s[start:]), nil
}
