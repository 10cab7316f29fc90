package functions

// obj_description(oid [, catalog_name]), col_description(table_oid,
// column_number) and shobj_description(oid, catalog_name): the comment on
// an object, which psql's \d+ and \dt+ and drivers' REMARKS columns show.
// cairn keeps no comments (there is no COMMENT ON), so they are always
// NULL.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	none := func(*Context, []any) (any, error) { return nil, nil }
	Register(
		fn("obj_description", targs(types.OidT), tText, none),
		fn("obj_description", targs(types.OidT, types.NameT), tText, none),
		fn("col_description", targs(types.OidT, tInt4), tText, none),
		fn("shobj_description", targs(types.OidT, types.NameT), tText, none),
	)
}
