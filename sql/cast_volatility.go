package sql

import "github.com/cairn-db/cairn/sql/types"

// castImmutable reports whether PostgreSQL marks the cast of from to to
// immutable, as an index key or predicate and a generated column need
// (indexExprColumns, generated columns): the casts between timestamptz
// and the zoneless date and time types read TimeZone, and a cast through
// text of a date, time or interval type reads DateStyle or IntervalStyle,
// of an object identifier alias the catalog (pg_cast's and the types'
// input and output functions are stable). An index key over one of them
// would hold the value the storage's own settings give, not the
// session's.
func castImmutable(from, to types.T) bool {
	if from.IsArray() && to.IsArray() && from.Elem != nil && to.Elem != nil {
		return castImmutable(*from.Elem, *to.Elem)
	}
	if from.IsArray() && from.Elem != nil && to.IsString() {
		return castImmutable(*from.Elem, to)
	}
	if to.IsArray() && to.Elem != nil && from.IsString() {
		return castImmutable(from, *to.Elem)
	}
	switch {
	case from.Family == to.Family:
		return true
	case to.Family == types.TimestampTZ:
		return from.Family != types.DateFamily && from.Family != types.TimestampFamily && !from.IsString()
	case from.Family == types.TimestampTZ:
		return to.Family != types.DateFamily && to.Family != types.Time && to.Family != types.TimestampFamily && !to.IsString()
	case to.IsString():
		return !stableText(from.Family)
	case from.IsString():
		return !stableText(to.Family) && to.Family != types.Time
	}
	return true
}

// stableText reports whether the text form of a type's values depends on
// a setting or the catalog both ways (its input and output functions are
// stable in PostgreSQL); time's input reads the date part only, its
// output is immutable.
func stableText(f types.Family) bool {
	switch f {
	case types.DateFamily, types.TimestampFamily, types.TimestampTZ, types.Interval,
		types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		return true
	}
	return false
}

// isLiteral reports whether e is a constant: PostgreSQL converts a
// literal to the type it is cast to as it parses, calling no function at
// run time, so that cast needs no volatility of its own.
func isLiteral(e Expr) bool {
	_, ok := e.(*Const)
	return ok
}
