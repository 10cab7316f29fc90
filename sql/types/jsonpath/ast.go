package jsonpath

import "github.com/cockroachdb/apd/v3"

// Kind is the kind of a path item, as PostgreSQL's JsonPathItemType.
type Kind uint8

// The path item kinds.
const (
	Null Kind = iota
	String
	Numeric
	Bool
	And
	Or
	Not
	IsUnknown
	Equal
	NotEqual
	Less
	Greater
	LessOrEqual
	GreaterOrEqual
	Add
	Sub
	Mul
	Div
	Mod
	Plus
	Minus
	AnyArray
	AnyKey
	IndexArray
	Any
	Key
	Current
	Root
	Variable
	Filter
	Exists
	Type
	Size
	Abs
	Floor
	Ceiling
	Double
	Datetime
	KeyValue
	Last
	StartsWith
	LikeRegex
)

// LastLevel is the level "last" of .**{...} bounds.
const LastLevel = ^uint32(0)

// Item is one step of a path. Next is the step applied to each of its
// results (the accessor chain).
type Item struct {
	Kind Kind
	// Left and Right are the operands of a binary operator; Left alone is
	// the operand of a unary one, a filter's predicate, exists' path and
	// like_regex's expression.
	Left, Right *Item
	// Str is a key, a string literal, a variable name, a like_regex
	// pattern or a datetime template.
	Str string
	// HasTemplate marks a .datetime() with a template.
	HasTemplate bool
	Num         *apd.Decimal
	Bool        bool
	// Flags are like_regex's flag letters in canonical order (of "ismxq").
	Flags string
	// Subs are an array accessor's subscripts.
	Subs []Subscript
	// First and Last are .**'s level bounds (LastLevel for "last").
	First, Last uint32
	Next        *Item
}

// Subscript is one element of an array accessor: an index, or the range
// From to To.
type Subscript struct {
	From, To *Item // To is nil for a single index
}

// Path is a parsed jsonpath.
type Path struct {
	// Lax is the mode: lax (the default) or strict.
	Lax  bool
	Root *Item
}

// IsPredicate reports whether an item of kind k yields a truth value.
func (k Kind) IsPredicate() bool {
	switch k {
	case And, Or, Not, IsUnknown, Equal, NotEqual, Less, Greater, LessOrEqual, GreaterOrEqual, Exists, StartsWith, LikeRegex:
		return true
	}
	return false
}

// OpName is the operator or method name PostgreSQL's messages use.
func (k Kind) OpName() string {
	switch k {
	case And:
		return "&&"
	case Or:
		return "||"
	case Equal:
		return "=="
	case NotEqual:
		return "!="
	case Less:
		return "<"
	case Greater:
		return ">"
	case LessOrEqual:
		return "<="
	case GreaterOrEqual:
		return ">="
	case Plus, Add:
		return "+"
	case Minus, Sub:
		return "-"
	case Mul:
		return "*"
	case Div:
		return "/"
	case Mod:
		return "%"
	case StartsWith:
		return "starts with"
	case LikeRegex:
		return "like_regex"
	case Type:
		return "type"
	case Size:
		return "size"
	case KeyValue:
		return "keyvalue"
	case Double:
		return "double"
	case Abs:
		return "abs"
	case Floor:
		return "floor"
	case Ceiling:
		return "ceiling"
	case Datetime:
		return "datetime"
	}
	return "?"
}
