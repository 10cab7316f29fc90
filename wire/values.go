package wire

// values.go is the only file that calls package types' value codecs, so a
// change of their names or signatures touches nothing else in wire.

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgproto3/v2"
)

// textOptions are the session settings text input and output depend on
// (TimeZone, DateStyle, extra_float_digits), read afresh for each
// statement (SET changes them).
func (c *conn) textOptions() *types.TextOptions {
	return c.sess.TextOptions()
}

// outputOptions are the session settings text output follows (TimeZone,
// DateStyle, extra_float_digits), shared until they change: the caller
// reads them only.
func (c *conn) outputOptions() *types.TextOptions {
	return c.sess.OutputOptions()
}

// checkText verifies that text from the client (a query, a name) is
// valid UTF-8 without NUL bytes; otherwise it is 22021 naming the bytes,
// as PostgreSQL reports it. The common case costs one pass of
// utf8.ValidString and one of IndexByte.
func checkText(s string) error {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	return types.CheckText([]byte(s))
}

// checkTextBytes is checkText for a parameter value.
func checkTextBytes(b []byte) error {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return nil
	}
	return types.CheckText(b)
}

// parseText decodes a text-format parameter value of type t.
func parseText(s string, t types.T, opts *types.TextOptions) (any, error) {
	return types.ParseTextOpts(s, t, opts)
}

// decodeBinary decodes a binary-format parameter value of type t. A
// one-dimensional real[] without NULLs (an embedding) comes back as a
// []float32, read without boxing each element (see exec.Runtime.Params).
func decodeBinary(raw []byte, t types.T) (any, error) {
	if t.Family == types.ArrayFamily && t.Elem != nil && t.Elem.Family == types.Float4 && t.Domain == "" {
		if xs, ok := types.ReceiveFloat4s(nil, raw); ok {
			return xs, nil
		}
	}
	return types.DecodeBinary(raw, t)
}

// isNull reports whether row i of arr is NULL (an untyped NULL's Arrow
// null array included).
func isNull(arr arrow.Array, i int) bool { return types.IsNullAt(arr, i) }

// appendValue appends the encoding of the non-NULL value at row i of arr,
// of SQL type t, in the given format. Embeddings (a list<float32> column
// of type real[] or vector) are encoded straight from the Arrow buffers.
func appendValue(dst []byte, arr arrow.Array, i int, t types.T, format int16, opts *types.TextOptions) ([]byte, error) {
	if format == pgproto3.BinaryFormat {
		return types.AppendBinaryAt(dst, arr, i, t)
	}
	return types.AppendTextAt(dst, arr, i, t, opts)
}
