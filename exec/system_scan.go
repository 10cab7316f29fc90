package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// SystemScan reads a system relation: its rows are computed from the
// catalog the statement's transaction sees, once, when it is first read.
type SystemScan struct {
	rt     *Runtime
	node   *sql.SystemScan
	schema *arrow.Schema
	rows   [][]any
	pos    int
	loaded bool
	out    outSlot
}

func newSystemScan(rt *Runtime, n *sql.SystemScan) *SystemScan {
	return &SystemScan{rt: rt, node: n, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (s *SystemScan) Schema() *arrow.Schema { return s.schema }

// Next implements Operator.
func (s *SystemScan) Next(ctx context.Context) (arrow.Record, error) {
	s.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !s.loaded {
		s.loaded = true
		view := s.rt.catalogView()
		if s.node.Rel.SuperuserOnly && !view.Superuser() {
			return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied for table %s", s.node.Rel.Name)
		}
		s.rows = s.node.Rel.Rows(view)
	}
	if s.pos >= len(s.rows) {
		return nil, io.EOF
	}
	end := min(s.pos+batchSize, len(s.rows))
	cols := s.node.Out
	builders := make([]array.Builder, len(cols))
	for j, c := range cols {
		builders[j] = newBuilder(s.rt.mem(), c.T)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for _, row := range s.rows[s.pos:end] {
		for j, d := range row {
			if err := appendValue(builders[j], d, cols[j].T); err != nil {
				return nil, err
			}
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	defer releaseAll(arrs)
	rec := array.NewRecord(s.schema, arrs, int64(end-s.pos))
	s.pos = end
	return s.out.set(rec), nil
}

// Close implements Operator.
func (s *SystemScan) Close() { s.out.release() }

// catalogView is the system catalog as the statement sees it, built on
// first use (most statements never read it).
func (rt *Runtime) catalogView() *syscat.View {
	// Parallel partitions share the statement's function context, and so
	// this view: build it once.
	rt.sysOnce.Do(func() {
		var user, db string
		var path []string
		fn := rt.fnCtx()
		if fn.Session != nil {
			user, db, path = fn.Session.User(), fn.Session.Database(), fn.Session.SearchPath()
		}
		cat := rt.DB.Catalog()
		if rt.Tx != nil {
			cat = rt.Tx.Catalog()
		}
		rt.sysView = syscat.NewView(cat, user, db, path)
		rt.sysView.ViewUpdatability = sql.ViewUpdatability
		rt.sysView.RuleText = sql.RuleText
		if v, ok := fn.Session.(SessionViews); ok {
			rt.sysView.Settings = v.SettingRows()
			rt.sysView.PreparedStatements = v.PreparedStatements()
			rt.sysView.Cursors = v.Cursors()
			rt.sysView.Activity = v.Activity()
			rt.sysView.Statements = v.Statements()
			rt.sysView.Locks = v.Locks()
			rt.sysView.Progress = v.Progress()
		}
		if rt.Stats != nil && rt.DB != nil {
			rt.sysView.TableStats, rt.sysView.IndexStats, rt.sysView.DatabaseStats = rt.statsView(cat)
		}
	})
	return rt.sysView
}

// CatalogFunctions is what the functions of rt's statement ask of the
// system catalog (reg* lookups, pg_get_indexdef, ...): the statement's
// catalog view, built when a function first asks.
func (rt *Runtime) CatalogFunctions() functions.Catalog { return lazyCatalog{rt} }

// lazyCatalog is the functions.Catalog of a statement: the catalog view,
// built when a function first asks.
type lazyCatalog struct{ rt *Runtime }

func (c lazyCatalog) Name(f types.Family, oid int64) (string, bool) {
	return c.rt.catalogView().Name(f, oid)
}
func (c lazyCatalog) Lookup(f types.Family, text string) (int64, error) {
	return c.rt.catalogView().Lookup(f, text)
}
func (c lazyCatalog) TableVisible(oid int64) bool { return c.rt.catalogView().TableVisible(oid) }
func (c lazyCatalog) IndexDef(oid int64, column int, pretty bool) (string, bool) {
	return c.rt.catalogView().IndexDef(oid, column, pretty)
}
func (c lazyCatalog) ExprDef(text string, rel int64, pretty bool) string {
	return c.rt.catalogView().ExprDef(text, rel, pretty)
}
func (c lazyCatalog) ViewDef(oid int64) (string, bool) {
	return c.rt.catalogView().ViewDef(oid)
}
func (c lazyCatalog) TriggerDef(oid int64, pretty bool) (string, bool) {
	return c.rt.catalogView().TriggerDef(oid, pretty)
}
func (c lazyCatalog) ConstraintDef(oid int64, pretty bool) (string, bool) {
	return c.rt.catalogView().ConstraintDef(oid, pretty)
}
func (c lazyCatalog) Description(oid int64, class string, sub int64) (string, bool) {
	return c.rt.catalogView().Description(oid, class, sub)
}
func (c lazyCatalog) SharedDescription(oid int64, class string) (string, bool) {
	return c.rt.catalogView().SharedDescription(oid, class)
}
func (c lazyCatalog) FunctionSignature(oid int64) (schema, result, arguments, identity string, ok bool) {
	return c.rt.catalogView().FunctionSignature(oid)
}
func (c lazyCatalog) IndexKeys(oid int64) (method string, desc, nullsFirst []bool, ok bool) {
	return c.rt.catalogView().IndexKeys(oid)
}
func (c lazyCatalog) AccessMethodName(oid int64) (string, bool) {
	return c.rt.catalogView().AccessMethodName(oid)
}
func (c lazyCatalog) RuleDef(oid int64, pretty bool) (string, bool) {
	return c.rt.catalogView().RuleDef(oid, pretty)
}
func (c lazyCatalog) FunctionArgDefault(oid int64, arg int) (string, bool) {
	return c.rt.catalogView().FunctionArgDefault(oid, arg)
}
func (c lazyCatalog) FunctionDef(oid int64) (string, bool) {
	return c.rt.catalogView().FunctionDef(oid)
}

// DescribeObject implements functions.ObjectDescriber (pg_describe_object).
func (c lazyCatalog) DescribeObject(classid, objid, objsubid int64) (string, bool) {
	return c.rt.catalogView().DescribeObject(classid, objid, objsubid)
}

// HasRole implements functions.RoleCatalog (pg_has_role).
func (c lazyCatalog) HasRole(member, role int64, usage, admin bool) bool {
	return c.rt.catalogView().HasRole(member, role, usage, admin)
}

// HasPrivilege implements functions.PrivilegeCatalog.
func (c lazyCatalog) HasPrivilege(role, object int64, schema bool, want catalog.Priv, grantOption bool) (bool, bool) {
	return c.rt.catalogView().HasPrivilege(role, object, schema, want, grantOption)
}

// HasColumnPrivilege implements functions.PrivilegeCatalog.
func (c lazyCatalog) HasColumnPrivilege(role, table int64, column any, want catalog.Priv, grantOption bool) (bool, bool, error) {
	return c.rt.catalogView().HasColumnPrivilege(role, table, column, want, grantOption)
}

// IsSequence implements functions.PrivilegeCatalog.
func (c lazyCatalog) IsSequence(rel int64) (bool, bool) { return c.rt.catalogView().IsSequence(rel) }

// RoleName implements functions.RoleCatalog (pg_get_userbyid).
func (c lazyCatalog) RoleName(oid int64) (string, bool) { return c.rt.catalogView().RoleName(oid) }

func (c lazyCatalog) SerialSequence(table, column string) (string, bool, error) {
	return c.rt.catalogView().SerialSequence(table, column)
}

// RelationSize implements functions.DiskUsage: the files of a table or
// index, as storage finds them now.
func (c lazyCatalog) RelationSize(oid int64) (functions.RelationSize, bool) {
	table, index, kind, ok := c.rt.catalogView().RelationStorage(oid)
	if !ok || c.rt.DB == nil || (kind != 'r' && kind != 'i') {
		return functions.RelationSize{}, ok
	}
	u, found := c.rt.DB.TableUsage(table)
	switch {
	case !found:
		// Created by the statement's own transaction: nothing on disk.
		return functions.RelationSize{}, true
	case kind == 'i':
		return functions.RelationSize{Main: u.ByIndex[index]}, true
	}
	return functions.RelationSize{Main: u.Main, Other: u.Other, Indexes: u.Indexes}, true
}

// DatabaseSize implements functions.DiskUsage: the data directory's
// files for the session's database, the one there is.
func (c lazyCatalog) DatabaseSize(name string, oid int64) (int64, bool) {
	v := c.rt.catalogView()
	if (oid != 0 && oid != syscat.DatabaseOID) || (oid == 0 && name != v.Database) || c.rt.DB == nil {
		return 0, false
	}
	return c.rt.DB.DiskUsage(), true
}
