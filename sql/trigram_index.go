package sql

import (
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// trigramOpClass records pg_trgm's operator class of a gin or gist index
// key (gin_trgm_ops, gist_trgm_ops: cairn builds the same trigram index
// for both) in idx, checking it against the access method and the
// column's type t as PostgreSQL does. Other operator classes are left as
// they were.
func trigramOpClass(idx *catalog.IndexDef, opclass string, t types.T, keys int) error {
	var method string
	switch opclass {
	case catalog.OpClassGinTrgm:
		method = "gin"
	case catalog.OpClassGistTrgm:
		method = "gist"
	default:
		return nil
	}
	if idx.Method != method {
		return noOpClass(opclass, idx.Method)
	}
	if t.Family != types.Text && t.Family != types.Varchar {
		t.Mod = -1 // PostgreSQL names the type without its modifier
		return opClassType(opclass, t, false)
	}
	if keys > 1 {
		return pgerr.NotSupported("a multicolumn %s index", opclass)
	}
	idx.OpClass = opclass
	return nil
}
