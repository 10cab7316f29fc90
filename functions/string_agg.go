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
	v := asBytes(a[0])
	if s.any && a[1] != nil {
		sep := asBytes(a[1])
		if err := checkGrow(len(s.buf), len(sep)+len(v)); err != nil {
			return err
		}
		s.buf = append(s.buf, sep...)
	} else if err := checkGrow(len(s.buf), len(v)); err != nil {
		return err
	}
	s.buf = append(s.buf, v...)
	s.any = true
	return nil
}

func asBytes(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte(v.(string))
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
