package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// Storage enforces a unique index on an expression, on keys mixing
// columns and expressions, or a partial one (catalog.IndexDef.ComputedKey)
// as any other unique rule, on a key it asks this package to compute: the
// index's keys over the row, NULL where its predicate does not hold
// (sql.IndexKeyExprs); and names those keys in its errors as this package
// prints them.
func init() {
	storage.ComputeIndexKey = computeIndexKey
	storage.IndexKeyNames = indexKeyNames
}

// indexKeyNames is storage.IndexKeyNames: ix's keys as PostgreSQL's
// BuildIndexValueDescription names them (pg_get_indexdef_columns, pretty):
// a column key by its name, an expression by ruleutils' text of it, in
// parentheses unless it is a function call; the stored text where that
// cannot be printed.
func indexKeyNames(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef) string {
	expr := func(stored string) string {
		text, err := sql.RuleText(cat, stored, syscat.ExprContext{Table: def, Pretty: true})
		if err != nil {
			return stored
		}
		return syscat.IndexExprText(text)
	}
	column := func(id int) string {
		if _, c := def.ColumnByID(id); c != nil {
			return c.Name
		}
		return fmt.Sprintf("column %d", id)
	}
	var names []string
	switch {
	case ix.Expr != "":
		names = append(names, expr(ix.Expr))
	case len(ix.Keys) > 0:
		for _, k := range ix.Keys {
			if k.Expr != "" {
				names = append(names, expr(k.Expr))
			} else {
				names = append(names, column(k.Column))
			}
		}
	default:
		for _, id := range ix.Columns {
			names = append(names, column(id))
		}
	}
	return strings.Join(names, ", ")
}

// computeIndexKey is storage.ComputeIndexKey: it evaluates ix's key over
// the rows of a batch whose columns cols have the IDs colIDs, laid out as
// def's columns (those the batch lacks, which the key does not read, as
// NULLs). The functions of an index key are immutable, so no session's
// settings enter it.
func computeIndexKey(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef, colIDs []int, cols []arrow.Array) ([]arrow.Array, error) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	arrs := make([]arrow.Array, len(def.Columns))
	for i, c := range def.Columns {
		if j := slices.Index(colIDs, c.ID); j >= 0 {
			arrs[i] = cols[j]
			continue
		}
		arrs[i] = array.MakeArrayOfNull(memory.DefaultAllocator, c.Type.Arrow(), n)
		defer arrs[i].Release()
	}
	rec := tableRecord(def, arrs, int64(n))
	defer rec.Release()
	keys, _, err := indexKeys(cat, def, ix, rec)
	return keys, err
}

// indexKeys evaluates the key of ix over the rows of rec (def's columns):
// its arrays and their types.
func indexKeys(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef, rec arrow.Record) ([]arrow.Array, []types.T, error) {
	exprs, err := sql.IndexKeyExprs(cat, def, ix)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]arrow.Array, len(exprs))
	ts := make([]types.T, len(exprs))
	for i, e := range exprs {
		if keys[i], err = Eval(context.Background(), &Runtime{}, e, rec); err != nil {
			return nil, nil, err
		}
		ts[i] = e.Type()
	}
	return keys, ts, nil
}
