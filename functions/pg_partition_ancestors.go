package functions

// pg_partition_ancestors(regclass): the relation and its ancestors in a
// partition tree. cairn has no partitioned tables, so a relation is its
// only ancestor.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	regclass := types.T{Family: types.RegClass, Mod: -1}
	RegisterSetReturning(&SetReturning{Name: "pg_partition_ancestors",
		Type: oneArg(regclass, types.Field{Name: "relid", T: regclass}),
		Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
			return valueRows(args[:1]), nil
		}})
}
