package exec

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// materialized is an operator over records already computed (the
// RETURNING rows of a data-modifying statement).
type materialized struct {
	schema *arrow.Schema
	recs   []arrow.Record
	next   int
}

func newMaterialized(cols []sql.Col) *materialized {
	return &materialized{schema: schemaOf(cols)}
}

func (m *materialized) Schema() *arrow.Schema { return m.schema }

func (m *materialized) Next(context.Context) (arrow.Record, error) {
	if m.next >= len(m.recs) {
		return nil, io.EOF
	}
	m.next++
	return m.recs[m.next-1], nil
}

func (m *materialized) Close() {
	for _, r := range m.recs {
		r.Release()
	}
	m.recs = nil
}

// addReturning evaluates RETURNING expressions over rec (table columns)
// and keeps the result.
func (m *materialized) addReturning(rt *Runtime, exprs []sql.Expr, rec arrow.Record) error {
	if len(exprs) == 0 || rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		a, err := Eval(rt, e, rec)
		if err != nil {
			releaseAll(cols[:i])
			return err
		}
		cols[i] = a
	}
	m.recs = append(m.recs, array.NewRecord(m.schema, cols, rec.NumRows()))
	releaseAll(cols)
	return nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// runDML runs INSERT, UPDATE or DELETE in rt.Tx and returns the RETURNING
// rows and the command tag.
func runDML(ctx context.Context, rt *Runtime, n sql.Node) (*materialized, string, error) {
	out := newMaterialized(n.Columns())
	var tag string
	var err error
	switch x := n.(type) {
	case *sql.Insert:
		tag, err = runInsert(ctx, rt, x, out)
	case *sql.Update:
		tag, err = runUpdate(ctx, rt, x, out)
	case *sql.Delete:
		tag, err = runDelete(ctx, rt, x, out)
	}
	if err != nil {
		out.Close()
		return nil, "", err
	}
	return out, tag, nil
}

// tableRecord re-labels a batch whose columns are the table's columns with
// the table's schema (storage matches columns by position and type).
func tableRecord(def *storage.TableDef, cols []arrow.Array, n int64) arrow.Record {
	return array.NewRecord(tableSchema(def), cols, n)
}

