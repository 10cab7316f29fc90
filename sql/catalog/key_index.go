package catalog

import "github.com/cairn-db/cairn/sql/types"

// KeyIndex is an index whose rows storage can find by the values of its
// leading keys: a btree or hash index (unique or not) over every row
// (not partial), on columns or expressions, and a primary key or UNIQUE
// constraint of several columns (a unique rule of a single column
// answers lookups through its hash index already: Unique).
type KeyIndex struct {
	Name string
	// Columns are the IDs of the key's columns; for an index with
	// expression keys (Def.Expr or Def.Keys), the columns they read.
	Columns []int
	// Def is the index's definition; nil for a constraint's.
	Def *IndexDef
	// Hash is a hash index: only a lookup of all its keys can use it
	// (PostgreSQL's hash indexes hold one column).
	Hash bool
	// Unique is a primary key, UNIQUE constraint or unique index of one
	// column, which KeyIndexes does not list: storage's hash index of
	// the rule answers a lookup of several values of it (Tx.KeyRow each),
	// with no key index.
	Unique bool
}

// Computed reports whether the index's keys are expressions (some of
// them) computed from the row, not the values of Columns.
func (k KeyIndex) Computed() bool {
	return k.Def != nil && (k.Def.Expr != "" || len(k.Def.Keys) > 0)
}

// KeyTypes returns the types of the index's keys, in key order, or nil
// when one is not recorded (a catalog written before ExprType was).
func (k KeyIndex) KeyTypes(def *TableDef) []types.T {
	var out []types.T
	column := func(id int) bool {
		_, c := def.ColumnByID(id)
		if c == nil {
			return false
		}
		out = append(out, c.Type)
		return true
	}
	switch {
	case k.Def != nil && k.Def.Expr != "":
		if k.Def.ExprType == nil {
			return nil
		}
		out = append(out, *k.Def.ExprType)
	case k.Def != nil && len(k.Def.Keys) > 0:
		for _, key := range k.Def.Keys {
			switch {
			case key.Expr == "" && !column(key.Column):
				return nil
			case key.Expr != "" && key.Type == nil:
				return nil
			case key.Expr != "":
				out = append(out, *key.Type)
			}
		}
	default:
		for _, id := range k.Columns {
			if !column(id) {
				return nil
			}
		}
	}
	return out
}

// KeyIndexes returns the key indexes of table tableID: its constraints
// first (the primary key, then the UNIQUE constraints), then its indexes
// by name.
func (c *Catalog) KeyIndexes(tableID uint64) []KeyIndex {
	def := c.Tables[tableID]
	if def == nil {
		return nil
	}
	var out []KeyIndex
	if len(def.PrimaryKey) > 1 {
		out = append(out, KeyIndex{Name: def.PrimaryKeyConstraint(), Columns: def.PrimaryKey})
	}
	for _, u := range def.Uniques {
		if len(u.Columns) > 1 {
			out = append(out, KeyIndex{Name: u.Name, Columns: u.Columns})
		}
	}
	for _, ix := range c.IndexesOf(tableID) {
		if (ix.Method == "btree" || ix.Method == "hash") && ix.Pred == "" && len(ix.Columns) > 0 && !(ix.PlainUnique() && len(ix.Columns) == 1) {
			out = append(out, KeyIndex{Name: ix.Name, Columns: ix.Columns, Def: ix, Hash: ix.Method == "hash"})
		}
	}
	return out
}
