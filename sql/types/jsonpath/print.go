package jsonpath

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/types/jsonstr"
)

// This file prints a path as PostgreSQL's jsonpath_out does
// (printJsonPathItem).

// String is the path's canonical text.
func (p *Path) String() string {
	var b strings.Builder
	if !p.Lax {
		b.WriteString("strict ")
	}
	printItem(&b, p.Root, false, true)
	return b.String()
}

// priority is an operator's binding strength (operationPriority).
func priority(k Kind) int {
	switch k {
	case Or:
		return 0
	case And:
		return 1
	case Equal, NotEqual, Less, Greater, LessOrEqual, GreaterOrEqual, StartsWith:
		return 2
	case Add, Sub:
		return 3
	case Mul, Div, Mod:
		return 4
	case Plus, Minus:
		return 5
	}
	return 6
}

// quoteString writes s as a JSON string literal (escape_json).
func quoteString(b *strings.Builder, s string) {
	b.Write(jsonstr.Append(nil, s))
}

func printItem(b *strings.Builder, it *Item, inKey, brackets bool) {
	switch it.Kind {
	case And, Or, Equal, NotEqual, Less, Greater, LessOrEqual, GreaterOrEqual, Add, Sub, Mul, Div, Mod, StartsWith:
		if brackets {
			b.WriteByte('(')
		}
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		b.WriteByte(' ')
		b.WriteString(it.Kind.OpName())
		b.WriteByte(' ')
		printItem(b, it.Right, false, priority(it.Right.Kind) <= priority(it.Kind))
		if brackets {
			b.WriteByte(')')
		}
	case LikeRegex:
		if brackets {
			b.WriteByte('(')
		}
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		b.WriteString(" like_regex ")
		quoteString(b, it.Str)
		if it.Flags != "" {
			b.WriteString(` flag "`)
			b.WriteString(it.Flags)
			b.WriteByte('"')
		}
		if brackets {
			b.WriteByte(')')
		}
	case Plus, Minus:
		if brackets {
			b.WriteByte('(')
		}
		b.WriteString(it.Kind.OpName())
		printItem(b, it.Left, false, priority(it.Left.Kind) <= priority(it.Kind))
		if brackets {
			b.WriteByte(')')
		}
	case Filter:
		b.WriteString("?(")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case Not:
		b.WriteString("!(")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case IsUnknown:
		b.WriteByte('(')
		printItem(b, it.Left, false, false)
		b.WriteString(") is unknown")
	case Exists:
		b.WriteString("exists (")
		printItem(b, it.Left, false, false)
		b.WriteByte(')')
	case Current:
		b.WriteByte('@')
	case Root:
		b.WriteByte('$')
	case Variable:
		b.WriteByte('$')
		quoteString(b, it.Str)
	case Last:
		b.WriteString("last")
	case AnyArray:
		b.WriteString("[*]")
	case AnyKey:
		if inKey {
			b.WriteByte('.')
		}
		b.WriteByte('*')
	case IndexArray:
		b.WriteByte('[')
		for i, s := range it.Subs {
			if i > 0 {
				b.WriteByte(',')
			}
			printItem(b, s.From, false, false)
			if s.To != nil {
				b.WriteString(" to ")
				printItem(b, s.To, false, false)
			}
		}
		b.WriteByte(']')
	case Any:
		if inKey {
			b.WriteByte('.')
		}
		level := func(n uint32) string {
			if n == LastLevel {
				return "last"
			}
			return strconv.FormatUint(uint64(n), 10)
		}
		switch {
		case it.First == 0 && it.Last == LastLevel:
			b.WriteString("**")
		case it.First == it.Last:
			b.WriteString("**{" + level(it.First) + "}")
		default:
			b.WriteString("**{" + level(it.First) + " to " + level(it.Last) + "}")
		}
	case Key:
		if inKey {
			b.WriteByte('.')
		}
		quoteString(b, it.Str)
	case String:
		quoteString(b, it.Str)
	case Numeric:
		if it.Next != nil {
			b.WriteByte('(')
		}
		b.WriteString(it.Num.Text('f'))
		if it.Next != nil {
			b.WriteByte(')')
		}
	case Bool:
		if it.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Null:
		b.WriteString("null")
	case Type, Size, Abs, Floor, Ceiling, Double, KeyValue:
		b.WriteString("." + it.Kind.OpName() + "()")
	case Datetime:
		b.WriteString(".datetime(")
		if it.HasTemplate {
			quoteString(b, it.Str)
		}
		b.WriteByte(')')
	}
	if it.Next != nil {
		printItem(b, it.Next, true, true)
	}
}
