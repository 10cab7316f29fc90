package functions

// jsonb_pretty(jsonb): the value indented by four spaces per level, one
// element or field per line.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(fn1("jsonb_pretty", types.JSONBT, tText, func(a any) (any, error) {
		j, err := parseJSON(a.(string))
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		writePretty(&b, j, 0)
		return b.String(), nil
	}))
}

func writePretty(b *strings.Builder, j *jnode, level int) {
	indent := func(n int) { b.WriteString(strings.Repeat("    ", n)) }
	switch j.kind {
	case jsonObject:
		keys, vals := canonObject(j)
		b.WriteString("{\n")
		for i, k := range keys {
			indent(level + 1)
			quoteJSON(b, k)
			b.WriteString(": ")
			writePretty(b, vals[i], level+1)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(level)
		b.WriteByte('}')
	case jsonArray:
		b.WriteString("[\n")
		for i, v := range j.vals {
			indent(level + 1)
			writePretty(b, v, level+1)
			if i < len(j.vals)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(level)
		b.WriteByte(']')
	default:
		writeJSONB(b, j)
	}
}
