package sql

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// generationClause names a generation expression in the binder's errors
// ("aggregate functions are not allowed in column generation expressions").
const generationClause = "column generation expressions"

// checkGenerated checks the generation expressions of def's generated
// columns as PostgreSQL does when the table is created: each binds against
// the table's columns, reads no other generated column, calls only
// immutable functions and uses no subquery, aggregate, window function or
// set-returning function. Those at position from on, the ones being
// defined, also cast only as PostgreSQL marks immutable (castImmutable):
// a column defined before cairn refused the others keeps being written.
func (b *Binder) checkGenerated(def *catalog.TableDef, from int) error {
	for pos, col := range def.Columns {
		if col.Generated == "" {
			continue
		}
		e, err := b.generationExpr(def, pos)
		if err != nil {
			return err
		}
		if pos < from {
			continue
		}
		WalkExpr(e, func(x Expr) {
			if c, ok := x.(*Cast); ok && !castImmutable(c.Arg.Type(), c.To) && !isLiteral(c.Arg) && err == nil {
				err = pgerr.New(pgerrcode.InvalidObjectDefinition, "generation expression is not immutable")
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// generationExpr binds the generation expression of column pos of def,
// over a row of the table's columns (ColumnRef i is column position i),
// and checks it (see checkGenerated).
func (b *Binder) generationExpr(def *catalog.TableDef, pos int) (Expr, error) {
	col := def.Columns[pos]
	n, err := ParseExpr(col.Default)
	if err != nil {
		return nil, err
	}
	saved := b.clause
	b.clause = generationClause
	e, err := b.bindExpr(&scope{cols: tableCols(def, def.Name)}, n)
	b.clause = saved
	if err != nil {
		return nil, err
	}
	var bad error
	WalkExpr(e, func(x Expr) {
		if bad != nil {
			return
		}
		switch x := x.(type) {
		case *ColumnRef:
			if x.Index >= 0 && x.Index < len(def.Columns) && def.Columns[x.Index].Generated != "" {
				bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "cannot use generated column \"%s\" in column generation expression", def.Columns[x.Index].Name).
					WithDetail("A generated column cannot reference another generated column.")
			}
		case *Call:
			if x.Overload != nil && x.Overload.Volatility != functions.Immutable {
				bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "generation expression is not immutable")
			}
		case *NextVal:
			bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "generation expression is not immutable")
		case *Subquery: // one bindSubLink let through, within CASE say
			bad = pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in column generation expression")
		}
	})
	if bad != nil {
		return nil, bad
	}
	out, err := b.coerce(e, col.Type, castAssignment)
	if err == nil {
		return out, nil
	}
	if pe := pgerr.From(err); pe.Code == pgerrcode.DatatypeMismatch || pe.Code == pgerrcode.CannotCoerce {
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "column \"%s\" is of type %s but default expression is of type %s", col.Name, col.Type, e.Type()).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return nil, err
}

// generatedExprs binds the generation expressions of def's generated
// columns (position -> expression over the table's row); nil when it has
// none. Every write computes them from the row it is about to store.
func (b *Binder) generatedExprs(def *catalog.TableDef) (map[int]Expr, error) {
	var gen map[int]Expr
	for pos, col := range def.Columns {
		if col.Generated == "" {
			continue
		}
		e, err := b.generationExpr(def, pos)
		if err != nil {
			return nil, err
		}
		if gen == nil {
			gen = map[int]Expr{}
		}
		gen[pos] = e
	}
	return gen, nil
}

// generatedValue refuses a value given explicitly to a generated column
// col by INSERT (or MERGE's INSERT): only DEFAULT may be written there.
func generatedValue(col catalog.ColumnDef) error {
	if col.Generated == "" {
		return nil
	}
	return pgerr.New(pgerrcode.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", col.Name).
		WithDetail("Column \"%s\" is a generated column.", col.Name)
}

// BindGenerated binds the generation expressions of def's generated
// columns (see generatedExprs), for a write exec makes without a bound
// statement: a foreign key's ON DELETE / ON UPDATE action.
func BindGenerated(cat *catalog.Catalog, def *catalog.TableDef) (map[int]Expr, error) {
	b := tableExprBinder(cat, def)
	return b.generatedExprs(def)
}
