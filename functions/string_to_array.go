package functions

// string_to_array(text, delimiter [, null_string]) -> text[]. A NULL
// delimiter splits into characters, an empty one yields the whole string;
// fields equal to null_string become NULL.

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	f := func(ctx *Context, args []any) (any, error) {
		a, err := stringToArray(ctx, "string_to_array", args)
		if a == nil || err != nil {
			return nil, err
		}
		return a, nil
	}
	Register(
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT}, Result: textArrayT, NullCall: true, Eval: f},
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT, types.TextT}, Result: textArrayT, NullCall: true, Eval: f},
	)
}

// stringToArray is string_to_array(args...) (for fn, which errors name),
// nil when the string is NULL. A cancel stops the cutting of a long one
// (poller).
// The fields are counted before any is cut out: too many (checkSplitItems)
// is 54000, not gigabytes of fields built first (a 600 MB string of 300M
// fields took a server's 23 GB).
func stringToArray(ctx *Context, fn string, args []any) (*types.Array, error) {
	if args[0] == nil {
		return nil, nil
	}
	s := args[0].(string)
	n := 1
	switch {
	case s == "":
		return &types.Array{Elem: types.TextT}, nil
	case args[1] == nil:
		n = utf8.RuneCountInString(s)
	case args[1].(string) != "":
		n = strings.Count(s, args[1].(string)) + 1
	}
	if err := checkSplitItems(fn, n); err != nil {
		return nil, err
	}
	var null *string
	if len(args) > 2 && args[2] != nil {
		ns := args[2].(string)
		null = &ns
	}
	elems := make([]any, 0, n)
	poll := ctx.poller()
	add := func(p string) error {
		if null != nil && p == *null {
			elems = append(elems, nil)
		} else {
			elems = append(elems, p)
		}
		return poll.add(len(p) + itemWork)
	}
	switch {
	case args[1] == nil:
		for len(s) > 0 {
			_, w := utf8.DecodeRuneInString(s)
			if err := add(s[:w]); err != nil {
				return nil, err
			}
			s = s[w:]
		}
	case args[1].(string) == "":
		add(s) // one field: nothing long to stop
	default:
		for sep := args[1].(string); ; {
			k := strings.Index(s, sep)
			if k < 0 {
				add(s) // the last field: the work is done
				break
			}
			if err := add(s[:k]); err != nil {
				return nil, err
			}
			s = s[k+len(sep):]
		}
	}
	return &types.Array{Elem: types.TextT, Dims: []int{len(elems)}, Elems: elems}, nil
}
