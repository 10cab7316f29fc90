package functions

// to_regclass, to_regtype, to_regproc, to_regnamespace and to_regrole:
// a name's OID as the reg* type's input gives it, but NULL instead of an
// error when no object has the name, so that drivers and tools can probe
// for a table or type. Unlike the input functions they take no numeric
// OID (nor "-"), which also gives NULL. Names are looked up in
// Context.Catalog; without one, NULL.

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	reg := func(name string, f types.Family) *Overload {
		return fn(name, targs(tText), types.T{Family: f, Mod: -1}, func(ctx *Context, a []any) (any, error) {
			text := strings.TrimSpace(a[0].(string))
			if _, err := strconv.ParseInt(text, 10, 64); err == nil || text == "-" || ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			oid, err := ctx.Catalog.Lookup(f, text)
			if err != nil {
				switch pgerr.From(err).Code {
				case pgerrcode.UndefinedTable, pgerrcode.UndefinedObject, pgerrcode.UndefinedFunction, pgerrcode.InvalidSchemaName:
					return nil, nil
				}
				return nil, err
			}
			return oid, nil
		})
	}
	Register(allStable(
		reg("to_regclass", types.RegClass),
		reg("to_regtype", types.RegType),
		reg("to_regproc", types.RegProc),
		reg("to_regnamespace", types.RegNamespace),
		reg("to_regrole", types.RegRole),
	)...)
}
