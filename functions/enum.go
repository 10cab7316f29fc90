package functions

// Enum support: the comparison operators on anyenum, which order labels
// by the enum's sort positions rather than bytewise, min and max, and
// enum_first, enum_last and enum_range, which read the enum's labels from
// their argument's type (its value is ignored, NULL as usual).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// enumOf is the enum type of argument i; a call resolved on anyenum
// always has one.
func enumOf(ts []types.T, i int) (*types.EnumType, error) {
	if i < len(ts) && ts[i].Enum != nil {
		return ts[i].Enum, nil
	}
	return nil, pgerr.New(pgerrcode.InternalError, "could not determine actual enum type")
}

func init() {
	for op := opEq; op <= opGe; op++ {
		op := op
		Register(withTypes(&Overload{Name: cmpOpNames[op], Args: targs(ArgAnyEnum, ArgAnyEnum), Result: types.BoolT},
			func(_ *Context, args []any, ts []types.T) (any, error) {
				e, err := enumOf(ts, 0)
				if err != nil {
					return nil, err
				}
				return op.test(types.Compare(args[0], args[1], types.EnumOf(e))), nil
			}))
	}
	for _, f := range []struct {
		name string
		want int
	}{{"min", -1}, {"max", 1}} {
		f := f
		RegisterAggregate(&Aggregate{Name: f.name, Args: targs(ArgAnyEnum),
			ResultFn: func(ts []types.T) types.T { return baseType(ts[0]) },
			New:      func(ts []types.T) AggState { return &minMaxState{t: baseType(ts[0]), want: f.want} }})
	}
	label := func(pick func(e *types.EnumType) int) typedEval {
		return func(_ *Context, _ []any, ts []types.T) (any, error) {
			e, err := enumOf(ts, 0)
			if err != nil {
				return nil, err
			}
			if len(e.Labels) == 0 {
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "enum %s contains no values", e.Name)
			}
			return e.Labels[pick(e)].Label, nil
		}
	}
	sameEnum := func(ts []types.T) types.T { return baseType(ts[0]) }
	enumArray := func(ts []types.T) types.T { return types.ArrayOf(baseType(ts[0]), 1) }
	Register(
		withTypes(&Overload{Name: "enum_first", Args: targs(ArgAnyEnum), ResultFn: sameEnum, NullCall: true, Volatility: Stable},
			label(func(*types.EnumType) int { return 0 })),
		withTypes(&Overload{Name: "enum_last", Args: targs(ArgAnyEnum), ResultFn: sameEnum, NullCall: true, Volatility: Stable},
			label(func(e *types.EnumType) int { return len(e.Labels) - 1 })),
		withTypes(&Overload{Name: "enum_range", Args: targs(ArgAnyEnum), ResultFn: enumArray, NullCall: true, Volatility: Stable},
			func(_ *Context, _ []any, ts []types.T) (any, error) {
				e, err := enumOf(ts, 0)
				if err != nil {
					return nil, err
				}
				return enumRange(e, 0, len(e.Labels)-1), nil
			}),
		withTypes(&Overload{Name: "enum_range", Args: targs(ArgAnyEnum, ArgAnyEnum), ResultFn: enumArray, NullCall: true, Volatility: Stable},
			func(_ *Context, args []any, ts []types.T) (any, error) {
				e, err := enumOf(ts, 0)
				if err != nil {
					return nil, err
				}
				lo, hi := 0, len(e.Labels)-1
				if s, ok := args[0].(string); ok {
					lo = e.Position(s)
				}
				if s, ok := args[1].(string); ok {
					hi = e.Position(s)
				}
				return enumRange(e, lo, hi), nil
			}),
	)
}

// enumRange is the array of e's labels from position lo to hi (empty when
// hi < lo).
func enumRange(e *types.EnumType, lo, hi int) *types.Array {
	var elems []any
	for i := lo; i <= hi && i >= 0; i++ {
		elems = append(elems, e.Labels[i].Label)
	}
	return types.NewArray(types.EnumOf(e), elems...)
}
