package functions

// parse_ident(qualified_identifier [, strict]): splits a qualified SQL
// identifier into its parts, as Grafana does with a table name it was
// given. Unquoted parts are lower-cased (ASCII letters only, as for UTF8
// identifiers), quoted ones keep their case with "" read as ". With
// strict (the default) nothing may follow the last part; without it the
// rest is ignored. PostgreSQL's parse_ident in utils/adt/misc.c.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	res := types.ArrayOf(tText, 1)
	Register(
		fn("parse_ident", targs(tText), res, func(_ *Context, a []any) (any, error) {
			return parseIdent(a[0].(string), true)
		}),
		fn("parse_ident", targs(tText, tBool), res, func(_ *Context, a []any) (any, error) {
			return parseIdent(a[0].(string), a[1].(bool))
		}),
	)
}

// parseIdent is parse_ident: the parts of s as a text[].
func parseIdent(s string, strict bool) (any, error) {
	invalid := func(detail string) error {
		e := pgerr.New(pgerrcode.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s)
		if detail != "" {
			e = e.WithDetail("%s", detail)
		}
		return e
	}
	var parts []any
	i := skipScannerSpace(s, 0)
	afterDot := false
	for {
		switch {
		case i < len(s) && s[i] == '"':
			var b strings.Builder
			for i++; ; i++ {
				if i >= len(s) {
					return nil, invalid("String has unclosed double quotes.")
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						i++
					} else {
						break
					}
				}
				b.WriteByte(s[i])
			}
			i++
			if b.Len() == 0 {
				return nil, invalid("Quoted identifier must not be empty.")
			}
			parts = append(parts, b.String())
		case i < len(s) && isIdentStart(s[i]):
			start := i
			for i++; i < len(s) && isIdentCont(s[i]); i++ {
			}
			parts = append(parts, asciiLower(s[start:i]))
		case i < len(s) && s[i] == '.':
			return nil, invalid("No valid identifier before \".\".")
		case afterDot:
			return nil, invalid("No valid identifier after \".\".")
		default:
			return nil, invalid("")
		}
		i = skipScannerSpace(s, i)
		switch {
		case i < len(s) && s[i] == '.':
			afterDot = true
			i = skipScannerSpace(s, i+1)
		case i == len(s):
			return types.NewArray(tText, parts...), nil
		case strict:
			return nil, invalid("")
		default:
			return types.NewArray(tText, parts...), nil
		}
	}
}

// skipScannerSpace skips the white space SQL's scanner skips, from s[i].
func skipScannerSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\r\f", s[i]) >= 0 {
		i++
	}
	return i
}

// isIdentStart reports whether c may start an unquoted identifier (any
// byte of a multibyte character may).
func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// isIdentCont reports whether c may continue an unquoted identifier.
func isIdentCont(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}

// asciiLower lower-cases the ASCII letters of s, as identifiers are
// down-cased in a multibyte encoding.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
