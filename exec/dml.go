package exec

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/rowcopy"
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
// and keeps the result. The expressions read the system columns xmin and
// xmax after the table's (sql.ReturningSystemColumns): xmin is
// sql.FrozenXid, what a later scan of the row reads (clients compare it
// with that: an xmin concurrency token), xmax that of row i (nil: 0 for
// all). from, when not nil, holds the columns of the UPDATE ... FROM or
// DELETE ... USING relations each row was joined with; they follow the
// system columns.
func (m *materialized) addReturning(ctx context.Context, rt *Runtime, exprs []sql.Expr, rec arrow.Record, xmax func(i int) uint32, from arrow.Record) error {
	if len(exprs) == 0 || rec.NumRows() == 0 {
		return nil
	}
	in := withSystemColumns(rec, xmax, from)
	defer in.Release()
	cols := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		a, err := Eval(ctx, rt, e, in)
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

// withSystemColumns is rec with its rows' xmin and xmax (xid) appended,
// then the columns of from (nil: none).
func withSystemColumns(rec arrow.Record, xmax func(i int) uint32, from arrow.Record) arrow.Record {
	n := int(rec.NumRows())
	mins := make([]uint32, n)
	maxes := make([]uint32, n)
	for i := range n {
		mins[i] = sql.FrozenXid
		if xmax != nil {
			maxes[i] = xmax(i)
		}
	}
	fields := append(slices.Clip(rec.Schema().Fields()),
		arrow.Field{Name: "xmin", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		arrow.Field{Name: "xmax", Type: arrow.PrimitiveTypes.Uint32, Nullable: true})
	minArr := array.NewUint32Data(array.NewData(arrow.PrimitiveTypes.Uint32, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint32Traits.CastToBytes(mins))}, nil, 0, 0))
	maxArr := array.NewUint32Data(array.NewData(arrow.PrimitiveTypes.Uint32, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint32Traits.CastToBytes(maxes))}, nil, 0, 0))
	defer minArr.Release()
	defer maxArr.Release()
	cols := append(slices.Clip(rec.Columns()), minArr, maxArr)
	if from != nil {
		fields = append(fields, from.Schema().Fields()...)
		cols = append(cols, from.Columns()...)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// xid is the ID of the statement's transaction (Runtime.Xid), or
// PostgreSQL's first normal transaction ID outside a session.
func (rt *Runtime) xid() uint32 {
	if rt.Xid != 0 {
		return rt.Xid
	}
	return 3
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// RunDML runs INSERT, UPDATE, DELETE or MERGE in rt.Tx to completion. It returns
// the rows the statement changed and its RETURNING rows, computed already
// (an operator the caller closes; no rows without RETURNING).
func RunDML(ctx context.Context, rt *Runtime, n sql.Node) (changed int64, returning Operator, err error) {
	out := newMaterialized(n.Columns())
	switch x := n.(type) {
	case *sql.Insert:
		changed, err = runInsert(ctx, rt, x, out)
	case *sql.Update:
		changed, err = runUpdate(ctx, rt, x, out)
	case *sql.Delete:
		changed, err = runDelete(ctx, rt, x, out)
	case *sql.Merge:
		changed, err = runMerge(ctx, rt, x)
	}
	if err != nil {
		out.Close()
		return 0, nil, err
	}
	return changed, out, nil
}

// Materialize reads the rest of op (first, when not nil, being a batch
// of it already read) into memory and returns an operator replaying it.
// op stays the caller's to close; the batches read are retained.
func Materialize(ctx context.Context, op Operator, first arrow.Record) (Operator, error) {
	m := &materialized{schema: op.Schema()}
	if first != nil {
		m.recs = append(m.recs, first)
	}
	for {
		rec, err := op.Next(ctx)
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			m.Close()
			return nil, err
		}
		rec.Retain()
		m.recs = append(m.recs, rec)
	}
}

// tableRecord re-labels a batch whose columns are the table's columns with
// the table's schema (storage matches columns by position and type).
func tableRecord(def *catalog.TableDef, cols []arrow.Array, n int64) arrow.Record {
	return array.NewRecord(tableSchema(def), cols, n)
}

func tableSchema(def *catalog.TableDef) *arrow.Schema {
	fields := make([]arrow.Field, len(def.Columns))
	for i, c := range def.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// constraints holds the checks of one table, bound once per statement.
type constraints struct {
	def    *catalog.TableDef
	checks []boundCheck
	// domains are the constraints of the domains of the table's columns.
	domains []columnDomain
	fks     []*fkCheck
	// indexExprs are the keys of the table's indexes on expressions and
	// partial indexes (sql.IndexKeyExprs), evaluated for their errors
	// alone (storage computes a unique one's again to enforce it).
	indexExprs []sql.Expr
	// policies are the statement's row-level security checks.
	policies []sql.PolicyCheck
	// views are the CHECK OPTIONs of the view the statement writes
	// through.
	views []sql.ViewCheck
}

type boundCheck struct {
	name string
	cond sql.Expr
	// notValid: the check was added NOT VALID (catalog.CheckDef.NotValid).
	notValid bool
}

func newConstraints(rt *Runtime, def *catalog.TableDef, policies []sql.PolicyCheck) (*constraints, error) {
	c := &constraints{def: def, policies: policies}
	cat := rt.Tx.Catalog()
	for pos, col := range def.Columns {
		if td := cat.DomainByOID(col.Domain); td != nil {
			var path []string
			if fn := rt.fnCtx(); fn.Session != nil {
				path = fn.Session.SearchPath()
			}
			d, err := sql.BindDomainCheck(cat, td, path)
			if err != nil {
				return nil, err
			}
			c.domains = append(c.domains, columnDomain{pos: pos, check: d})
		}
	}
	for _, chk := range def.Checks {
		cond, err := sql.BindTableExpr(cat, def, chk.Expr)
		if err != nil {
			return nil, err
		}
		c.checks = append(c.checks, boundCheck{name: chk.Name, cond: cond, notValid: chk.NotValid})
	}
	// By name, as PostgreSQL applies them: a row breaking two is reported
	// for the same one.
	slices.SortFunc(c.checks, func(a, b boundCheck) int { return strings.Compare(a.name, b.name) })
	for i := range def.ForeignKeys {
		c.fks = append(c.fks, &fkCheck{fk: &def.ForeignKeys[i], child: def})
	}
	for _, ix := range cat.IndexesOf(def.ID) {
		if ix.Expr == "" && ix.Pred == "" && len(ix.Keys) == 0 {
			continue
		}
		keys, err := sql.IndexKeyExprs(cat, def, ix)
		if err != nil {
			return nil, err
		}
		c.indexExprs = append(c.indexExprs, keys...)
	}
	return c, nil
}

// firstFailing evaluates cond, a CHECK's condition, over the rows of rec
// and returns the first row it is false for (NULL passes, as in
// PostgreSQL), -1 when none is.
func firstFailing(ctx context.Context, rt *Runtime, cond sql.Expr, rec arrow.Record) (int, error) {
	res, err := Eval(ctx, rt, cond, rec)
	if err != nil {
		return -1, err
	}
	defer res.Release()
	b := res.(*array.Boolean)
	for r := 0; r < b.Len(); r++ {
		if b.IsValid(r) && !b.Value(r) {
			return r, nil
		}
	}
	return -1, nil
}

// verify enforces row-level security policies, then NOT NULL, CHECK and
// FOREIGN KEY constraints on a batch of new rows, in PostgreSQL's order.
// The view's check options come once the rows are in the table
// (verifyViews), after its unique indexes, as in PostgreSQL.
// (The EMBEDDING domains' dimensionality checks run earlier, as the
// values are converted to the column's type: types.appendList.)
func (c *constraints) verify(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	return c.verifyUpdate(ctx, rt, rec, nil)
}

// verifyUpdate is verify for the rows rec an UPDATE makes of the rows old
// (whose first columns are the table's; nil for an INSERT): a foreign key
// is not checked again for a row whose key it left as it was.
func (c *constraints) verifyUpdate(ctx context.Context, rt *Runtime, rec, old arrow.Record) error {
	// PostgreSQL checks a domain's constraints as it computes the value,
	// before any of the table's.
	for _, d := range c.domains {
		if err := checkDomain(ctx, rt, d.check, rec.Column(d.pos)); err != nil {
			return err
		}
	}
	if err := checkPolicies(ctx, rt, c.def, c.policies, rec, "new row", ""); err != nil {
		return err
	}
	if err := c.firstViolation(ctx, rt, rec); err != nil {
		return err
	}
	// PostgreSQL computes index keys after the CHECK constraints and
	// before the foreign keys, which wait for the statement's end.
	for _, e := range c.indexExprs {
		res, err := Eval(ctx, rt, e, rec)
		if err != nil {
			return err
		}
		res.Release()
	}
	for _, fk := range c.fks {
		if err := fk.verifyChild(ctx, rt, rec, old); err != nil {
			return err
		}
	}
	return nil
}

// verifyViews enforces the CHECK OPTIONs of the view the statement
// writes through on rows rec just written (a NULL condition fails, as
// PostgreSQL's does): the statement fails, and its writes with it.
func (c *constraints) verifyViews(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	for _, v := range c.views {
		res, err := Eval(ctx, rt, v.Cond, rec)
		if err != nil {
			return err
		}
		b := res.(*array.Boolean)
		for r := 0; r < b.Len(); r++ {
			if !b.IsValid(r) || !b.Value(r) {
				res.Release()
				return pgerr.New(pgerrcode.WithCheckOptionViolation, "new row violates check option for view \"%s\"", v.View).
					WithDetail("Failing row contains %s.", rowText(c.def, rec, r, rt.textOptions()))
			}
		}
		res.Release()
	}
	return nil
}

// checkPolicies fails with 42501 unless every row of rec (whose first
// columns are def's) meets every row-level security check; row names the
// row checked in the message ("new row", MERGE's "target row"), what the
// kind of check (" (USING expression)" for the existing row of ON
// CONFLICT DO UPDATE and MERGE's target row).
func checkPolicies(ctx context.Context, rt *Runtime, def *catalog.TableDef, checks []sql.PolicyCheck, rec arrow.Record, row, what string) error {
	for _, p := range checks {
		res, err := Eval(ctx, rt, p.Cond, rec)
		if err != nil {
			return err
		}
		b := res.(*array.Boolean)
		pass := b.NullN() == 0
		for r := 0; pass && r < b.Len(); r++ {
			pass = b.Value(r)
		}
		res.Release()
		if !pass {
			if p.Name != "" {
				return pgerr.New(pgerrcode.InsufficientPrivilege, "%s violates row-level security policy \"%s\"%s for table \"%s\"", row, p.Name, what, def.Name)
			}
			return pgerr.New(pgerrcode.InsufficientPrivilege, "%s violates row-level security policy%s for table \"%s\"", row, what, def.Name)
		}
	}
	return nil
}

// firstViolation returns the error of the first row of rec that breaks a
// NOT NULL or CHECK constraint, as PostgreSQL checks them row after row
// (a row's NOT NULL columns in column order, then its checks): the row
// and the constraint named are those PostgreSQL's error names, and the
// error marks the row (pgerr.Error.FailedRow) for COPY FROM's line.
func (c *constraints) firstViolation(ctx context.Context, rt *Runtime, rec arrow.Record) error {
	bad, nullCol := -1, -1
	for i, col := range c.def.Columns {
		if arr := rec.Column(i); col.NotNull && arr.NullN() > 0 {
			if r := firstNull(arr); bad < 0 || r < bad {
				bad, nullCol = r, i
			}
		}
	}
	badCheck := -1
	for k, chk := range c.checks {
		if bad == 0 {
			break // no row comes before the first
		}
		r, err := firstFailing(ctx, rt, chk.cond, rec)
		if err != nil {
			if bad >= 0 {
				break // that row fails before this check's error
			}
			return err
		}
		if r >= 0 && (bad < 0 || r < bad) {
			bad, badCheck = r, k
		}
	}
	switch {
	case badCheck >= 0:
		name := c.checks[badCheck].name
		return pgerr.New(pgerrcode.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", c.def.Name, name).
			WithDetail("Failing row contains %s.", rowText(c.def, rec, bad, rt.textOptions())).
			WithConstraint(c.def.Schema, c.def.Name, name).AtRow(bad)
	case nullCol >= 0:
		col := c.def.Columns[nullCol]
		return pgerr.New(pgerrcode.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", col.Name, c.def.Name).
			WithDetail("Failing row contains %s.", rowText(c.def, rec, bad, rt.textOptions())).
			WithColumn(c.def.Schema, c.def.Name, col.Name).AtRow(bad)
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

// maxFieldDisplay bounds each value "Failing row contains" shows, as
// PostgreSQL's ExecBuildSlotValueDescription: a longer one is cut at the
// end of the last character that fits and followed by "...", so that a
// document or an embedding does not make the error megabytes long.
const maxFieldDisplay = 64

// rowText renders a row as PostgreSQL's "Failing row contains (...)",
// values in the session's text output settings opts.
func rowText(def *catalog.TableDef, rec arrow.Record, row int, opts *types.TextOptions) string {
	parts := make([]string, len(def.Columns))
	for i, col := range def.Columns {
		v := types.ValueAt(rec.Column(i), row, col.Type)
		if v == nil {
			parts[i] = "null"
			continue
		}
		text := types.AppendText(nil, v, col.Type, opts)
		if len(text) > maxFieldDisplay {
			cut := maxFieldDisplay
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = append(text[:cut], "..."...)
		}
		parts[i] = string(text)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func runInsert(ctx context.Context, rt *Runtime, n *sql.Insert, out *materialized) (int64, error) {
	op, err := Build(rt, n.Input)
	if err != nil {
		return 0, err
	}
	count, err := insertRows(ctx, rt, n, op, out)
	if err != nil {
		return 0, err
	}
	return int64(count), nil
}

// insertRows inserts the rows op yields (n.Table's columns, in order; op
// stands for n.Input) and closes op: every constraint is enforced, ON
// CONFLICT applied and RETURNING rows kept in out. It returns the number
// of rows inserted (or updated by ON CONFLICT DO UPDATE). INSERT and COPY
// FROM both insert through it; into a view (n.Instead) its INSTEAD OF
// INSERT trigger runs on each row instead (insteadOf).
func insertRows(ctx context.Context, rt *Runtime, n *sql.Insert, op Operator, out *materialized) (int64, error) {
	if n.Instead {
		// ON CONFLICT DO NOTHING without a target is all a view allows
		// (it has no unique constraint): no row of it conflicts.
		return insteadOf(ctx, rt, n.Table, "INSERT", op, nil, n.ViewChecks, n.Returning, out)
	}
	cons, err := newConstraints(rt, n.Table, n.Policies)
	if err != nil {
		op.Close()
		return 0, err
	}
	cons.views = n.ViewChecks
	after := rt.afterTriggers(n.Table, "INSERT")
	defer after.release()
	if after != nil && n.OnConflict != nil {
		op.Close()
		return 0, pgerr.NotSupported("INSERT ... ON CONFLICT into a table with AFTER INSERT triggers")
	}
	if n.OnConflict != nil && n.OnConflict.DoUpdate && rt.runsTrigger(n.Table, "UPDATE", func(t catalog.TriggerDef) bool { return !t.Before || !t.ForEachRow }) {
		op.Close()
		return 0, pgerr.NotSupported("INSERT ... ON CONFLICT DO UPDATE of a table with AFTER UPDATE or statement-level UPDATE triggers")
	}
	if err := rt.statementTriggers(ctx, n.Table, true, "INSERT"); err != nil {
		op.Close()
		return 0, err
	}
	var count int64
	seen := map[string]bool{}       // keys proposed so far (ON CONFLICT)
	acts := rt.statementFKActions() // ON CONFLICT DO UPDATE's key changes
	defer acts.close()
	insert := func(in arrow.Record) error {
		rec, _, err := rt.beforeRowTriggers(ctx, n.Table, "INSERT", tableRecord(n.Table, in.Columns(), in.NumRows()), nil)
		if err != nil {
			return err
		}
		defer rec.Release()
		if err := cons.verify(ctx, rt, rec); err != nil {
			return err
		}
		if n.OnConflict != nil {
			inserted, err := insertOnConflict(ctx, rt, n, cons, acts, rec, out, seen)
			count += inserted
			return err
		}
		if err := rt.Tx.Insert(n.Table.ID, rec); err != nil {
			return err
		}
		if err := cons.verifyViews(ctx, rt, rec); err != nil {
			return err
		}
		acts.insertedInto(n.Table)
		rt.written(n.Table.ID, rec.NumRows(), 0, 0)
		count += rec.NumRows()
		if err := after.add(rec, nil); err != nil {
			return err
		}
		return out.addReturning(ctx, rt, n.Returning, rec, nil, nil)
	}
	// With BEFORE INSERT triggers that may read a table each row is
	// written before the next one's triggers run, as PostgreSQL does: a
	// trigger that reads the table (the next number of a group) sees the
	// rows before it. Others (an updated_at trigger) run on the batch.
	oneByOne := rt.hasRowTriggers(n.Table, true, "INSERT") && rt.Triggers.BeforeReadsTables(n.Table, "INSERT")
	err = Drain(ctx, op, func(in arrow.Record) error {
		if !oneByOne || in.NumRows() <= 1 {
			return insert(in)
		}
		for i := range in.NumRows() {
			row := in.NewSlice(i, i+1)
			err := insert(row)
			row.Release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return count, rt.endStatement(ctx, n.Table, "INSERT", acts, after)
}

// insertOnConflict inserts the rows of rec that conflict with no existing
// row (on the ON CONFLICT target's constraint, or on any unique one without
// a target) and skips (DO NOTHING) or updates (DO UPDATE) the existing row
// of the others. The existing row is found through the unique index
// (LookupKey, a hash lookup) and read with FetchRows. A row committed after
// the statement's snapshot, or a key a concurrent transaction inserts and
// commits while this one waits for it, is a concurrent update
// (storage.Conflict): under READ COMMITTED the statement then runs again on
// a new snapshot, where it sees that row. seen holds the keys the
// statement proposed so far: DO UPDATE may not touch a row twice (21000).
// The referenced keys DO UPDATE changes are recorded in acts.
func insertOnConflict(ctx context.Context, rt *Runtime, n *sql.Insert, cons *constraints, acts *fkActions, rec arrow.Record, out *materialized, seen map[string]bool) (int64, error) {
	def, oc, tx := n.Table, n.OnConflict, rt.Tx
	tx.MarkUpsert(def.ID)
	targets, err := conflictTargets(tx, def, oc, rec)
	if err != nil {
		return 0, err
	}
	var insertRows, updRows []int
	var updIDs []int64
	var keybuf []byte
	for r := 0; r < int(rec.NumRows()); r++ {
		if r%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		dup := false
		var keys []string
		for ti, t := range targets {
			var ok bool
			keybuf, ok = t.proposedKey(keybuf[:0], def, rec, r)
			if !ok {
				continue
			}
			k := fmt.Sprintf("%d:%s", ti, keybuf)
			dup = dup || seen[k]
			keys = append(keys, k)
		}
		if dup {
			if oc.DoUpdate {
				return 0, pgerr.New(pgerrcode.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
					WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
			}
			continue
		}
		for _, k := range keys {
			seen[k] = true
		}
		found := false
		var rowID int64
		for _, t := range targets {
			id, ok, err := t.lookup(tx, def, rec, r)
			if err != nil {
				return 0, err
			}
			if ok {
				rowID, found = id, true
				break
			}
		}
		switch {
		case !found:
			insertRows = append(insertRows, r)
		case oc.DoUpdate:
			updRows = append(updRows, r)
			updIDs = append(updIDs, rowID)
		default:
			// DO NOTHING skips the row unless the row it conflicts with
			// is being deleted: then it waits for the deleter, and if
			// that committed the key is free, as in PostgreSQL (a key
			// another transaction took meanwhile is the insert's
			// conflict, found below).
			gone, err := tx.WaitRow(def.ID, rowID)
			if err != nil {
				return 0, err
			}
			if gone {
				insertRows = append(insertRows, r)
			}
		}
	}
	// The written rows and the proposed rows they come from, for RETURNING
	// in the order of the proposals.
	var written []arrow.Record
	var from []int
	defer func() {
		for _, w := range written {
			w.Release()
		}
	}()
	if len(updRows) > 0 {
		newRows, applied, err := upsertRows(ctx, rt, n, cons, acts, rec, updRows, updIDs)
		if err != nil {
			return 0, err
		}
		if newRows != nil {
			written = append(written, newRows)
			for _, i := range applied {
				from = append(from, updRows[i])
			}
		}
	}
	if len(insertRows) > 0 {
		ins := rec
		if len(insertRows) == int(rec.NumRows()) {
			rec.Retain()
		} else {
			var err error
			if ins, err = rowcopy.TakeRecord(memory.DefaultAllocator, rec, insertRows); err != nil {
				return 0, err
			}
		}
		written = append(written, ins)
		from = append(from, insertRows...)
		if err := tx.Insert(def.ID, ins); err != nil {
			if pgerr.Code(err) == pgerrcode.UniqueViolation && conflictMatches(tx.Catalog(), n, err) {
				if concurrent, cerr := committedSince(ctx, tx, def, targets, insertRows); cerr != nil {
					return 0, cerr
				} else if concurrent {
					// A key a transaction committed after this statement's
					// snapshot (maybe while this one waited for it).
					return 0, storage.Conflict()
				}
			}
			return 0, err
		}
		if err := cons.verifyViews(ctx, rt, ins); err != nil {
			return 0, err
		}
		rt.written(def.ID, ins.NumRows(), 0, 0)
	}
	if len(n.Returning) > 0 && len(written) > 0 {
		all := written[0]
		if len(written) > 1 {
			cols := make([]arrow.Array, all.NumCols())
			for c := range cols {
				parts := make([]arrow.Array, len(written))
				for i, w := range written {
					parts[i] = w.Column(c)
				}
				a, err := array.Concatenate(parts, memory.DefaultAllocator)
				if err != nil {
					releaseAll(cols)
					return 0, err
				}
				cols[c] = a
			}
			all = array.NewRecord(all.Schema(), cols, int64(len(from)))
			releaseAll(cols)
			written = append(written, all)
		}
		order := make([]int, len(from))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return from[order[a]] < from[order[b]] })
		if !sort.IntsAreSorted(order) {
			sorted, err := rowcopy.TakeRecord(memory.DefaultAllocator, all, order)
			if err != nil {
				return 0, err
			}
			written = append(written, sorted)
			all = sorted
		}
		// A row ON CONFLICT DO UPDATE updated keeps the transaction's ID
		// as xmax (in PostgreSQL, its lock on the row it replaced); an
		// inserted one has none.
		xid, updated := rt.xid(), len(from)-len(insertRows)
		if err := out.addReturning(ctx, rt, n.Returning, all, func(i int) uint32 {
			if order[i] < updated {
				return xid
			}
			return 0
		}, nil); err != nil {
			return 0, err
		}
	}
	return int64(len(from)), nil
}

// committedSince reports whether a proposed row of rows (of the record
// the targets' keys are of) has a key (on one of the targets) held by a
// row committed after tx's snapshot.
func committedSince(ctx context.Context, tx *storage.Tx, def *catalog.TableDef, targets []conflictTarget, rows []int) (bool, error) {
	var ids []int64
	for _, r := range rows {
		for _, t := range targets {
			id, ok, err := t.lookup(tx, def, t.rec, r)
			if err != nil {
				return false, err
			}
			if ok {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return false, nil
	}
	seen, err := tx.FetchRows(ctx, def.ID, nil, ids)
	if err != nil {
		return false, err
	}
	defer seen.Release()
	return seen.NumRows() < int64(len(ids)), nil
}

// conflictTarget is a rule ON CONFLICT counts a conflict on: a key over
// the column IDs cols, or the unique index named index whose key is
// computed (catalog.IndexDef.ComputedKey), with keys (of types ts) that
// key of each proposed row of rec.
type conflictTarget struct {
	cols  []int
	index string
	rec   arrow.Record
	keys  []arrow.Array
	ts    []types.T
	// nullsEqual: the rule over cols is NULLS NOT DISTINCT, so a key
	// with a NULL conflicts with an equal one.
	nullsEqual bool
}

// conflictTargets are the rules the proposed rows rec conflict on: the ON
// CONFLICT target's, or without one every unique rule of the table.
func conflictTargets(tx *storage.Tx, def *catalog.TableDef, oc *sql.OnConflict, rec arrow.Record) ([]conflictTarget, error) {
	var out []conflictTarget
	switch {
	case len(oc.Columns) > 0:
		ids := make([]int, len(oc.Columns))
		for i, p := range oc.Columns {
			ids[i] = def.Columns[p].ID
		}
		return []conflictTarget{{cols: ids, rec: rec, nullsEqual: tx.NullsNotDistinct(def.ID, ids)}}, nil
	case oc.Index == "":
		for _, ids := range tx.UniqueKeys(def.ID) {
			out = append(out, conflictTarget{cols: ids, rec: rec, nullsEqual: tx.NullsNotDistinct(def.ID, ids)})
		}
	}
	cat := tx.Catalog()
	for _, ix := range cat.IndexesOf(def.ID) {
		if !ix.ComputedKey() || oc.Index != "" && ix.Name != oc.Index {
			continue
		}
		keys, ts, err := indexKeys(cat, def, ix, rec)
		if err != nil {
			return nil, err
		}
		out = append(out, conflictTarget{index: ix.Name, rec: rec, keys: keys, ts: ts})
	}
	return out, nil
}

// lookup finds the live row that holds the key of row r of rec on t.
func (t conflictTarget) lookup(tx *storage.Tx, def *catalog.TableDef, rec arrow.Record, r int) (int64, bool, error) {
	if t.index != "" {
		return tx.LookupIndexKey(def.ID, t.index, t.keys, r)
	}
	return tx.LookupKey(def.ID, t.cols, rec, r)
}

// proposedKey encodes row r's key on t; ok is false when a value of it
// is NULL (NULLs never conflict) unless t is NULLS NOT DISTINCT.
func (t conflictTarget) proposedKey(buf []byte, def *catalog.TableDef, rec arrow.Record, r int) ([]byte, bool) {
	if t.index != "" {
		for k, a := range t.keys {
			if a.IsNull(r) {
				return buf, false
			}
			buf = types.KeyBytes(buf, types.ValueAt(a, r, t.ts[k]), t.ts[k])
			buf = append(buf, 0)
		}
		return buf, true
	}
	for _, id := range t.cols {
		p, c := def.ColumnByID(id)
		if p < 0 {
			return buf, false
		}
		if rec.Column(p).IsNull(r) && !t.nullsEqual {
			return buf, false
		}
		buf = types.KeyBytes(buf, types.ValueAt(rec.Column(p), r, c.Type), c.Type)
		buf = append(buf, 0)
	}
	return buf, true
}

// conflictMatches reports whether a unique violation is on the ON
// CONFLICT target (any constraint when there is no target).
func conflictMatches(cat *catalog.Catalog, n *sql.Insert, err error) bool {
	oc := n.OnConflict
	msg := pgerr.From(err).Message
	if oc.Index != "" {
		return strings.Contains(msg, `"`+oc.Index+`"`)
	}
	if len(oc.Columns) == 0 {
		return true
	}
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
	if len(n.Table.PrimaryKey) == len(ids) {
		all := true
		for _, c := range n.Table.PrimaryKey {
			all = all && ids[c]
		}
		if all && strings.Contains(msg, `"`+n.Table.PrimaryKeyConstraint()+`"`) {
			return true
		}
	}
	for _, ix := range cat.IndexesOf(n.Table.ID) {
		if !ix.PlainUnique() || len(ix.Columns) != len(ids) {
			continue
		}
		all := true
		for _, c := range ix.Columns {
			all = all && ids[c]
		}
		if all && strings.Contains(msg, `"`+ix.Name+`"`) {
			return true
		}
	}
	return false
}

// upsertRows applies DO UPDATE SET to the existing rows updIDs, which
// conflict with the proposed rows rows of rec (in the same order). It
// returns the new rows (nil when the WHERE clause passed none) and which
// of rows they come from (indexes into rows), and records the change in
// acts.
func upsertRows(ctx context.Context, rt *Runtime, n *sql.Insert, cons *constraints, acts *fkActions, rec arrow.Record, rows []int, updIDs []int64) (arrow.Record, []int, error) {
	def, oc, tx := n.Table, n.OnConflict, rt.Tx
	mem := memory.DefaultAllocator
	all := make([]int, len(def.Columns))
	for i := range all {
		all[i] = i
	}
	fetched, err := tx.FetchRows(ctx, def.ID, all, updIDs)
	if err != nil {
		return nil, nil, err
	}
	defer fetched.Release()
	if fetched.NumRows() != int64(len(updIDs)) {
		// A row committed after this statement's snapshot.
		return nil, nil, storage.Conflict()
	}
	// FetchRows keeps the order given; check it all the same.
	got := fetched.Column(len(all)).(*array.Int64)
	for i, id := range updIDs {
		if got.Value(i) != id {
			return nil, nil, pgerr.New(pgerrcode.InternalError, "upsert: fetched row %d, want %d", got.Value(i), id)
		}
	}
	proposed, err := rowcopy.TakeRecord(mem, rec, rows)
	if err != nil {
		return nil, nil, err
	}
	defer proposed.Release()
	// SET and WHERE see the existing row followed by EXCLUDED.
	both := make([]arrow.Array, 0, 2*len(def.Columns))
	both = append(both, fetched.Columns()[:len(all)]...)
	both = append(both, proposed.Columns()...)
	fields := append(append([]arrow.Field{}, tableSchema(def).Fields()...), tableSchema(def).Fields()...)
	in := array.NewRecord(arrow.NewSchema(fields, nil), both, int64(len(rows)))
	defer in.Release()
	ids := updIDs
	applied := make([]int, len(rows))
	for i := range applied {
		applied[i] = i
	}
	if oc.Where != nil {
		res, err := Eval(ctx, rt, oc.Where, in)
		if err != nil {
			return nil, nil, err
		}
		keep := trueRows[int](res.(*array.Boolean))
		res.Release()
		ids = make([]int64, len(keep))
		for i, row := range keep {
			ids[i] = updIDs[row]
		}
		applied = keep
		if len(keep) == 0 {
			return nil, nil, nil
		}
		if len(keep) < int(in.NumRows()) {
			filtered, err := rowcopy.TakeRecord(mem, in, keep)
			if err != nil {
				return nil, nil, err
			}
			defer filtered.Release()
			in = filtered
		}
	}
	if err := checkPolicies(ctx, rt, def, oc.Existing, in, "new row", " (USING expression)"); err != nil {
		return nil, nil, err
	}
	newRows, err := setRows(ctx, rt, def, oc.Set, oc.Gen, in)
	if err != nil {
		return nil, nil, err
	}
	old := tableRecord(def, in.Columns()[:len(def.Columns)], in.NumRows())
	defer old.Release()
	newRows, kept, err := rt.beforeRowTriggers(withUpdatedColumns(ctx, def, oc.Set), def, "UPDATE", newRows, old)
	if err != nil {
		return nil, nil, err
	}
	if kept != nil && len(kept) < len(ids) {
		// Rows a BEFORE UPDATE trigger skipped stay as they are.
		keptIDs, keptApplied := make([]int64, len(kept)), make([]int, len(kept))
		for i, r := range kept {
			keptIDs[i], keptApplied[i] = ids[r], applied[r]
		}
		ids, applied = keptIDs, keptApplied
		if len(kept) == 0 {
			newRows.Release()
			return nil, nil, nil
		}
		filtered, err := rowcopy.TakeRecord(mem, in, kept)
		if err != nil {
			newRows.Release()
			return nil, nil, err
		}
		defer filtered.Release()
		in = filtered
	}
	// The updated row meets UPDATE's policies, not INSERT's.
	updated := *cons
	updated.policies = oc.Updated
	if err := updated.verifyUpdate(ctx, rt, newRows, in); err != nil {
		newRows.Release()
		return nil, nil, err
	}
	if err := tx.Delete(def.ID, ids); err != nil {
		newRows.Release()
		return nil, nil, err
	}
	if err := tx.Insert(def.ID, newRows); err != nil {
		newRows.Release()
		return nil, nil, err
	}
	if err := cons.verifyViews(ctx, rt, newRows); err != nil {
		newRows.Release()
		return nil, nil, err
	}
	rt.written(def.ID, 0, newRows.NumRows(), 0)
	acts.updated(def, in, newRows)
	return newRows, applied, nil
}

// setRows computes the new rows of an UPDATE SET (UPDATE, ON CONFLICT
// DO UPDATE, MERGE's UPDATE): each column of def the value set gives it,
// evaluated over in, whose first columns are the existing row's, or the
// existing value.
func setRows(ctx context.Context, rt *Runtime, def *catalog.TableDef, set, gen map[int]sql.Expr, in arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, len(def.Columns))
	for pos := range def.Columns {
		if e, ok := set[pos]; ok {
			a, err := Eval(ctx, rt, e, in)
			if err != nil {
				releaseAll(cols)
				return nil, err
			}
			cols[pos] = a
		} else {
			cols[pos] = in.Column(pos)
			cols[pos].Retain()
		}
	}
	rec := tableRecord(def, cols, in.NumRows())
	releaseAll(cols)
	return generateColumns(ctx, rt, def, gen, rec)
}

// generateColumns computes the generated columns of rec, a batch of new
// rows of def, with their expressions gen (position -> expression over
// the row), and returns the rows with those values. It releases rec.
func generateColumns(ctx context.Context, rt *Runtime, def *catalog.TableDef, gen map[int]sql.Expr, rec arrow.Record) (arrow.Record, error) {
	if len(gen) == 0 {
		return rec, nil
	}
	defer rec.Release()
	cols := make([]arrow.Array, len(def.Columns))
	for pos := range def.Columns {
		if e, ok := gen[pos]; ok {
			a, err := Eval(ctx, rt, e, rec)
			if err != nil {
				releaseAll(cols[:pos])
				return nil, err
			}
			cols[pos] = a
		} else {
			cols[pos] = rec.Column(pos)
			cols[pos].Retain()
		}
	}
	out := tableRecord(def, cols, rec.NumRows())
	releaseAll(cols)
	return out, nil
}

// pendingWrite is one batch of an UPDATE: the rows to delete (their
// IDs, and the rows themselves) and their replacements, and for
// RETURNING the FROM relations' columns of each (nil: none).
type pendingWrite struct {
	rowIDs []int64
	old    arrow.Record
	newRec arrow.Record
	from   arrow.Record
}

// fromColumns is the part of in, a row of an UPDATE's or DELETE's input,
// after the target's ncols columns and row ID: the columns of the FROM or
// USING relations, which RETURNING may read. It is nil when there are
// none or RETURNING is empty; rows, when not nil, picks the rows kept.
func fromColumns(in arrow.Record, ncols int, returning []sql.Expr, rows []int) (arrow.Record, error) {
	if len(returning) == 0 || int(in.NumCols()) <= ncols+1 {
		return nil, nil
	}
	schema := arrow.NewSchema(in.Schema().Fields()[ncols+1:], nil)
	rec := array.NewRecord(schema, in.Columns()[ncols+1:], in.NumRows())
	if rows == nil {
		return rec, nil
	}
	defer rec.Release()
	return rowcopy.TakeRecord(memory.DefaultAllocator, rec, rows)
}

func runUpdate(ctx context.Context, rt *Runtime, n *sql.Update, out *materialized) (int64, error) {
	if n.Instead {
		op, err := Build(rt, n.Input)
		if err != nil {
			return 0, err
		}
		return insteadOf(withUpdatedColumns(ctx, n.Table, n.Set), rt, n.Table, "UPDATE", op, n.Set, n.ViewChecks, n.Returning, out)
	}
	cons, err := newConstraints(rt, n.Table, n.Policies)
	if err != nil {
		return 0, err
	}
	if n.Fill {
		// The rows may break a check added NOT VALID already.
		cons.checks = slices.DeleteFunc(cons.checks, func(c boundCheck) bool { return c.notValid })
	}
	cons.onlyAssigned(n.Set)
	cons.views = n.ViewChecks
	ctx = withUpdatedColumns(ctx, n.Table, n.Set)
	if err := rt.statementTriggers(ctx, n.Table, true, "UPDATE"); err != nil {
		return 0, err
	}
	op, err := Build(rt, n.Input)
	if err != nil {
		return 0, err
	}
	ncols := len(n.Table.Columns)
	// Compute every new row before writing any, so the scan never sees
	// this statement's own writes.
	var writes []pendingWrite
	defer func() {
		for _, w := range writes {
			w.old.Release()
			w.newRec.Release()
			if w.from != nil {
				w.from.Release()
			}
		}
	}()
	err = Drain(ctx, op, func(in arrow.Record) error {
		if in.NumRows() == 0 {
			return nil
		}
		rec, err := setRows(ctx, rt, n.Table, n.Set, n.Gen, in)
		if err != nil {
			return err
		}
		ids := append([]int64(nil), in.Column(ncols).(*array.Int64).Int64Values()...)
		old := tableRecord(n.Table, in.Columns()[:ncols], in.NumRows())
		rec, kept, err := rt.beforeRowTriggers(ctx, n.Table, "UPDATE", rec, old)
		if err != nil {
			old.Release()
			return err
		}
		if len(kept) == len(ids) {
			kept = nil // all rows
		}
		if kept != nil {
			// Rows a trigger skipped are neither deleted nor written.
			kIDs := make([]int64, len(kept))
			for i, r := range kept {
				kIDs[i] = ids[r]
			}
			kOld, err := rowcopy.TakeRecord(memory.DefaultAllocator, old, kept)
			old.Release()
			if err != nil {
				rec.Release()
				return err
			}
			ids, old = kIDs, kOld
		}
		from, err := fromColumns(in, ncols, n.Returning, kept)
		if err != nil {
			old.Release()
			rec.Release()
			return err
		}
		writes = append(writes, pendingWrite{rowIDs: ids, old: old, newRec: rec, from: from})
		return nil
	})
	if err != nil {
		return 0, err
	}
	var count int64
	for _, w := range writes {
		if err := rt.Tx.Delete(n.Table.ID, w.rowIDs); err != nil {
			return 0, err
		}
	}
	acts := rt.statementFKActions()
	defer acts.close()
	after := rt.afterTriggers(n.Table, "UPDATE")
	defer after.release()
	for _, w := range writes {
		if err := cons.verifyUpdate(ctx, rt, w.newRec, w.old); err != nil {
			return 0, err
		}
		if err := rt.Tx.Insert(n.Table.ID, w.newRec); err != nil {
			return 0, err
		}
		if err := cons.verifyViews(ctx, rt, w.newRec); err != nil {
			return 0, err
		}
		rt.written(n.Table.ID, 0, w.newRec.NumRows(), 0)
		count += w.newRec.NumRows()
		if err := out.addReturning(ctx, rt, n.Returning, w.newRec, nil, w.from); err != nil {
			return 0, err
		}
		acts.updated(n.Table, w.old, w.newRec)
		if err := after.add(w.newRec, w.old); err != nil {
			return 0, err
		}
	}
	return count, rt.endStatement(ctx, n.Table, "UPDATE", acts, after)
}

func runDelete(ctx context.Context, rt *Runtime, n *sql.Delete, out *materialized) (int64, error) {
	if n.Instead {
		op, err := Build(rt, n.Input)
		if err != nil {
			return 0, err
		}
		return insteadOf(ctx, rt, n.Table, "DELETE", op, nil, nil, n.Returning, out)
	}
	if err := rt.statementTriggers(ctx, n.Table, true, "DELETE"); err != nil {
		return 0, err
	}
	op, err := Build(rt, n.Input)
	if err != nil {
		return 0, err
	}
	ncols := len(n.Table.Columns)
	var ids []int64
	acts := rt.statementFKActions()
	defer acts.close()
	after := rt.afterTriggers(n.Table, "DELETE")
	defer after.release()
	err = Drain(ctx, op, func(in arrow.Record) error {
		batchIDs := in.Column(ncols).(*array.Int64).Int64Values()
		rec := tableRecord(n.Table, in.Columns()[:ncols], in.NumRows())
		defer func() { rec.Release() }()
		kept, err := rt.beforeDeleteTriggers(ctx, n.Table, rec)
		if err != nil {
			return err
		}
		if len(kept) == len(batchIDs) {
			kept = nil // all rows
		}
		from, err := fromColumns(in, ncols, n.Returning, kept)
		if err != nil {
			return err
		}
		if from != nil {
			defer from.Release()
		}
		if kept != nil {
			// Rows a trigger skipped stay.
			keptRec, err := rowcopy.TakeRecord(memory.DefaultAllocator, rec, kept)
			if err != nil {
				return err
			}
			rec.Release()
			rec = keptRec
			for _, r := range kept {
				ids = append(ids, batchIDs[r])
			}
		} else {
			ids = append(ids, batchIDs...)
		}
		if err := after.add(nil, rec); err != nil {
			return err
		}
		acts.deleted(n.Table, rec)
		// The deleted rows: this transaction ends them.
		xid := rt.xid()
		return out.addReturning(ctx, rt, n.Returning, rec, func(int) uint32 { return xid }, from)
	})
	if err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		if err := rt.Tx.Delete(n.Table.ID, ids); err != nil {
			return 0, err
		}
		rt.written(n.Table.ID, 0, 0, int64(len(ids)))
	}
	return int64(len(ids)), rt.endStatement(ctx, n.Table, "DELETE", acts, after)
}
