package types

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// typeName is the name PostgreSQL's input functions use in their error
// messages ("integer", "double precision", "timestamp with time zone").
func typeName(t T) string {
	switch t.Family {
	case Char:
		return "character"
	case Varchar:
		return "character varying"
	case Vector:
		return "vector"
	case ArrayFamily:
		return t.Elem.String() + "[]"
	}
	t.Mod = -1
	t.Domain = ""
	return t.String()
}

// errSyntax is 22P02 invalid input syntax for type X: "s".
func errSyntax(t T, s string) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typeName(t), s)
}

// errRange is 22003 value "s" is out of range for type X.
func errRange(t T, s string) *pgerr.Error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, typeName(t))
}

// errInsufficient is the 08P01 error for binary input that ends early.
func errInsufficient() *pgerr.Error {
	return pgerr.New(pgerrcode.ProtocolViolation, "insufficient data left in message")
}

// errBinaryFormat is the 22P03 error for malformed binary input.
func errBinaryFormat() *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidBinaryRepresentation, "incorrect binary data format")
}

func errBinaryMsg(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidBinaryRepresentation, format, args...)
}
