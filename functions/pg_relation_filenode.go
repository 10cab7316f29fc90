package functions

// pg_relation_filenode(regclass) and pg_relation_filepath(regclass): the
// file node of a relation and its path under the data directory, which
// monitoring tools and pgAdmin show. cairn stores a table in Parquet
// segments of its own layout, not in PostgreSQL's relation files, so the
// file node is the relation's OID (pg_class.relfilenode says the same)
// and the path is where PostgreSQL would keep it: base/<database
// OID>/<file node>. Both are NULL for an OID no relation has, as in
// PostgreSQL.

import (
	"strconv"

	"github.com/cairn-db/cairn/sql/types"
)

// DatabaseOID is the OID of cairn's one database (pg_database.oid).
const DatabaseOID = 16384 - 1

func init() {
	Register(allStable(
		fn("pg_relation_filenode", targs(regclassT), types.OidT, func(ctx *Context, a []any) (any, error) {
			if !relationExists(ctx, a[0].(int64)) {
				return nil, nil
			}
			return a[0].(int64), nil
		}),
		fn("pg_relation_filepath", targs(regclassT), tText, func(ctx *Context, a []any) (any, error) {
			if !relationExists(ctx, a[0].(int64)) {
				return nil, nil
			}
			return "base/" + strconv.Itoa(DatabaseOID) + "/" + strconv.FormatInt(a[0].(int64), 10), nil
		}),
	)...)
}
