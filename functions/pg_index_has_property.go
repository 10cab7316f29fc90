package functions

// pg_indexam_has_property(am_oid, prop), pg_index_has_property(index,
// prop) and pg_index_column_has_property(index, column, prop): what an
// index access method, an index and one of its key columns can do, which
// psql's \d of an index, pgAdmin and DBeaver read. The answers are those
// of PostgreSQL 15's access methods (amutils.c over each method's
// IndexAmRoutine) and pgvector's for hnsw and ivfflat, which cairn's
// deeplake_index shares. A property the function does not know, an OID
// naming no index (or access method) and a column number outside the
// index give NULL, as in PostgreSQL.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// IndexCatalog is the optional part of a Context.Catalog that the
// property functions read (sql/syscat's View).
type IndexCatalog interface {
	// IndexKeys is the access method of the index with OID oid and,
	// for each key column, whether it sorts descending and whether NULLs
	// sort first; ok is false when no index has the OID.
	IndexKeys(oid int64) (method string, desc, nullsFirst []bool, ok bool)
	// AccessMethodName is the name of the access method with OID oid.
	AccessMethodName(oid int64) (string, bool)
}

// amCaps are an index access method's capabilities, as its
// IndexAmRoutine declares them.
type amCaps struct {
	canOrder, canOrderByOp, canBackward, canUnique, canMultiCol, searchArray,
	searchNulls, clusterable, canInclude, getTuple, getBitmap, canReturn bool
}

// accessMethodCaps are the capabilities of the index access methods
// cairn lists in pg_am.
var accessMethodCaps = map[string]amCaps{
	"btree": {canOrder: true, canBackward: true, canUnique: true, canMultiCol: true, searchArray: true, searchNulls: true,
		clusterable: true, canInclude: true, getTuple: true, getBitmap: true, canReturn: true},
	"hash":           {canBackward: true, getTuple: true, getBitmap: true},
	"gist":           {canOrderByOp: true, canMultiCol: true, searchNulls: true, clusterable: true, canInclude: true, getTuple: true, getBitmap: true},
	"gin":            {canMultiCol: true, getBitmap: true},
	"brin":           {canMultiCol: true, searchNulls: true, getBitmap: true},
	"hnsw":           {canOrderByOp: true, getTuple: true},
	"ivfflat":        {canOrderByOp: true, getTuple: true},
	"deeplake_index": {canOrderByOp: true, getTuple: true},
}

// indexCatalog is ctx's catalog as an IndexCatalog, nil when it is none.
func indexCatalog(ctx *Context) IndexCatalog {
	if ctx == nil || ctx.Catalog == nil {
		return nil
	}
	ic, _ := ctx.Catalog.(IndexCatalog)
	return ic
}

func init() {
	Register(allStable(
		fn("pg_indexam_has_property", targs(types.OidT, tText), tBool, func(ctx *Context, a []any) (any, error) {
			ic := indexCatalog(ctx)
			if ic == nil {
				return nil, nil
			}
			name, ok := ic.AccessMethodName(a[0].(int64))
			caps, isIndexAM := accessMethodCaps[name]
			if !ok || !isIndexAM {
				return nil, nil
			}
			switch strings.ToLower(a[1].(string)) {
			case "can_order":
				return caps.canOrder, nil
			case "can_unique":
				return caps.canUnique, nil
			case "can_multi_col":
				return caps.canMultiCol, nil
			case "can_exclude":
				return caps.getTuple, nil
			case "can_include":
				return caps.canInclude, nil
			}
			return nil, nil
		}),
		fn("pg_index_has_property", targs(regclassT, tText), tBool, func(ctx *Context, a []any) (any, error) {
			caps, _, _, ok := indexCaps(ctx, a[0].(int64))
			if !ok {
				return nil, nil
			}
			switch strings.ToLower(a[1].(string)) {
			case "clusterable":
				return caps.clusterable, nil
			case "index_scan":
				return caps.getTuple, nil
			case "bitmap_scan":
				return caps.getBitmap, nil
			case "backward_scan":
				return caps.canBackward, nil
			}
			return nil, nil
		}),
		fn("pg_index_column_has_property", targs(regclassT, tInt4, tText), tBool, func(ctx *Context, a []any) (any, error) {
			caps, desc, nullsFirst, ok := indexCaps(ctx, a[0].(int64))
			col := int(a[1].(int64))
			if !ok || col < 1 || col > len(desc) {
				return nil, nil
			}
			d, nf := desc[col-1], nullsFirst[col-1]
			switch strings.ToLower(a[2].(string)) {
			case "asc":
				return caps.canOrder && !d, nil
			case "desc":
				return caps.canOrder && d, nil
			case "nulls_first":
				return caps.canOrder && nf, nil
			case "nulls_last":
				return caps.canOrder && !nf, nil
			case "orderable":
				return caps.canOrder, nil
			case "distance_orderable":
				return caps.canOrderByOp, nil
			case "returnable":
				return caps.canReturn, nil
			case "search_array":
				return caps.searchArray, nil
			case "search_nulls":
				return caps.searchNulls, nil
			}
			return nil, nil
		}),
	)...)
}

// indexCaps are the capabilities of the access method of the index with
// OID oid and its key columns' order; ok is false when no index has the
// OID.
func indexCaps(ctx *Context, oid int64) (caps amCaps, desc, nullsFirst []bool, ok bool) {
	ic := indexCatalog(ctx)
	if ic == nil {
		return amCaps{}, nil, nil, false
	}
	method, desc, nullsFirst, ok := ic.IndexKeys(oid)
	if !ok {
		return amCaps{}, nil, nil, false
	}
	caps, ok = accessMethodCaps[method]
	return caps, desc, nullsFirst, ok
}
