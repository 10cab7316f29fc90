package storage

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Foreign keys under concurrency. The executor checks a new child row's
// key against the referenced (parent) table as of the latest commit plus
// the transaction's own changes (CheckReferences: a probe of the parent's
// unique index, not a scan), and the rows that reference a parent row it
// deletes as its snapshot shows them. Neither check alone stops a child
// row and the deletion of its parent from committing side by side, so
// Commit settles it, first committer wins, without row locks (which would
// serialise the sessions adding children to one parent):
//
//   - a child transaction's commit fails with 23503 when a parent row one
//     of its checks relied on was deleted by a commit since, and no live
//     row holds the key now (an UPDATE that kept the key leaves one);
//   - its commit appends the parent rows it relied on to the parent
//     table's reference history (tableRT.refLog, pruned like delLog), and
//     on an object store its WAL record carries them (walTableOp.refs),
//     so that the servers applying the record (tail.go) learn them too;
//   - a transaction that deleted a parent row that a commit since its
//     snapshot (the one its changes were made under, as for write
//     conflicts) relied on fails, unless it holds the key again itself:
//     with 23503 when the foreign key is NO ACTION or RESTRICT on both
//     delete and update, else with 40001 (its ON DELETE / ON UPDATE
//     action could not see the new child row; a retry applies it).
//
// A READ COMMITTED transaction of several statements is judged against
// its first changed snapshot: a child committed between that and a later
// statement that deletes its parent with an action (which saw the child
// and acted on it) makes the commit fail with 40001 too, needlessly.

// fkRef is a committed parent row a foreign key check of a transaction
// relied on.
type fkRef struct {
	// child is the child table, fk the foreign key's name, parent the
	// referenced table, sig its unique rule's signature, key the encoded
	// key on it.
	child, parent uint64
	fk, sig, key  string
	row           int64
	// text is the child's key as the violation's detail shows it.
	text string
}

// refID identifies a reference within a transaction.
type refID struct {
	child, parent uint64
	fk, key       string
}

// refLogEntry lists the parent rows of one table that the child rows of
// one commit reference.
type refLogEntry struct {
	lsn  uint64
	refs []fkRef
}

// keyCompatible reports whether child values of type c encode as the
// parent key's values of type p do, so that a child key probes the
// parent's index as is.
func keyCompatible(c, p types.T) bool {
	ints := func(f types.Family) bool { return f == types.Int2 || f == types.Int4 || f == types.Int8 }
	texts := func(f types.Family) bool { return f == types.Text || f == types.Varchar }
	switch {
	case ints(c.Family) && ints(p.Family), texts(c.Family) && texts(p.Family):
		return true
	case c.Family != p.Family || c.Family == types.ArrayFamily || c.Family == types.Record:
		return false
	}
	return arrow.TypeEqual(c.Arrow(), p.Arrow())
}

