package sql

// Plans the session runs for its own work on a table's existing rows, when
// ALTER TABLE adds a constraint or a column: they are built here as plans,
// never as SQL text to parse again. The binder's catalog is the one the
// ALTER TABLE's transaction sees, its search path the session's (a
// DEFAULT's nextval('seq') resolves as it does in INSERT).

import (
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CheckViolations is a plan of at most one row of def that breaks the
// CHECK constraint check (its condition is false; NULL passes).
func (b *Binder) CheckViolations(def *catalog.TableDef, check catalog.CheckDef) (Node, error) {
	n, err := ParseExpr(check.Expr)
	if err != nil {
		return nil, err
	}
	cond, err := b.bindCondition(&scope{cols: tableCols(def, def.Name)}, n, "CHECK")
	if err != nil {
		return nil, err
	}
	return firstRow(&Filter{Input: tableScan(def, false), Cond: &BoolOp{Op: Not, Args: []Expr{cond}}}), nil
}

// IndexKeys is a plan of the key of the index on an expression or
// partial index ix for every row of def (IndexKeyExprs): CREATE INDEX
// computes them all, as PostgreSQL does when it builds the index, so a
// row the expression or predicate fails on fails it.
func (b *Binder) IndexKeys(def *catalog.TableDef, ix *catalog.IndexDef) (Node, error) {
	keys, err := IndexKeyExprs(b.Catalog, def, ix)
	if err != nil {
		return nil, err
	}
	out := make([]Col, len(keys))
	for i, e := range keys {
		out[i] = Col{Name: "key", T: e.Type()}
	}
	return &Project{Input: tableScan(def, false), Exprs: keys, Out: out}, nil
}

// NullViolations is a plan of at most one row of def whose column at
// position pos is NULL (SET NOT NULL on a column that has them fails).
func NullViolations(def *catalog.TableDef, pos int) Node {
	return firstRow(&Filter{Input: tableScan(def, false), Cond: &IsNull{Arg: columnRef(def, pos, 0)}})
}

// TooLongValues is a plan of at most one row of def whose column at
// position pos holds more than n characters (ALTER COLUMN ... TYPE
// varchar(n) checks that none does).
func (b *Binder) TooLongValues(def *catalog.TableDef, pos, n int) (Node, error) {
	length, err := b.bindCall("char_length", []Expr{columnRef(def, pos, 0)}, nil)
	if err != nil {
		return nil, err
	}
	cond, err := b.bindOperator(">", length, &Const{Value: int64(n), T: types.Int4T})
	if err != nil {
		return nil, err
	}
	return firstRow(&Filter{Input: tableScan(def, false), Cond: cond}), nil
}

// OrphanRows is a plan of at most one row of def whose foreign key fk has
// no referenced row; rows with a NULL in the key are exempt (with MATCH
// FULL only those whose key is all NULL: a mix is a violation). The key is
// matched by an anti join with "=" of each column pair, as the
// constraint's checks on new rows compare them.
func (b *Binder) OrphanRows(def *catalog.TableDef, fk catalog.ForeignKeyDef) (Node, error) {
	ref := b.Catalog.TableByID(fk.RefTable)
	if fk.RefTable == def.ID {
		ref = def
	}
	// A concurrent transaction may have dropped the referenced table or
	// a key column since the statement was bound.
	changed := pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update").WithHint("Retry the statement.")
	if ref == nil {
		return nil, changed
	}
	for i, id := range fk.Columns {
		if _, c := def.ColumnByID(id); c == nil {
			return nil, changed
		}
		if _, c := ref.ColumnByID(fk.RefColumns[i]); c == nil {
			return nil, changed
		}
	}
	left := tableScan(def, false)
	right := tableScan(ref, false)
	nLeft := len(def.Columns)
	var notNull, match []Expr
	for i, id := range fk.Columns {
		pos, _ := def.ColumnByID(id)
		refPos, _ := ref.ColumnByID(fk.RefColumns[i])
		notNull = append(notNull, &IsNull{Arg: columnRef(def, pos, 0), Negate: true})
		eq, err := b.bindOperator("=", columnRef(def, pos, 0), columnRef(ref, refPos, nLeft))
		if err != nil {
			return nil, err
		}
		match = append(match, eq)
	}
	checked := andAll(notNull)
	if fk.MatchFull && len(notNull) > 1 {
		checked = &BoolOp{Op: Or, Args: notNull}
	}
	j := &Join{Kind: AntiJoin, Left: &Filter{Input: left, Cond: checked}, Right: right, Cond: andAll(match), Out: left.Out}
	splitEquiJoin(j, nLeft)
	return firstRow(j), nil
}

// FillColumns is an UPDATE of every row of def that sets the columns at
// positions to their DEFAULTs (columns added with one hold it in the rows
// already there), or computes them for generated columns. The columns an
// ALTER adds are filled in one UPDATE: one at a time, a row would still
// lack the others' values, which a NOT NULL among them refuses.
func (b *Binder) FillColumns(def *catalog.TableDef, positions []int) (Node, error) {
	set := map[int]Expr{}
	for _, pos := range positions {
		value, err := b.columnDefault(def, pos)
		if err != nil {
			return nil, err
		}
		set[pos] = value
	}
	gen, err := b.generatedExprs(def)
	if err != nil {
		return nil, err
	}
	return &Update{Table: def, Input: tableScan(def, true), Set: set, Gen: gen, Fill: true}, nil
}

// InsertRows is the INSERT of CREATE TABLE AS: the rows of query (bound
// with the statement, one visible column per column of def, cast to it)
// into def, the table the statement created.
func InsertRows(def *catalog.TableDef, query Node) *Insert {
	return &Insert{Table: def, Input: query}
}

// tableScan reads every column of def, and its row ID last when withRowID.
func tableScan(def *catalog.TableDef, withRowID bool) *Scan {
	scan := &Scan{Table: def, Alias: def.Name, WithRowID: withRowID, Out: tableCols(def, def.Name)}
	for i := range def.Columns {
		scan.Cols = append(scan.Cols, i)
	}
	if withRowID {
		scan.Out = append(scan.Out, Col{Name: catalog.RowIDColumn, T: types.Int8T, Table: def.Name, Hidden: true})
	}
	return scan
}

// columnRef refers to the column at position pos of def, in a row where
// def's columns start at offset.
func columnRef(def *catalog.TableDef, pos, offset int) *ColumnRef {
	return &ColumnRef{Index: offset + pos, Name: def.Columns[pos].Name, T: def.Columns[pos].Type}
}

// firstRow limits plan to one row.
func firstRow(plan Node) Node {
	return &Limit{Input: plan, Count: &Const{Value: int64(1), T: types.Int8T}}
}

// transformClause names a USING expression of ALTER COLUMN ... TYPE in
// the binder's errors ("aggregate functions are not allowed in transform
// expressions").
const transformClause = "transform expressions"

// rewriteExpr is the new value of the column at position pos of def
// when ALTER COLUMN ... TYPE to rewrites it: using (the USING
// expression, nil for the column itself) over def's row, cast to to as a
// value assigned to the column is (42804 where no such cast exists, in
// PostgreSQL's words).
func (b *Binder) rewriteExpr(def *catalog.TableDef, pos int, to types.T, using *pg_query.Node) (Expr, error) {
	name := def.Columns[pos].Name
	var e Expr = columnRef(def, pos, 0)
	if using != nil {
		if hasSubLink(using) {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in transform expression")
		}
		saved := b.clause
		b.clause = transformClause
		var err error
		e, err = b.bindExpr(&scope{cols: tableCols(def, def.Name)}, using)
		b.clause = saved
		if err != nil {
			return nil, err
		}
	}
	out, err := b.coerce(e, to, castAssignment)
	if code := pgerr.Code(err); code == pgerrcode.DatatypeMismatch || code == pgerrcode.CannotCoerce {
		if using != nil {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "result of USING clause for column \"%s\" cannot be cast automatically to type %s", name, to).
				WithHint("You might need to add an explicit cast.")
		}
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", name, to).
			WithHint("You might need to specify \"USING %s::%s\".", ident.Quote(name), to)
	}
	return out, err
}

