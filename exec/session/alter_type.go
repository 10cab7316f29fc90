package session

// ALTER TABLE ... ALTER COLUMN ... TYPE that changes the values a column
// holds (integer to bigint, timestamp to timestamptz, a USING
// expression): PostgreSQL rewrites the table; cairn, whose storage never
// changes a stored column's type, writes the new values to a new column
// and lets it take the old one's place, name, attributes and keys.

import (
	"context"
	"maps"
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// rewrite is one column ALTER COLUMN ... TYPE rewrites: the column name,
// its column ID (from), the ID of the column its new values go to (to),
// and the USING expression's text ("" for the column itself).
type rewrite struct {
	name     string
	from, to int
	using    string
}

// rewriteColumnName names the new column of column while it is filled:
// no name a statement can spell (it holds a NUL).
func rewriteColumnName(column string) string { return "\x00rewrite " + column }

// rewritable refuses a rewrite of col, a column of def, where its
// dependents would need rebinding cairn does not do: PostgreSQL's 0A000
// for a generated column, policy or trigger condition that reads it, and
// cairn's own for an expression index over it.
func rewritable(cat *catalog.Catalog, def *catalog.TableDef, col *catalog.ColumnDef) error {
	for _, c := range def.Columns {
		if c.Generated != "" && c.Name != col.Name && sql.PolicyUses(c.Default, col.Name) {
			return pgerr.New(pgerrcode.FeatureNotSupported, "cannot alter type of a column used by a generated column").
				WithDetail("Column \"%s\" is used by generated column \"%s\".", col.Name, c.Name)
		}
	}
	for _, p := range def.Policies {
		if sql.PolicyUses(p.Using, col.Name) || sql.PolicyUses(p.Check, col.Name) {
			return pgerr.New(pgerrcode.FeatureNotSupported, "cannot alter type of a column used in a policy definition").
				WithDetail("policy %s on table %s depends on column \"%s\"", p.Name, def.Name, col.Name)
		}
	}
	for _, tr := range def.Triggers {
		if sql.PolicyUses(tr.When, col.Name) {
			return pgerr.New(pgerrcode.FeatureNotSupported, "cannot alter type of a column used in a trigger definition").
				WithDetail("trigger %s on table %s depends on column \"%s\"", tr.Name, def.Name, col.Name)
		}
	}
	for _, ix := range cat.IndexesOf(def.ID) {
		if ix.Expr != "" && slices.Contains(ix.Columns, col.ID) {
			return pgerr.NotSupported("ALTER COLUMN %s TYPE that rewrites a column index expression %s reads (drop index \"%s\" first)", col.Name, ix.Expr, ix.Name)
		}
		if pos, _ := def.ColumnByID(col.ID); pos >= 0 {
			if k, ok := keyExprReading(cat, def, ix, pos); ok {
				return pgerr.NotSupported("ALTER COLUMN %s TYPE that rewrites a column index expression %s reads (drop index \"%s\" first)", col.Name, k, ix.Name)
			}
		}
	}
	return nil
}

// rewriteColumns fills the new columns of rewrites (table id as the
// ALTER left it, old and new columns side by side) from the old ones, and
// the columns named fill, which the ALTER adds with a DEFAULT, in the
// same UPDATE; then it drops each old column and gives its place, name,
// attributes, keys, indexes and owned sequence to its new one.
func (s *Session) rewriteColumns(ctx context.Context, tx *storage.Tx, id uint64, rewrites []rewrite, fill []catalog.ColumnDef) error {
	tx.FenceWrites(id)
	b := s.binder(tx.Catalog())
	def := b.Catalog.TableByID(id)
	var set []sql.ColumnRewrite
	for _, r := range rewrites {
		from, _ := def.ColumnByID(r.from)
		to, _ := def.ColumnByID(r.to)
		set = append(set, sql.ColumnRewrite{From: from, To: to, Using: r.using})
	}
	var positions []int
	for _, col := range fill {
		pos, _ := def.Column(col.Name)
		positions = append(positions, pos)
	}
	plan, err := b.RewriteColumns(def, set, positions)
	if err != nil {
		return err
	}
	if _, err := s.runDML(ctx, tx, plan); err != nil {
		return err
	}
	def = def.Clone()
	for _, r := range rewrites {
		from, old := def.ColumnByID(r.from)
		to, tmp := def.ColumnByID(r.to)
		col := *old
		col.ID, col.Type = r.to, tmp.Type
		def.Columns[from] = col
		def.Columns = slices.Delete(def.Columns, to, to+1)
		def.RenumberColumn(r.from, r.to)
	}
	if err := tx.AlterTable(def); err != nil {
		return err
	}
	cat := tx.Catalog()
	for _, ix := range cat.IndexesOf(id) {
		moved := ix.Clone()
		for _, r := range rewrites {
			moved.Columns = catalog.RenumberIDs(moved.Columns, r.from, r.to)
			moved.PredColumns = catalog.RenumberIDs(moved.PredColumns, r.from, r.to)
			for i, k := range moved.Keys {
				if k.Expr == "" && k.Column == r.from {
					moved.Keys[i].Column = r.to
				}
			}
		}
		if slices.Equal(moved.Columns, ix.Columns) && slices.Equal(moved.PredColumns, ix.PredColumns) {
			continue
		}
		if err := tx.DropIndex(ix.Schema, ix.Name); err != nil {
			return err
		}
		if err := tx.CreateIndex(moved); err != nil {
			return err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(cat.Sequences)) {
		seq := cat.Sequences[key]
		if seq.OwnedBy == nil || seq.OwnedBy.Table != id {
			continue
		}
		for _, r := range rewrites {
			if seq.OwnedBy.Column == r.from {
				moved := *seq
				moved.OwnedBy = &catalog.SequenceOwner{Table: id, Column: r.to}
				// An identity column's sequence takes its new type,
				// as PostgreSQL's ALTER SEQUENCE ... AS.
				if _, col := def.ColumnByID(r.to); col.Identity != "" {
					if err := sql.RetypeSequence(&moved, col.Type); err != nil {
						return err
					}
				}
				if err := tx.ReplaceSequence(&moved); err != nil {
					return err
				}
			}
		}
	}
	// Other tables' foreign keys that reference a rewritten column name
	// its new one, and are checked again (a USING may change the key).
	var children []uint64
	for cid := range cat.Tables {
		children = append(children, cid)
	}
	slices.Sort(children)
	type childKey struct {
		table uint64
		fk    catalog.ForeignKeyDef
	}
	var recheck []childKey
	for _, cid := range children {
		child := cat.Tables[cid]
		if cid == id {
			continue
		}
		moved := child.Clone()
		changed := false
		for i, fk := range moved.ForeignKeys {
			if fk.RefTable != id {
				continue
			}
			for _, r := range rewrites {
				moved.ForeignKeys[i].RefColumns = catalog.RenumberIDs(moved.ForeignKeys[i].RefColumns, r.from, r.to)
			}
			if !slices.Equal(moved.ForeignKeys[i].RefColumns, fk.RefColumns) {
				changed = true
				if !fk.NotValid { // (one added NOT VALID may have orphans)
					recheck = append(recheck, childKey{cid, moved.ForeignKeys[i]})
				}
			}
		}
		if changed {
			if err := tx.AlterTable(moved); err != nil {
				return err
			}
		}
	}
	b = s.binder(tx.Catalog())
	for _, k := range recheck {
		child := b.Catalog.TableByID(k.table)
		if err := s.checkOrphans(ctx, tx, b, child, k.fk); err != nil {
			return err
		}
	}
	// The column's DEFAULT must still make a value of the new type, as
	// PostgreSQL checks when it converts the default.
	def = b.Catalog.TableByID(id)
	for _, r := range rewrites {
		pos, col := def.ColumnByID(r.to)
		if err := b.CheckDefault(def, pos); err != nil {
			if pgerr.Code(err) == pgerrcode.DatatypeMismatch {
				err = pgerr.New(pgerrcode.DatatypeMismatch, "default for column \"%s\" cannot be cast automatically to type %s", col.Name, col.Type)
			}
			return err
		}
	}
	return nil
}
