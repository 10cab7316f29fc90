package functions

// format(formatstr, any...): %s (text form, NULL as empty), %I (quoted
// identifier), %L (quoted literal, NULL as NULL) and %%, with argument
// positions (%2$s) and widths (%5s, %-5s, %*s). Also quote_ident,
// quote_literal and quote_nullable.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(
		stable(withTypes(&Overload{Name: "format", Args: targs(tText), Result: tText, NullCall: true},
			func(ctx *Context, a []any, ts []types.T) (any, error) { return formatSQL(ctx, a, ts) })),
		stable(withTypes(&Overload{Name: "format", Args: targs(tText, ArgAnyType), Variadic: true, Result: tText, NullCall: true},
			func(ctx *Context, a []any, ts []types.T) (any, error) { return formatSQL(ctx, a, ts) })),
		fn1("quote_ident", tText, tText, func(a any) (any, error) { return quoteIdent(a.(string)) }),
		fn1("quote_literal", tText, tText, func(a any) (any, error) { return quoteLiteral(a.(string)) }),
		&Overload{Name: "quote_nullable", Args: targs(tText), Result: tText, NullCall: true,
			Eval: func(_ *Context, a []any) (any, error) {
				if a[0] == nil {
					return "NULL", nil
				}
				return quoteLiteral(a[0].(string))
			}},
		// quote_literal(anyelement) and quote_nullable(anyelement): the
		// value cast to text, quoted (quote_literal(42) is '42').
		stable(withTypes(&Overload{Name: "quote_literal", Args: targs(ArgAnyType), Result: tText},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				return quoteLiteral(textCast(ctx, a[0], argType(ts, 0, a[0])))
			})),
		stable(withTypes(&Overload{Name: "quote_nullable", Args: targs(ArgAnyType), Result: tText, NullCall: true},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				if a[0] == nil {
					return "NULL", nil
				}
				return quoteLiteral(textCast(ctx, a[0], argType(ts, 0, a[0])))
			})),
	)
}

// textCast is v::text: its output text, except that a boolean casts to
// true or false (its output is t or f).
func textCast(ctx *Context, v any, t types.T) string {
	if b, ok := v.(bool); ok {
		return strconv.FormatBool(b)
	}
	return outputText(ctx, v, t)
}

func errFormat(msg string, args ...any) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidParameterValue, msg, args...)
}

// formatSQL implements format(); a[0] is the format string. As in
// PostgreSQL a result over 1GB is 54000, here before each piece that
// would take it there is added.
func formatSQL(ctx *Context, a []any, ts []types.T) (any, error) {
	if a[0] == nil {
		return nil, nil
	}
	f := a[0].(string)
	args := a[1:]
	next := 0
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			// The run of text up to the next %.
			j := strings.IndexByte(f[i:], '%')
			if j < 0 {
				j = len(f) - i
			}
			if err := checkGrow(b.Len(), j); err != nil {
				return nil, err
			}
			b.WriteString(f[i : i+j])
			i += j - 1
			continue
		}
		i++
		if i >= len(f) {
			return nil, errFormat("unterminated format() type specifier").WithHint(`For a single "%%" use "%%%%".`)
		}
		if f[i] == '%' {
			if err := checkGrow(b.Len(), 1); err != nil {
				return nil, err
			}
			b.WriteByte('%')
			continue
		}
		// [argpos$][flags][width]type
		readNum := func() (int, bool) {
			j := i
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
			if j == i {
				return 0, false
			}
			n, err := strconv.Atoi(f[j:i])
			if err != nil {
				n = 1 << 30
			}
			return n, true
		}
		argPos := -1
		save := i
		if n, ok := readNum(); ok && i < len(f) && f[i] == '$' {
			if n == 0 {
				return nil, errFormat("format specifies argument 0, but arguments are numbered from 1")
			}
			argPos = n - 1
			i++
		} else {
			i = save
		}
		leftAlign := false
		if i < len(f) && f[i] == '-' {
			leftAlign = true
			i++
		}
		width := 0
		if i < len(f) && f[i] == '*' {
			i++
			wi := next
			if n, ok := readNum(); ok {
				if i >= len(f) || f[i] != '$' {
					return nil, errFormat("unterminated format() type specifier")
				}
				if n == 0 {
					return nil, errFormat("format specifies argument 0, but arguments are numbered from 1")
				}
				i++
				// As PostgreSQL: the value's argument, unless given,
				// is the one after the width's.
				wi, next = n-1, n
			} else {
				next++
			}
			if wi >= len(args) {
				return nil, errFormat("too few arguments for format()")
			}
			if args[wi] != nil {
				w, ok := args[wi].(int64)
				if !ok {
					return nil, errFormat("width argument must be an integer")
				}
				width = int(w)
				if width < 0 {
					leftAlign, width = true, -width
				}
			}
		} else if n, ok := readNum(); ok {
			width = n
		}
		if i >= len(f) {
			return nil, errFormat("unterminated format() type specifier").WithHint(`For a single "%%" use "%%%%".`)
		}
		typ := f[i]
		if typ != 's' && typ != 'I' && typ != 'L' {
			return nil, errFormat("unrecognized format() type specifier \"%c\"", typ).WithHint(`For a single "%%" use "%%%%".`)
		}
		ai := argPos
		if ai < 0 {
			ai = next
		}
		next = ai + 1
		if ai >= len(args) {
			return nil, errFormat("too few arguments for format()")
		}
		v := args[ai]
		var s string
		switch {
		case v == nil && typ == 'I':
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "null values cannot be formatted as an SQL identifier")
		case v == nil && typ == 'L':
			s = "NULL"
		case v == nil:
			s = ""
		default:
			s = outputText(ctx, v, argType(ts, ai+1, v))
			var err error
			if typ == 'I' {
				s, err = quoteIdent(s)
			} else if typ == 'L' {
				s, err = quoteLiteral(s)
			}
			if err != nil {
				return nil, err
			}
		}
		pad := max(width-utf8.RuneCountInString(s), 0)
		if err := checkGrow(b.Len(), len(s)+pad); err != nil {
			return nil, err
		}
		if !leftAlign {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteString(s)
		if leftAlign {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	return b.String(), nil
}

// quoteLiteral quotes a string literal, as E'...' when it has a backslash.
// A result over 1GB is 54000, found before it is built.
func quoteLiteral(s string) (string, error) {
	n := int64(len(s)) + 2 + int64(strings.Count(s, "'"))
	if k := strings.Count(s, `\`); k > 0 {
		n += 1 + int64(k)
	}
	if n > int64(maxAlloc) {
		return "", errTooLarge()
	}
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`), nil
	}
	return q, nil
}

// quoteIdent is ident.Quote with a result over 1GB 54000, found before it
// is built.
func quoteIdent(s string) (string, error) {
	if int64(len(s))+2+int64(strings.Count(s, `"`)) > int64(maxAlloc) {
		return "", errTooLarge()
	}
	return ident.Quote(s), nil
}