// ColumnRewrite is a column ALTER COLUMN ... TYPE rewrites: the
// positions in the table of the column (From) and of the new column its
// values go to (To), and the USING expression's text ("" for none; see
// rewriteExpr).
type ColumnRewrite struct {
	From, To int
	Using    string
}

// RewriteColumns is an UPDATE of every row of def that sets the new
// column of each rewrite to the old one's value as its USING makes it,
// and the columns at positions fill, which the same ALTER adds, to their
// DEFAULTs (FillColumns): one UPDATE, so that each row it writes has
// every value the NOT NULLs among them want.
func (b *Binder) RewriteColumns(def *catalog.TableDef, rewrites []ColumnRewrite, fill []int) (Node, error) {
	plan, err := b.FillColumns(def, fill)
	if err != nil {
		return nil, err
	}
	update := plan.(*Update)
	for _, r := range rewrites {
		var n *pg_query.Node
		if r.Using != "" {
			if n, err = ParseExpr(r.Using); err != nil {
				return nil, err
			}
		}
		if update.Set[r.To], err = b.rewriteExpr(def, r.From, def.Columns[r.To].Type, n); err != nil {
			return nil, err
		}
	}
	return update, nil
}

// CheckDefault binds the DEFAULT of the column at position pos of def as
// an INSERT would: ALTER COLUMN ... TYPE checks that it still makes a
// value of the column's new type.
func (b *Binder) CheckDefault(def *catalog.TableDef, pos int) error {
	_, err := b.columnDefault(def, pos)
	return err
}
