package storage

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// LookupKey finds the live row that holds row i of rec's key on the
// primary key or unique constraint over the columns colIDs (column IDs, in
// any order). rec has the table's columns in catalog.TableDef.Columns order. It
// consults this transaction's own rows and the committed unique index, so
// it costs a hash lookup, not a scan. found is false when no row holds the
// key (or the key has a NULL). A committed row it returns may have been
// committed after this transaction's snapshot: FetchRows then leaves it
// out, and the caller has met a concurrent insert.
func (tx *Tx) LookupKey(tableID uint64, colIDs []int, rec arrow.Record, i int) (rowID int64, found bool, err error) {
	if err := tx.check(); err != nil {
		return 0, false, err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return 0, false, undefinedTableID(tableID)
	}
	con, ok := matchConstraint(tx.cat, def, colIDs)
	if !ok {
		return 0, false, pgerr.New(pgerrcode.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	pos := make([]int, len(con.cols))
	for k, id := range con.cols {
		pos[k], _ = def.ColumnByID(id)
	}
	return tx.lookupKey(def, con, rec.Columns(), pos, i)
}

// LookupIndexKey is LookupKey on the unique index named index of the
// table, one on an expression or a partial one
// (catalog.IndexDef.ComputedKey), whose key of the row is row i of keys
// (as ComputeIndexKey computes them).
func (tx *Tx) LookupIndexKey(tableID uint64, index string, keys []arrow.Array, i int) (rowID int64, found bool, err error) {
	if err := tx.check(); err != nil {
		return 0, false, err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return 0, false, undefinedTableID(tableID)
	}
	for _, con := range constraintsOf(tx.cat, def) {
		if con.key != nil && con.name == index {
			pos := make([]int, len(keys))
			for k := range pos {
				pos[k] = k
			}
			return tx.lookupKey(def, con, keys, pos, i)
		}
	}
	return 0, false, pgerr.New(pgerrcode.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
}

// lookupKey is LookupKey on the rule con, the key of the row being row i
// of the arrays of cols at pos.
func (tx *Tx) lookupKey(def *catalog.TableDef, con constraint, cols []arrow.Array, pos []int, i int) (rowID int64, found bool, err error) {
	var keyOK bool
	tx.keybuf, keyOK = con.rowKey(tx.keybuf, keyTypes(def, con), cols, pos, i)
	if !keyOK {
		return 0, false, nil
	}
	k := string(tx.keybuf)
	tableID := def.ID

	tt := tx.tables[tableID]
	if tt != nil {
		li, err := tx.localIndex(def, tt, con, false)
		if err != nil {
			return 0, false, err
		}
		if r, hit := li.m.get(k); hit && !tt.ownDel.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r)) {
			return r, true, nil
		}
		if li.full || tt.truncated {
			return 0, false, nil
		}
	}
	rt := tx.db.lookupRT(tableID)
	if rt == nil {
		return 0, false, nil
	}
	tx.db.idxMu.RLock()
	defer tx.db.idxMu.RUnlock()
	ix := rt.uniq[con.sig()]
	if ix == nil {
		return 0, false, nil
	}
	r, hit := ix.m.get(k)
	if !hit {
		return 0, false, nil
	}
	if ts := tx.db.head.Load().tables[tableID]; ts != nil && ts.deleted.Contains(uint64(r)) {
		return 0, false, nil
	}
	if tt != nil && tt.deletes.Contains(uint64(r)) {
		return 0, false, nil
	}
	return r, true, nil
}

// matchConstraint finds the unique rule of def over exactly the columns
// colIDs (in any order). A NULLS NOT DISTINCT one is preferred: its index
// holds every key another rule over the columns holds, and the keys with
// NULLs, which conflict on it (ON CONFLICT finds them).
func matchConstraint(cat *catalog.Catalog, def *catalog.TableDef, colIDs []int) (constraint, bool) {
	var found constraint
	ok := false
	for _, c := range constraintsOf(cat, def) {
		if c.key == nil && len(c.cols) == len(colIDs) && !slices.ContainsFunc(colIDs, func(id int) bool { return !slices.Contains(c.cols, id) }) {
			if !ok || c.nullsEqual && !found.nullsEqual {
				found, ok = c, true
			}
		}
	}
	return found, ok
}

// NullsNotDistinct reports whether a unique rule of the table over
// exactly the columns colIDs is NULLS NOT DISTINCT: a key of them with a
// NULL then conflicts with an equal one (ON CONFLICT's arbiter).
func (tx *Tx) NullsNotDistinct(tableID uint64, colIDs []int) bool {
	def := tx.cat.Tables[tableID]
	if def == nil {
		return false
	}
	con, ok := matchConstraint(tx.cat, def, colIDs)
	return ok && con.nullsEqual
}

// KeyRow finds the row this transaction sees whose primary key, unique
// constraint or unique index over the columns colIDs (in the rule's
// column order) holds the key given by keys (one array per column, in
// colIDs order; row i of each): a point lookup by key, a hash probe
// instead of a scan. found is false when no row holds the key (or it has
// a NULL). ok is false when the committed index cannot answer for this
// transaction's snapshot — the index follows the latest commit, and the
// table changed since the snapshot was taken, or the transaction wrote
// the table — or when the table has no such rule; the caller then scans.
func (tx *Tx) KeyRow(tableID uint64, colIDs []int, keys []arrow.Array, i int) (rowID int64, found, ok bool, err error) {
	if err := tx.check(); err != nil {
		return 0, false, false, err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return 0, false, false, undefinedTableID(tableID)
	}
	if !hasRule(tx.cat, def, colIDs) {
		return 0, false, false, nil
	}
	pos := make([]int, len(colIDs))
	ts := make([]types.T, len(colIDs))
	for k, id := range colIDs {
		pos[k] = k
		_, c := def.ColumnByID(id)
		ts[k] = c.Type
	}
	var keyOK bool
	tx.keybuf, keyOK = rowKey(tx.keybuf, ts, keys, pos, i, false)
	if !keyOK {
		return 0, false, true, nil
	}

	// A transaction that wrote the table reads it by scanning: its own
	// rows and deletions are not in the committed index.
	tt := tx.tables[tableID]
	if tt != nil && !tt.empty() {
		return 0, false, false, nil
	}
	rt := tx.db.lookupRT(tableID)
	if rt == nil {
		return 0, false, false, nil
	}
	var sig [64]byte
	snap := tx.snap.tables[tableID]
	tx.db.idxMu.RLock()
	defer tx.db.idxMu.RUnlock()
	// The index matches the head; it matches the snapshot when no commit
	// changed the table's rows between the two (a flush or compaction
	// moves rows, and drops from the index only rows deleted before).
	head := tx.db.head.Load().tables[tableID]
	ix := rt.uniq[string(appendSig(sig[:0], colIDs))]
	if ix == nil {
		// A NULLS NOT DISTINCT rule's index: the same keys without NULLs.
		ix = rt.uniq[string(appendSig(append(sig[:0], "n:"...), colIDs))]
	}
	if ix == nil || snap == nil || head == nil || head.epoch != snap.epoch || head.lastMod != snap.lastMod {
		return 0, false, false, nil
	}
	r, hit := ix.m.getBytes(tx.keybuf)
	if !hit || snap.deleted.Contains(uint64(r)) {
		return 0, false, true, nil
	}
	return r, true, true, nil
}

// hasRule reports whether def has a primary key, unique constraint or
// unique index over exactly the columns colIDs, in that order.
func hasRule(cat *catalog.Catalog, def *catalog.TableDef, colIDs []int) bool {
	if slices.Equal(def.PrimaryKey, colIDs) {
		return true
	}
	for _, u := range def.Uniques {
		if slices.Equal(u.Columns, colIDs) {
			return true
		}
	}
	for _, ix := range cat.Indexes {
		if ix.Table == def.ID && ix.PlainUnique() && slices.Equal(ix.Columns, colIDs) {
			return true
		}
	}
	return false
}

// UniqueKeys returns the column IDs of each primary key, unique constraint
// and unique index over column values of the table, as the transaction
// sees it (not those of the indexes catalog.IndexDef.ComputedKey
// reports, which LookupIndexKey looks up).
func (tx *Tx) UniqueKeys(tableID uint64) [][]int {
	def := tx.cat.Tables[tableID]
	if def == nil {
		return nil
	}
	var out [][]int
	for _, c := range constraintsOf(tx.cat, def) {
		if c.key == nil {
			out = append(out, slices.Clone(c.cols))
		}
	}
	return out
}
