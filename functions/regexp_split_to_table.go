package functions

// regexp_split_to_table(string, pattern [, flags]): the pieces of string
// between the matches of pattern, one row each (regexp_split_to_array
// returns them as an array).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	RegisterSetReturning(&SetReturning{Name: "regexp_split_to_table", Type: textArgs(types.Field{Name: "regexp_split_to_table", T: types.TextT}),
		Rows: func(ctx *Context, args []any, _ []types.T) (NextRow, error) {
			parts, err := regexpSplit(ctx, "regexp_split_to_table", args[0].(string), args[1].(string), flagsArg(args))
			if err != nil {
				return nil, err
			}
			return valueRows(parts), nil
		}})
}

// regexpSplit returns the pieces of s between the matches of pattern, as
// fn (regexp_split_to_table or regexp_split_to_array) splits it. As in
// PostgreSQL, empty matches at the start or end of s or right after
// another match split nothing, and flag g is refused.
func regexpSplit(ctx *Context, fn, s, pattern, flags string) ([]string, error) {
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
	// ignores anyway; it is faster than regexSearch, which a text long
	// enough to take a while takes instead, for its looks at a cancel.
	// Too many matches or pieces (checkSplitItems) is 54000; the matches
	// past that are not looked for (each costs 40 bytes).
	var matches [][]int
	if len(s) < pollWork {
		matches = re.FindAllStringIndex(s, maxSplitItems+1)
	} else if matches, err = regexSearch(ctx, re, s, 0, maxSplitItems+1); err != nil {
		return nil, err
	}
	if err := checkSplitItems(fn, len(matches)); err != nil {
		return nil, err
	}
	var out []string
	start, prevEnd := 0, 0
	for _, m := range matches {
		if m[0] < len(s) && m[1] > prevEnd {
			out = append(out, s[start:m[0]])
			start = m[1]
		}
		prevEnd = m[1]
	}
	if err := checkSplitItems(fn, len(out)+1); err != nil {
		return nil, err
	}
	return append(out, s[start:]), nil
}
