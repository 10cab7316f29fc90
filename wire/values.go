package wire

// values.go is the only file that calls package types' value codecs, so a
// change of their names or signatures touches nothing else in wire.

import (
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgproto3/v2"
)

// textOptions are the session settings text input and output depend on,
// read afresh for each statement (SET TimeZone changes them).
func (c *conn) textOptions() *types.TextOptions {
	return &types.TextOptions{Location: c.sess.Location(), Now: time.Now()}
}

// parseText decodes a text-format parameter value of type t.
func parseText(s string, t types.T, opts *types.TextOptions) (any, error) {
	return types.ParseTextOpts(s, t, opts)
}

// decodeBinary decodes a binary-format parameter value of type t.
func decodeBinary(raw []byte, t types.T) (any, error) {
	return types.DecodeBinary(raw, t)
}

// appendValue appends the encoding of the non-NULL value at row i of arr,
// of SQL type t, in the given format. Embeddings (a list<float32> column
// of type real[] or vector) are encoded straight from the Arrow buffers.
func appendValue(dst []byte, arr arrow.Array, i int, t types.T, format int16, opts *types.TextOptions) ([]byte, error) {
	if isFloat32List(arr, t) {
		if format == pgproto3.BinaryFormat {
			return types.AppendFloat32ListBinary(dst, arr, i, t)
		}
		return types.AppendFloat32ListText(dst, arr, i, t)
	}
	v := types.ValueAt(arr, i, t)
	if format == pgproto3.BinaryFormat {
		return types.EncodeBinary(dst, v, t)
	}
	return types.AppendText(dst, v, t, opts), nil
}

// isFloat32List reports whether the fast path for embeddings applies: a
// 1-D real[] or a vector held as an Arrow list<float32>.
func isFloat32List(arr arrow.Array, t types.T) bool {
	if t.Family != types.Vector && !(t.Family == types.ArrayFamily && t.Elem != nil && t.Elem.Family == types.Float4 && t.Dims <= 1) {
		return false
	}
	lt, ok := arr.DataType().(*arrow.ListType)
	return ok && lt.Elem().ID() == arrow.FLOAT32
}
