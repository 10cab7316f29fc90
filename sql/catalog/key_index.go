package catalog

// KeyIndex is an index over plain columns whose rows storage can find by
// the values of its leading columns: a btree or hash index (unique or
// not) on columns, not expressions, over every row (not partial), and a
// primary key or UNIQUE constraint of several columns (one of a single
// column answers whole-key lookups through its hash index already).
type KeyIndex struct {
	Name    string
	Columns []int
	// Hash is a hash index: only a lookup of all its columns can use it
	// (PostgreSQL's hash indexes hold one column).
	Hash bool
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
		if (ix.Method == "btree" || ix.Method == "hash") && ix.Expr == "" && len(ix.Keys) == 0 && ix.Pred == "" && len(ix.Columns) > 0 {
			out = append(out, KeyIndex{Name: ix.Name, Columns: ix.Columns, Hash: ix.Method == "hash"})
		}
	}
	return out
}
