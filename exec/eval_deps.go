package exec

// This file is the one place exec calls the value helpers of package types
// and the cast of package functions, so that a change in their signatures
// is fixed here only.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// valueAt returns row i of arr as a datum of type t (nil for NULL).
func valueAt(arr arrow.Array, i int, t types.T) any { return types.ValueAt(arr, i, t) }

// appendValue appends the datum v of type t to b (nil appends NULL).
func appendValue(b array.Builder, v any, t types.T) error { return types.AppendValue(b, v, t) }

// newBuilder returns a builder for a column of type t.
func newBuilder(mem memory.Allocator, t types.T) array.Builder { return types.NewBuilder(mem, t) }

// compareValues orders two non-NULL datums of type t.
func compareValues(a, b any, t types.T) int { return types.Compare(a, b, t) }

// keyBytes appends an equality-preserving encoding of the non-NULL datum v.
func keyBytes(dst []byte, v any, t types.T) []byte { return types.KeyBytes(dst, v, t) }

// castValue converts a datum as CAST does (explicit) or as an implicit or
// assignment coercion does.
func castValue(fn *functions.Context, v any, from, to types.T, explicit bool) (any, error) {
	return functions.Cast(fn, v, from, to, explicit)
}

// nextVal draws the next value of a sequence: through the transaction
// when there is one (a sequence it created counts inside it), else from
// the database.
func nextVal(rt *Runtime, schema, name string) (v int64, err error) {
	if err := sequenceWritable(rt, schema, "nextval()"); err != nil {
		return 0, err
	}
	switch {
	case rt.Tx != nil:
		v, err = rt.Tx.NextVal(schema, name)
	case rt.DB == nil:
		return 0, internalErr("nextval without a database")
	default:
		v, err = rt.DB.NextVal(schema, name)
	}
	if err == nil {
		rt.Seqs.record(schema, name, v)
	}
	return v, err
}

// setVal is setval: through the transaction when there is one, as nextVal.
func setVal(rt *Runtime, schema, name string, v int64, called bool) error {
	if err := sequenceWritable(rt, schema, "setval()"); err != nil {
		return err
	}
	switch {
	case rt.Tx != nil:
		return rt.Tx.SetVal(schema, name, v, called)
	case rt.DB == nil:
		return internalErr("setval without a database")
	}
	return rt.DB.SetVal(schema, name, v, called)
}

// sequenceWritable refuses fn (nextval(), setval()) on a sequence of
// schema in a read-only transaction, unless the sequence is temporary.
func sequenceWritable(rt *Runtime, schema, fn string) error {
	if rt == nil || !rt.ReadOnly || catalog.IsTempSchema(schema) {
		return nil
	}
	return pgerr.New(pgerrcode.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", fn)
}

// sequenceState reads a sequence's (last_value, is_called).
func sequenceState(rt *Runtime, schema, name string) (int64, bool, error) {
	switch {
	case rt.Tx != nil:
		return rt.Tx.SequenceState(schema, name)
	case rt.DB == nil:
		return 0, false, internalErr("a sequence's state without a database")
	}
	return rt.DB.SequenceState(schema, name)
}

// scanTable opens a scan of a table's columns (plus the row ID).
func scanTable(ctx context.Context, tx *storage.Tx, tableID uint64, cols []int, withRowID bool) (array.RecordReader, error) {
	return tx.Scan(ctx, tableID, cols, withRowID)
}

// isNullAt reports whether row i of arr is NULL (an Arrow null array's
// rows included).
func isNullAt(arr arrow.Array, i int) bool { return types.IsNullAt(arr, i) }

// appendTextAt appends the text output of the non-NULL value at row i of
// arr, of type t.
func appendTextAt(dst []byte, arr arrow.Array, i int, t types.T, opts *types.TextOptions) ([]byte, error) {
	return types.AppendTextAt(dst, arr, i, t, opts)
}

// appendBinaryAt appends the binary format of the non-NULL value at row i
// of arr, of type t.
func appendBinaryAt(dst []byte, arr arrow.Array, i int, t types.T) ([]byte, error) {
	return types.AppendBinaryAt(dst, arr, i, t)
}

// receiveBinary reads a value of type t in binary format as PostgreSQL's
// receive function with the type modifier does (an over-long varchar(n)
// value is an error).
func receiveBinary(raw []byte, t types.T) (any, error) {
	v, err := types.DecodeBinary(raw, t)
	if err != nil {
		return nil, err
	}
	return types.ApplyTypmod(v, t, false)
}

// checkText verifies that text input is valid UTF-8 without NUL bytes.
func checkText(b []byte) error { return types.CheckText(b) }
