package functions

// string_agg(value, delimiter) on text and bytea: the non-NULL values
// joined, each after the first preceded by its own row's delimiter (a
// NULL delimiter adds nothing).

import (
	"github.com/cairn-db/cairn/sql/types"
)

type stringAggState struct {
	buf   []byte
	any   bool
	bytea bool
}

func (s *stringAggState) Step(_ *Context, a []any) error {
	if a[0] == nil {
		return nil
	}
	sep := a[1]
	if !s.any {
		sep = nil
	}
	if err := checkGrow(len(s.buf), datumLen(sep)+datumLen(a[0])); err != nil {
		return err
	}
	s.buf = appendDatum(appendDatum(s.buf, sep), a[0])
	s.any = true
	return nil
}

// datumLen is the length of v, a text or bytea datum (0 for NULL).
func datumLen(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []byte:
		return len(v)
	}
	return 0
}

// appendDatum appends v, a text or bytea datum (nothing for NULL), to
// dst, without converting a string to a []byte first (a copy per row).
func appendDatum(dst []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return append(dst, v...)
	case []byte:
		return append(dst, v...)
	}
	return dst
}

// Size implements SizedAggState.
func (s *stringAggState) Size() int64 { return int64(cap(s.buf)) }

func (s *stringAggState) Result(_ *Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	if s.bytea {
		return append([]byte(nil), s.buf...), nil
	}
	return string(s.buf), nil
}

func init() {
	RegisterAggregate(
		&Aggregate{Name: "string_agg", Args: targs(tText, tText), Result: tText, NullCall: true,
			New: func([]types.T) AggState { return &stringAggState{} }},
		&Aggregate{Name: "string_agg", Args: targs(types.ByteaT, types.ByteaT), Result: types.ByteaT, NullCall: true,
			New: func([]types.T) AggState { return &stringAggState{bytea: true} }},
	)
}
