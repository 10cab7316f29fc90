package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/types"
)

// jsonField finds the member key of the top-level object of the JSON text
// s by scanning it, without building the document: raw is the text of its
// value as it stands in s (for jsonb, whose datums are in normal form,
// that is the value's own jsonb text), the last such member as
// jnode.get finds it. found is false when the object has no member key.
// ok is false when the scan does not answer and the caller must parse:
// s is not an object, a member name has an escape, or s is not valid
// JSON as far as the scan can tell.
//
// `metadata->>'repo' = $1` is in nearly every recall query of an agent:
// parsing each row's document into a tree cost about 2.5 µs per row (1M
// rows of small objects: 2.6 s), the scan a small fraction of that.
func jsonField(s, key string) (raw string, found, ok bool) {
	i := skipJSONSpace(s, 0)
	if i == len(s) || s[i] != '{' {
		return "", false, false
	}
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return "", false, skipJSONSpace(s, i+1) == len(s)
	}
	for {
		if i == len(s) || s[i] != '"' {
			return "", false, false
		}
		end := i + 1
		for end < len(s) && s[end] != '"' && s[end] != '\\' {
			end++
		}
		if end == len(s) || s[end] == '\\' {
			return "", false, false // an escaped name: the parser decodes it
		}
		name := s[i+1 : end]
		i = skipJSONSpace(s, end+1)
		if i == len(s) || s[i] != ':' {
			return "", false, false
		}
		i = skipJSONSpace(s, i+1)
		vend, good := skipJSONValue(s, i)
		if !good {
			return "", false, false
		}
		if name == key {
			raw, found = s[i:vend], true
		}
		i = skipJSONSpace(s, vend)
		switch {
		case i == len(s):
			return "", false, false
		case s[i] == '}':
			return raw, found, skipJSONSpace(s, i+1) == len(s)
		case s[i] != ',':
			return "", false, false
		}
		i = skipJSONSpace(s, i+1)
	}
}

// jsonFieldText is jsonField's raw value as ->> gives it: a string's
// contents (ok false when it has escapes, for the parser to decode), a
// null as SQL NULL (null true), anything else as its text.
func jsonFieldText(raw string) (text string, null, ok bool) {
	switch {
	case raw == "null":
		return "", true, true
	case raw[0] == '"':
		body := raw[1 : len(raw)-1]
		return body, false, strings.IndexByte(body, '\\') < 0
	}
	return raw, false, true
}

// skipJSONSpace returns the position of the first byte at or after i of s
// that is not JSON white space.
func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the end of the JSON value that starts at i of s;
// good is false when none does. Strings are skipped escape by escape and
// containers by counting their brackets, without checking what they hold
// (the datum is valid JSON: the scan only has to find where values end).
func skipJSONValue(s string, i int) (end int, good bool) {
	if i == len(s) {
		return 0, false
	}
	switch s[i] {
	case '"':
		return skipJSONString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				var ok bool
				if i, ok = skipJSONString(s, i); !ok {
					return 0, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	start := i
	for i < len(s) && !endsJSONWord(s[i]) {
		i++
	}
	return i, i > start
}

// endsJSONWord reports whether c ends a number, true, false or null.
func endsJSONWord(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// skipJSONString returns the end of the JSON string that starts at i of s
// (at its opening quote).
func skipJSONString(s string, i int) (end int, good bool) {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// memberKernel is -> (text false) or ->> with a member name over a batch
// of documents (ov the overload, member its scan): each document is
// scanned where it stands in the column, without a datum per row; a row
// the scan does not answer goes through ov.Eval.
func memberKernel(ov *Overload, member func(doc, key string, text bool) (string, bool, bool), text bool) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		b := array.NewStringBuilder(mem(ctx))
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			doc, ok1 := textAt(args[0], i)
			key, ok2 := textAt(args[1], i)
			if !ok1 || !ok2 {
				b.AppendNull()
				continue
			}
			v, null, ok := member(doc, key, text)
			if !ok {
				d, err := ov.Eval(ctx, []any{doc, key})
				if err != nil {
					return nil, err
				}
				v, null = "", d == nil
				if d != nil {
					v = d.(string)
				}
			}
			if null {
				b.AppendNull()
				continue
			}
			if err := types.CheckBatchBytes(b.DataLen(), len(v)); err != nil {
				return nil, err
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	}
}