// CheckReferences looks up the parent rows of new child rows: for each
// row rows[j] of keys (the columns of foreign key fkName of table
// childID, in the foreign key's order; a key with a NULL is the caller's
// to skip), ids[j] is the live row of the referenced table holding that
// key, as of the latest commit plus this transaction's own changes (its
// inserts count, its deletes do not), or -1. Each committed parent row
// found is remembered for Commit (see above). ok is false when the index
// cannot answer — the referenced columns have no unique rule with a
// committed index, or their types encode differently from the child's —
// and the caller checks by other means.
func (tx *Tx) CheckReferences(childID uint64, fkName string, keys []arrow.Array, rows []int) (ids []int64, ok bool, err error) {
	if err := tx.check(); err != nil {
		return nil, false, err
	}
	child := tx.cat.Tables[childID]
	if child == nil {
		return nil, false, undefinedTableID(childID)
	}
	fk := foreignKey(child, fkName)
	if fk == nil || len(fk.Columns) != len(keys) {
		return nil, false, nil
	}
	parent := tx.cat.Tables[fk.RefTable]
	if parent == nil {
		return nil, false, nil
	}
	con, found := matchConstraint(tx.cat, parent, fk.RefColumns)
	if !found {
		return nil, false, nil
	}
	// pos[k] is the key array of the rule's column k; childTypes are the
	// child columns' types, in keys' order.
	pos := make([]int, len(con.cols))
	childTypes := make([]types.T, len(keys))
	for i, id := range fk.RefColumns {
		_, pc := parent.ColumnByID(id)
		_, cc := child.ColumnByID(fk.Columns[i])
		if pc == nil || cc == nil || !keyCompatible(cc.Type, pc.Type) {
			return nil, false, nil
		}
		childTypes[i] = cc.Type
		pos[slices.Index(con.cols, id)] = i
	}
	kt := keyTypes(parent, con)
	sig := con.sig()

	tt := tx.tables[parent.ID]
	var li *localIndex
	if tt != nil {
		if li, err = tx.localIndex(parent, tt, con, false); err != nil {
			return nil, false, err
		}
	}
	rt := tx.db.lookupRT(parent.ID)
	tx.db.idxMu.RLock()
	defer tx.db.idxMu.RUnlock()
	var ix *uniqueIndex
	if rt != nil {
		ix = rt.uniq[sig]
	}
	if ix == nil && (li == nil || !li.full) {
		return nil, false, nil
	}
	var deleted deletedRows
	if ts := tx.db.head.Load().tables[parent.ID]; ts != nil {
		deleted = ts.deleted
	}
	ids = make([]int64, len(rows))
	for j, i := range rows {
		ids[j] = -1
		var keyOK bool
		tx.keybuf, keyOK = rowKey(tx.keybuf, kt, keys, pos, i, false)
		if !keyOK {
			continue
		}
		k := string(tx.keybuf)
		if li != nil {
			if r, hit := li.m.get(k); hit && !tt.ownDel.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r)) {
				ids[j] = r
			} else if li.full || tt.truncated {
				continue
			}
		}
		if ids[j] < 0 && ix != nil {
			if r, hit := ix.m.get(k); hit && !deleted.Contains(uint64(r)) && (tt == nil || !tt.deletes.Contains(uint64(r))) {
				ids[j] = r
			}
		}
		if ids[j] >= 0 && (tt == nil || !tt.ownIDs.Contains(uint64(ids[j]))) {
			tx.addRef(fkRef{child: childID, parent: parent.ID, fk: fkName, sig: sig, key: k, row: ids[j]}, keys, childTypes, i)
		}
	}
	return ids, true, nil
}

// addRef remembers ref, once per key; its text is row i of keys.
func (tx *Tx) addRef(ref fkRef, keys []arrow.Array, ts []types.T, i int) {
	id := refID{child: ref.child, parent: ref.parent, fk: ref.fk, key: ref.key}
	if tx.refSeen == nil {
		tx.refSeen = map[refID]bool{}
	}
	if tx.refSeen[id] {
		return
	}
	tx.refSeen[id] = true
	vals := make([]string, len(keys))
	for c, a := range keys {
		vals[c] = string(types.AppendText(nil, types.ValueAt(a, i, ts[c]), ts[c], nil))
	}
	ref.text = strings.Join(vals, ", ")
	tx.refs = append(tx.refs, ref)
}

// truncateRefs forgets the references remembered after the first n
// (a rollback to a savepoint).
func (tx *Tx) truncateRefs(n int) {
	for _, ref := range tx.refs[n:] {
		delete(tx.refSeen, refID{child: ref.child, parent: ref.parent, fk: ref.fk, key: ref.key})
	}
	tx.refs = tx.refs[:n]
}

// foreignKey returns def's foreign key named name, or nil.
func foreignKey(def *catalog.TableDef, name string) *catalog.ForeignKeyDef {
	for i := range def.ForeignKeys {
		if def.ForeignKeys[i].Name == name {
			return &def.ForeignKeys[i]
		}
	}
	return nil
}

// ownKeys tells whether the transaction's inserted rows hold a key on a
// table's rule, from the keys commitLocked gathered.
type ownKeys struct {
	keys map[uint64]map[string]*keySet
	sets map[uint64]map[string]keyMap
}

func (o *ownKeys) has(table uint64, sig, key string) bool {
	ks := o.keys[table][sig]
	if ks == nil || len(ks.ints)+len(ks.strs) == 0 {
		return false
	}
	if o.sets == nil {
		o.sets = map[uint64]map[string]keyMap{}
	}
	if o.sets[table] == nil {
		o.sets[table] = map[string]keyMap{}
	}
	set, ok := o.sets[table][sig]
	if !ok {
		set = newKeyMap()
		ks.addTo(set, false)
		o.sets[table][sig] = set
	}
	_, hit := set.get(key)
	return hit
}

