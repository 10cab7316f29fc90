package functions

// jsonb_strip_nulls / json_strip_nulls: drop object fields whose value is
// null, at every depth (array elements stay).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(
		fn1("jsonb_strip_nulls", types.JSONBT, types.JSONBT, func(a any) (any, error) {
			j, err := parseJSON(a.(string))
			if err != nil {
				return nil, err
			}
			return jsonbText(stripNulls(j)), nil
		}),
		fn1("json_strip_nulls", types.JSONT, types.JSONT, func(a any) (any, error) {
			j, err := parseJSON(a.(string))
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			writeCompactJSON(&b, stripNulls(j))
			return b.String(), nil
		}),
	)
}

func stripNulls(j *jnode) *jnode {
	switch j.kind {
	case jsonObject:
		out := &jnode{kind: jsonObject}
		for i, k := range j.keys {
			if j.vals[i].kind == jsonNull {
				continue
			}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, stripNulls(j.vals[i]))
		}
		return out
	case jsonArray:
		out := &jnode{kind: jsonArray}
		for _, v := range j.vals {
			out.vals = append(out.vals, stripNulls(v))
		}
		return out
	}
	return j
}

// writeCompactJSON writes json without whitespace, keys in written order,
// scalars as written.
func writeCompactJSON(b *strings.Builder, j *jnode) {
	switch j.kind {
	case jsonObject:
		b.WriteByte('{')
		for i, k := range j.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			quoteJSON(b, k)
			b.WriteByte(':')
			writeCompactJSON(b, j.vals[i])
		}
		b.WriteByte('}')
	case jsonArray:
		b.WriteByte('[')
		for i, v := range j.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompactJSON(b, v)
		}
		b.WriteByte(']')
	default:
		b.WriteString(jsonRaw(j))
	}
}
