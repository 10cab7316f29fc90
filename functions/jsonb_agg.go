package functions

// jsonb_agg / json_agg(x): the inputs (NULLs as null) as a JSON array;
// jsonb_object_agg / json_object_agg(key, value): the pairs as an object.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

type jsonAggState struct {
	t     types.T
	jsonb bool
	out   *jnode
	txt   strings.Builder
	n     int
	size  int64 // of the jsonb values kept (the json text counts by its length)
}

// Size implements SizedAggState.
func (s *jsonAggState) Size() int64 { return s.size + int64(s.txt.Cap()) }

func (s *jsonAggState) Step(ctx *Context, a []any) error {
	if s.jsonb {
		j, err := jsonbOf(ctx, a[0], s.t)
		if err != nil {
			return err
		}
		s.out.vals = append(s.out.vals, j)
		s.size += jnodeSize + DatumSize(a[0])
	} else {
		if s.n > 0 {
			s.txt.WriteString(", ")
			// PostgreSQL starts each array or row after the first on a
			// line of its own.
			if a[0] != nil && (s.t.IsArray() || s.t.Family == types.Record) {
				s.txt.WriteString("\n ")
			}
		}
		s.txt.WriteString(jsonOf(ctx, a[0], s.t))
	}
	s.n++
	return nil
}

func (s *jsonAggState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	if s.jsonb {
		return jsonbText(s.out), nil
	}
	return "[" + s.txt.String() + "]", nil
}

type jsonObjectAggState struct {
	kt, vt types.T
	jsonb  bool
	out    *jnode
	txt    strings.Builder
	n      int
	size   int64 // of the jsonb keys and values kept
}

// Size implements SizedAggState.
func (s *jsonObjectAggState) Size() int64 { return s.size + int64(s.txt.Cap()) }

// jnodeSize is about the bytes of one jnode of a jsonb value an aggregate
// keeps, beyond its strings.
const jnodeSize = 112

func (s *jsonObjectAggState) Step(ctx *Context, a []any) error {
	if a[0] == nil {
		return pgerr.New(pgerrcode.InvalidParameterValue, "field name must not be null")
	}
	k, err := jsonKey(ctx, a[0], s.kt, 1)
	if err != nil {
		return err
	}
	if s.jsonb {
		v, err := jsonbOf(ctx, a[1], s.vt)
		if err != nil {
			return err
		}
		s.out.keys = append(s.out.keys, k)
		s.out.vals = append(s.out.vals, v)
		s.size += jnodeSize + int64(len(k)) + DatumSize(a[1])
	} else {
		if s.n > 0 {
			s.txt.WriteString(", ")
		}
		quoteJSON(&s.txt, k)
		s.txt.WriteString(" : ")
		s.txt.WriteString(jsonOf(ctx, a[1], s.vt))
	}
	s.n++
	return nil
}

func (s *jsonObjectAggState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	if s.jsonb {
		return jsonbText(s.out), nil
	}
	return "{ " + s.txt.String() + " }", nil
}

func init() {
	agg := func(name string, res types.T, jsonb bool) *Aggregate {
		return &Aggregate{Name: name, Args: targs(ArgAny), Result: res, NullCall: true,
			New: func(ts []types.T) AggState {
				return &jsonAggState{t: baseType(ts[0]), jsonb: jsonb, out: &jnode{kind: jsonArray}}
			}}
	}
	obj := func(name string, res types.T, jsonb bool) *Aggregate {
		return &Aggregate{Name: name, Args: targs(ArgAnyType, ArgAnyType), Result: res, NullCall: true,
			New: func(ts []types.T) AggState {
				return &jsonObjectAggState{kt: baseType(ts[0]), vt: baseType(ts[1]), jsonb: jsonb, out: &jnode{kind: jsonObject}}
			}}
	}
	RegisterAggregate(
		agg("jsonb_agg", types.JSONBT, true), agg("json_agg", types.JSONT, false),
		obj("jsonb_object_agg", types.JSONBT, true), obj("json_object_agg", types.JSONT, false),
	)
}
