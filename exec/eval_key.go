package exec

// Hash keys: the byte encoding of one or more values that GROUP BY,
// DISTINCT, set operations, hash joins and IN lists use to find equal
// values. NULL is encoded as a value of its own (GROUP BY and DISTINCT treat
// NULLs as equal; joins and IN check for NULL before hashing). Every value
// is self-delimiting so that keys of several columns can be concatenated.
// Integers of every width share one encoding, as do floats and the string
// types, so that keys of int4 and int8 columns compare equal.

import (
	"encoding/binary"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql/types"
)

const (
	keyNull  = 0
	keyValue = 1
)

// keyClass groups the types whose values share a key encoding.
type keyClass uint8

const (
	classOther keyClass = iota
	classInt
	classFloat
	classString
	classBool
)

func keyClassOf(t types.T) keyClass {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8, types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		return classInt
	case types.Float4, types.Float8:
		return classFloat
	case types.Text, types.Varchar, types.Name, types.Char, types.InternalChar:
		return classString
	case types.Bool:
		return classBool
	}
	return classOther
}

func appendIntKey(dst []byte, i int64) []byte {
	dst = append(dst, keyValue)
	return binary.BigEndian.AppendUint64(dst, uint64(i))
}

func appendFloatKey(dst []byte, f float64) []byte {
	dst = append(dst, keyValue)
	return binary.BigEndian.AppendUint64(dst, types.FloatKeyBits(f))
}

func appendStringKey(dst []byte, s string, t types.T) []byte {
	if t.Family == types.Char {
		s = strings.TrimRight(s, " ")
	}
	dst = append(dst, keyValue)
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func toInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	case int:
		return int64(v), true
	case uint32:
		return int64(v), true
	}
	return 0, false
}

// appendDatumKey appends the key of the datum v of type t.
func appendDatumKey(dst []byte, v any, t types.T) []byte {
	if v == nil {
		return append(dst, keyNull)
	}
	switch keyClassOf(t) {
	case classInt:
		if i, ok := toInt64(v); ok {
			return appendIntKey(dst, i)
		}
	case classFloat:
		switch f := v.(type) {
		case float64:
			return appendFloatKey(dst, f)
		case float32:
			return appendFloatKey(dst, float64(f))
		}
	case classString:
		if s, ok := v.(string); ok {
			return appendStringKey(dst, s, t)
		}
	case classBool:
		if b, ok := v.(bool); ok {
			if b {
				return append(dst, keyValue, 1)
			}
			return append(dst, keyValue, 0)
		}
	}
	dst = append(dst, keyValue)
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = keyBytes(dst, v, t)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// appendColKey appends the key of row i of arr (of type t), reading common
// layouts directly.
func appendColKey(dst []byte, arr arrow.Array, i int, t types.T) []byte {
	if arr.IsNull(i) {
		return append(dst, keyNull)
	}
	switch a := arr.(type) {
	case *array.Int64:
		return appendIntKey(dst, a.Value(i))
	case *array.Int32:
		return appendIntKey(dst, int64(a.Value(i)))
	case *array.Int16:
		return appendIntKey(dst, int64(a.Value(i)))
	case *array.Uint32:
		return appendIntKey(dst, int64(a.Value(i)))
	case *array.Float64:
		return appendFloatKey(dst, a.Value(i))
	case *array.Float32:
		return appendFloatKey(dst, float64(a.Value(i)))
	case *array.String:
		if keyClassOf(t) == classString {
			return appendStringKey(dst, a.Value(i), t)
		}
	case *array.Boolean:
		if a.Value(i) {
			return append(dst, keyValue, 1)
		}
		return append(dst, keyValue, 0)
	}
	return appendDatumKey(dst, valueAt(arr, i, t), t)
}

// appendVecKey appends the key of row i of v.
func appendVecKey(dst []byte, v vec, i int) []byte {
	if v.arr == nil {
		return appendDatumKey(dst, v.c, v.t)
	}
	return appendColKey(dst, v.arr, i, v.t)
}
