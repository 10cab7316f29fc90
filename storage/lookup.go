package storage

import (
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
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
	var con constraint
	ok := false
	for _, c := range constraintsOf(tx.cat, def) {
		if len(c.cols) == len(colIDs) && !slices.ContainsFunc(colIDs, func(id int) bool { return !slices.Contains(c.cols, id) }) {
			con, ok = c, true
			break
		}
	}
	if !ok {
		return 0, false, pgerr.New(pgerrcode.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	pos := make([]int, len(con.cols))
	for k, id := range con.cols {
		pos[k], _ = def.ColumnByID(id)
	}
	var keyOK bool
	tx.keybuf, keyOK = rowKey(tx.keybuf, keyTypes(def, con), rec.Columns(), pos, i)
	if !keyOK {
		return 0, false, nil
	}
	k := string(tx.keybuf)

	tt := tx.tables[tableID]
	if tt != nil {
		li, err := tx.localIndex(def, tt, con, false)
		if err != nil {
			return 0, false, err
		}
		if r, hit := li.m[k]; hit && !tt.ownDel.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r)) {
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
	r, hit := ix.m[k]
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

// UniqueKeys returns the column IDs of each primary key, unique constraint
// and unique index of the table, as the transaction sees it.
func (tx *Tx) UniqueKeys(tableID uint64) [][]int {
	def := tx.cat.Tables[tableID]
	if def == nil {
		return nil
	}
	var out [][]int
	for _, c := range constraintsOf(tx.cat, def) {
		out = append(out, slices.Clone(c.cols))
	}
	return out
}