// checkRefsLocked judges the transaction's foreign keys against the head
// (db.mu held; see above): the parent rows its checks relied on must
// still be live, and the parent rows it deletes must not have gained
// children since base. newCat is the catalog it commits, own its inserted
// keys. It returns the references the commit's record carries, by child
// table, with the rows now live.
func (tx *Tx) checkRefsLocked(head, base *dbState, newCat *catalog.Catalog, own *ownKeys) (map[uint64][]fkRef, error) {
	db := tx.db
	db.idxMu.RLock()
	defer db.idxMu.RUnlock()
	var out map[uint64][]fkRef
	for _, ref := range tx.refs {
		child, parent := newCat.Tables[ref.child], newCat.Tables[ref.parent]
		if child == nil || parent == nil || foreignKey(child, ref.fk) == nil {
			continue
		}
		pt := tx.tables[ref.parent]
		if pt != nil && (pt.truncated || pt.deletes.Contains(uint64(ref.row))) {
			continue // its own statements dealt with its own deletes
		}
		rt := db.lookupRT(ref.parent)
		if rt == nil || rt.uniq[ref.sig] == nil {
			continue
		}
		r, hit := rt.uniq[ref.sig].m.get(ref.key)
		if hit {
			if ts := head.tables[ref.parent]; ts != nil && ts.deleted.Contains(uint64(r)) || pt != nil && pt.deletes.Contains(uint64(r)) {
				hit = false
			}
		}
		if !hit {
			if own.has(ref.parent, ref.sig, ref.key) {
				continue
			}
			fk := foreignKey(child, ref.fk)
			names := make([]string, len(fk.Columns))
			for i, id := range fk.Columns {
				if _, c := child.ColumnByID(id); c != nil {
					names[i] = c.Name
				}
			}
			return nil, pgerr.New(pgerrcode.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", child.Name, ref.fk).
				WithDetail("Key (%s)=(%s) is not present in table \"%s\".", strings.Join(names, ", "), ref.text, parent.Name).
				WithConstraint(child.Schema, child.Name, ref.fk)
		}
		if out == nil {
			out = map[uint64][]fkRef{}
		}
		ref.row = r
		out[ref.child] = append(out[ref.child], ref)
	}

	for id, tt := range tx.tables {
		if tt.deletes.IsEmpty() && !tt.truncated {
			continue
		}
		rt := db.lookupRT(id)
		if rt == nil {
			continue
		}
		for _, e := range rt.refLog {
			if e.lsn <= base.lsn {
				continue
			}
			for _, ref := range e.refs {
				if !tt.truncated && !tt.deletes.Contains(uint64(ref.row)) || own.has(id, ref.sig, ref.key) {
					continue
				}
				child, parent := newCat.Tables[ref.child], newCat.Tables[id]
				if child == nil || parent == nil {
					continue
				}
				fk := foreignKey(child, ref.fk)
				if fk == nil {
					continue
				}
				if !checkOnly(fk.OnDelete) || !checkOnly(fk.OnUpdate) {
					return nil, serializationFailure()
				}
				names := make([]string, len(fk.RefColumns))
				for i, cid := range fk.RefColumns {
					if _, c := parent.ColumnByID(cid); c != nil {
						names[i] = c.Name
					}
				}
				return nil, pgerr.New(pgerrcode.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", parent.Name, fk.Name, child.Name).
					WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", strings.Join(names, ", "), ref.text, child.Name).
					WithConstraint(child.Schema, child.Name, fk.Name)
			}
		}
	}
	return out, nil
}

// checkOnly reports whether a referential action only checks (NO ACTION,
// RESTRICT).
func checkOnly(action string) bool {
	return action == catalog.FKNoAction || action == catalog.FKRestrict
}

// logRefsLocked appends the references of the commit at lsn (by child
// table) to their parent tables' histories (db.mu held), pruning them.
func (db *DB) logRefsLocked(lsn uint64, refs map[uint64][]fkRef, minLSN uint64) {
	byParent := map[uint64][]fkRef{}
	for _, rs := range refs {
		for _, ref := range rs {
			byParent[ref.parent] = append(byParent[ref.parent], ref)
		}
	}
	for id, rs := range byParent {
		rt := db.lookupRT(id)
		if rt == nil {
			continue
		}
		rt.refLog = append(rt.refLog, refLogEntry{lsn: lsn, refs: rs})
		pruneRefLog(rt, minLSN)
	}
}

// pruneRefLog drops reference history no transaction can need: entries
// at or below the oldest snapshot in use (db.mu held).
func pruneRefLog(rt *tableRT, minLSN uint64) {
	i := 0
	for i < len(rt.refLog) && rt.refLog[i].lsn <= minLSN {
		i++
	}
	if i > 0 {
		rt.refLog = append(rt.refLog[:0:0], rt.refLog[i:]...)
	}
}
