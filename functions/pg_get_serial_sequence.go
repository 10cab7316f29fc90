package functions

// pg_get_serial_sequence(table, column): the schema-qualified name of the
// sequence a serial column draws its default from, or NULL for a column
// without one. SQLAlchemy's column reflection calls it. table is read as
// a regclass name (lower-cased unless quoted), column as written. It asks
// the catalog through SerialSequencer; without one, NULL.

// SerialSequencer is the optional part of a Catalog that
// pg_get_serial_sequence asks (sql/syscat's View has it): the sequence
// name, ok false for a column without one, or the error for a table or
// column that does not exist. Like Catalog it is read-only and safe for
// concurrent use.
type SerialSequencer interface {
	SerialSequence(table, column string) (seq string, ok bool, err error)
}

func init() {
	Register(allStable(fn("pg_get_serial_sequence", targs(tText, tText), tText, func(ctx *Context, a []any) (any, error) {
		if ctx == nil {
			return nil, nil
		}
		c, isSeq := ctx.Catalog.(SerialSequencer)
		if !isSeq {
			return nil, nil
		}
		seq, ok, err := c.SerialSequence(a[0].(string), a[1].(string))
		if err != nil || !ok {
			return nil, err
		}
		return seq, nil
	}))...)
}
