package functions

// overlay(string placing replacement from start [for count]), which the
// parser turns into overlay(string, replacement, start [, count]): the
// count characters (bytes for bytea) of string from position start are
// replaced; count defaults to the replacement's length. As in PostgreSQL
// it is substr(string, 1, start-1) || replacement || substr(string,
// start+count), so a negative count repeats part of string, and a result
// over 1GB is 54000 as for ||.

import (
	"math"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	text := func(s, r string, start, count int64) (any, error) {
		if err := checkOverlay(start, count); err != nil {
			return nil, err
		}
		// substr fails only for a negative length, which these are not.
		head, _ := substrText(s, 1, start-1, true)
		tail, _ := substrText(s, start+count, -1, false)
		if err := checkGrow(len(head.(string))+len(r), len(tail.(string))); err != nil {
			return nil, err
		}
		return head.(string) + r + tail.(string), nil
	}
	bytea := func(s, r []byte, start, count int64) (any, error) {
		if err := checkOverlay(start, count); err != nil {
			return nil, err
		}
		head, _ := substrBytes(s, 1, start-1, true) // as for text
		tail, _ := substrBytes(s, start+count, -1, false)
		if err := checkGrow(len(head.([]byte))+len(r), len(tail.([]byte))); err != nil {
			return nil, err
		}
		return append(append(head.([]byte), r...), tail.([]byte)...), nil
	}
	B := types.ByteaT
	Register(
		fn("overlay", targs(tText, tText, tInt4), tText, func(_ *Context, a []any) (any, error) {
			r := a[1].(string)
			return text(a[0].(string), r, a[2].(int64), int64(utf8.RuneCountInString(r)))
		}),
		fn("overlay", targs(tText, tText, tInt4, tInt4), tText, func(_ *Context, a []any) (any, error) {
			return text(a[0].(string), a[1].(string), a[2].(int64), a[3].(int64))
		}),
		fn("overlay", targs(B, B, tInt4), B, func(_ *Context, a []any) (any, error) {
			r := a[1].([]byte)
			return bytea(a[0].([]byte), r, a[2].(int64), int64(len(r)))
		}),
		fn("overlay", targs(B, B, tInt4, tInt4), B, func(_ *Context, a []any) (any, error) {
			return bytea(a[0].([]byte), a[1].([]byte), a[2].(int64), a[3].(int64))
		}),
	)
}

// checkOverlay rejects what PostgreSQL's text_overlay does: a start
// before the first position, and a start + count that leaves int4.
func checkOverlay(start, count int64) error {
	if start <= 0 {
		return pgerr.New(pgerrcode.SubstringError, "negative substring length not allowed")
	}
	if start+count > math.MaxInt32 || start+count < math.MinInt32 {
		return errIntRange("integer")
	}
	return nil
}