func tableSchema(def *storage.TableDef) *arrow.Schema {
	fields := make([]arrow.Field, len(def.Columns))
	for i, c := range def.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// constraints holds the checks of one table, bound once per statement.
type constraints struct {
	def    *storage.TableDef
	checks []boundCheck
	fks    []*fkCheck
}

type boundCheck struct {
	name string
	cond sql.Expr
}

func newConstraints(rt *Runtime, def *storage.TableDef) (*constraints, error) {
	c := &constraints{def: def}
	cat := rt.Tx.Catalog()
	for _, chk := range def.Checks {
		cond, err := sql.BindTableExpr(cat, def, chk.Expr)
		if err != nil {
			return nil, err
		}
		c.checks = append(c.checks, boundCheck{name: chk.Name, cond: cond})
	}
	for i := range def.ForeignKeys {
		c.fks = append(c.fks, &fkCheck{fk: &def.ForeignKeys[i], child: def})
	}
	return c, nil
}

// verify enforces NOT NULL, CHECK, domain and FOREIGN KEY constraints on a
// batch of new rows.
func (c *constraints) verify(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	for i, col := range c.def.Columns {
		arr := rec.Column(i)
		if col.NotNull && arr.NullN() > 0 {
			row := firstNull(arr)
			return pgerr.New(pgerrcode.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", col.Name, c.def.Name).
				WithDetail("Failing row contains %s.", rowText(c.def, rec, row))
		}
		if col.Type.Domain == "EMBEDDING" {
			if err := checkEmbedding1D(arr, col); err != nil {
				return err
			}
		}
	}
	for _, chk := range c.checks {
		res, err := Eval(rt, chk.cond, rec)
		if err != nil {
			return err
		}
		b := res.(*array.Boolean)
		for r := 0; r < b.Len(); r++ {
			if b.IsValid(r) && !b.Value(r) {
				res.Release()
				return pgerr.New(pgerrcode.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", c.def.Name, chk.name).
					WithDetail("Failing row contains %s.", rowText(c.def, rec, r))
			}
		}
		res.Release()
	}
	for _, fk := range c.fks {
		if err := fk.verifyChild(ctx, rt, rec); err != nil {
			return err
		}
	}
	return nil
}

// checkEmbedding1D rejects 2-D values in an EMBEDDING column (a domain
// over 1-D real[]).
func checkEmbedding1D(arr arrow.Array, col storage.ColumnDef) error {
	for r := 0; r < arr.Len(); r++ {
		if arr.IsNull(r) {
			continue
		}
		if a, ok := types.ValueAt(arr, r, col.Type).(*types.Array); ok && len(a.Dims) > 1 {
			return pgerr.New(pgerrcode.CheckViolation, "value for domain embedding violates check constraint \"embedding_check\"")
		}
	}
	return nil
}

func firstNull(arr arrow.Array) int {
	for r := 0; r < arr.Len(); r++ {
		if arr.IsNull(r) {
			return r
		}
	}
	return 0
}

// rowText renders a row as PostgreSQL's "Failing row contains (...)".
func rowText(def *storage.TableDef, rec arrow.Record, row int) string {
	parts := make([]string, len(def.Columns))
	for i, col := range def.Columns {
		v := types.ValueAt(rec.Column(i), row, col.Type)
		if v == nil {
			parts[i] = "null"
		} else {
			parts[i] = types.FormatText(v, col.Type)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func runInsert(ctx context.Context, rt *Runtime, n *sql.Insert, out *materialized) (string, error) {
	cons, err := newConstraints(rt, n.Table)
	if err != nil {
		return "", err
	}
	op, err := Build(rt, n.Input)
	if err != nil {
		return "", err
	}
	var count int64
	err = Drain(ctx, op, func(in arrow.Record) error {
		rec := tableRecord(n.Table, in.Columns(), in.NumRows())
		defer rec.Release()
		if err := cons.verify(ctx, rt, rec); err != nil {
			return err
		}
		if n.OnConflict != nil {
			inserted, err := insertOnConflict(ctx, rt, n, cons, rec, out)
			count += inserted
			return err
		}
		if err := rt.Tx.Insert(n.Table.ID, rec); err != nil {
			return err
		}
		count += rec.NumRows()
		return out.addReturning(rt, n.Returning, rec)
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("INSERT 0 %d", count), nil
}

// insertOnConflict inserts row by row, resolving unique conflicts on the
// ON CONFLICT target by skipping (DO NOTHING) or updating the existing row
// (DO UPDATE).
func insertOnConflict(ctx context.Context, rt *Runtime, n *sql.Insert, cons *constraints, rec arrow.Record, out *materialized) (int64, error) {
	var count int64
	for r := int64(0); r < rec.NumRows(); r++ {
		row := rec.NewSlice(r, r+1)
		err := rt.Tx.Insert(n.Table.ID, row)
		if err == nil {
			count++
			err = out.addReturning(rt, n.Returning, row)
			row.Release()
			if err != nil {
				return count, err
			}
			continue
		}
		if pgerr.Code(err) != pgerrcode.UniqueViolation || !conflictMatches(n, err) {
			row.Release()
			return count, err
		}
		if !n.OnConflict.DoUpdate {
			row.Release()
			continue
		}
		updated, err := upsertRow(ctx, rt, n, cons, row, out)
		row.Release()
		if err != nil {
			return count, err
		}
		count += updated
	}
	return count, nil
}

// conflictMatches reports whether a unique violation is on the ON
// CONFLICT target (any constraint when there is no target).
func conflictMatches(n *sql.Insert, err error) bool {
	oc := n.OnConflict
	if len(oc.Columns) == 0 {
		return true
	}
	msg := pgerr.From(err).Message
	ids := map[int]bool{}
	for _, p := range oc.Columns {
		ids[n.Table.Columns[p].ID] = true
	}
	for _, u := range n.Table.Uniques {
		if len(u.Columns) != len(ids) {
			continue
		}
		all := true
		for _, c := range u.Columns {
			all = all && ids[c]
		}
		if all && strings.Contains(msg, `"`+u.Name+`"`) {
			return true
		}
	}
	return false
}

// upsertRow applies DO UPDATE SET to the existing row that conflicts with
// the proposed row.
func upsertRow(ctx context.Context, rt *Runtime, n *sql.Insert, cons *constraints, proposed arrow.Record, out *materialized) (int64, error) {
	existing, rowID, err := findConflictingRow(ctx, rt, n, proposed)
	if err != nil {
		return 0, err
	}
	defer existing.Release()
	// SET expressions see the existing row followed by EXCLUDED.
	both := make([]arrow.Array, 0, 2*len(n.Table.Columns))
	both = append(both, existing.Columns()...)
	both = append(both, proposed.Columns()...)
	fields := append(append([]arrow.Field{}, tableSchema(n.Table).Fields()...), tableSchema(n.Table).Fields()...)
	in := array.NewRecord(arrow.NewSchema(fields, nil), both, 1)
	defer in.Release()
	if n.OnConflict.Where != nil {
		ok, err := Eval(rt, n.OnConflict.Where, in)
		if err != nil {
			return 0, err
		}
		b := ok.(*array.Boolean)
		pass := b.IsValid(0) && b.Value(0)
		ok.Release()
		if !pass {
			return 0, nil
		}
	}
	cols := make([]arrow.Array, len(n.Table.Columns))
	for pos := range n.Table.Columns {
		if e, ok := n.OnConflict.Set[pos]; ok {
			a, err := Eval(rt, e, in)
			if err != nil {
				releaseAll(cols)
				return 0, err
			}
			cols[pos] = a
		} else {
			cols[pos] = existing.Column(pos)
			cols[pos].Retain()
		}
	}
	newRow := tableRecord(n.Table, cols, 1)
	releaseAll(cols)
	defer newRow.Release()
	if err := cons.verify(ctx, rt, newRow); err != nil {
		return 0, err
	}
	if err := rt.Tx.Delete(n.Table.ID, []int64{rowID}); err != nil {
		return 0, err
	}
	if err := rt.Tx.Insert(n.Table.ID, newRow); err != nil {
		return 0, err
	}
	return 1, out.addReturning(rt, n.Returning, newRow)
}

// findConflictingRow scans the table for the row whose conflict-target
// columns equal the proposed row's.
func findConflictingRow(ctx context.Context, rt *Runtime, n *sql.Insert, proposed arrow.Record) (arrow.Record, int64, error) {
	target := n.OnConflict.Columns
	want := make([][]byte, len(target))
	for i, p := range target {
		want[i] = types.KeyBytes(nil, types.ValueAt(proposed.Column(p), 0, n.Table.Columns[p].Type), n.Table.Columns[p].Type)
	}
	all := make([]int, len(n.Table.Columns))
	for i := range all {
		all[i] = i
	}
	rr, err := rt.Tx.Scan(ctx, n.Table.ID, all, true)
	if err != nil {
		return nil, 0, err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			match := true
			for i, p := range target {
				got := types.KeyBytes(nil, types.ValueAt(rec.Column(p), r, n.Table.Columns[p].Type), n.Table.Columns[p].Type)
				if string(got) != string(want[i]) {
					match = false
					break
				}
			}
			if match {
				rowID := rec.Column(len(all)).(*array.Int64).Value(r)
				row := rec.NewSlice(int64(r), int64(r+1))
				cols := row.Columns()[:len(all)]
				out := tableRecord(n.Table, cols, 1)
				row.Release()
				return out, rowID, nil
			}
		}
	}
	if err := rr.Err(); err != nil {
		return nil, 0, err
	}
	return nil, 0, pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update")
}

// pendingWrite is one batch of an UPDATE: the rows to delete and their
// replacements.
type pendingWrite struct {
	rowIDs []int64
	newRec arrow.Record
}

func runUpdate(ctx context.Context, rt *Runtime, n *sql.Update, out *materialized) (string, error) {
	cons, err := newConstraints(rt, n.Table)
	if err != nil {
		return "", err
	}
	op, err := Build(rt, n.Input)
	if err != nil {
		return "", err
	}
	ncols := len(n.Table.Columns)
	// Compute every new row before writing any, so the scan never sees
	// this statement's own writes.
	var writes []pendingWrite
	defer func() {
		for _, w := range writes {
			w.newRec.Release()
		}
	}()
	err = Drain(ctx, op, func(in arrow.Record) error {
		if in.NumRows() == 0 {
			return nil
		}
		cols := make([]arrow.Array, ncols)
		for pos := 0; pos < ncols; pos++ {
			if e, ok := n.Set[pos]; ok {
				a, err := Eval(rt, e, in)
				if err != nil {
					releaseAll(cols)
					return err
				}
				cols[pos] = a
			} else {
				cols[pos] = in.Column(pos)
				cols[pos].Retain()
			}
		}
		rec := tableRecord(n.Table, cols, in.NumRows())
		releaseAll(cols)
		ids := in.Column(ncols).(*array.Int64).Int64Values()
		writes = append(writes, pendingWrite{rowIDs: append([]int64(nil), ids...), newRec: rec})
		return nil
	})
	if err != nil {
		return "", err
	}
	var count int64
	for _, w := range writes {
		if err := rt.Tx.Delete(n.Table.ID, w.rowIDs); err != nil {
			return "", err
		}
	}
	for _, w := range writes {
		if err := cons.verify(ctx, rt, w.newRec); err != nil {
			return "", err
		}
		if err := rt.Tx.Insert(n.Table.ID, w.newRec); err != nil {
			return "", err
		}
		count += w.newRec.NumRows()
		if err := out.addReturning(rt, n.Returning, w.newRec); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("UPDATE %d", count), nil
}

func runDelete(ctx context.Context, rt *Runtime, n *sql.Delete, out *materialized) (string, error) {
	op, err := Build(rt, n.Input)
	if err != nil {
		return "", err
	}
	ncols := len(n.Table.Columns)
	var ids []int64
	refs := referencingKeys(rt, n.Table)
	err = Drain(ctx, op, func(in arrow.Record) error {
		ids = append(ids, in.Column(ncols).(*array.Int64).Int64Values()...)
		rec := tableRecord(n.Table, in.Columns()[:ncols], in.NumRows())
		defer rec.Release()
		for _, fk := range refs {
			if err := fk.verifyParentDelete(ctx, rt, rec); err != nil {
				return err
			}
		}
		return out.addReturning(rt, n.Returning, rec)
	})
	if err != nil {
		return "", err
	}
	if len(ids) > 0 {
		if err := rt.Tx.Delete(n.Table.ID, ids); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("DELETE %d", len(ids)), nil
}
