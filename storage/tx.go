package storage

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Tx is a transaction with snapshot isolation: it reads the database as
// committed when Begin was called, plus its own changes, and Commit makes
// all of its changes durable and visible at once (or none of them). A Tx is
// used by one goroutine at a time and must end with Commit or Rollback;
// until then it holds its snapshot's files and conflict history.
type Tx struct {
	db    *DB
	snap  *dbState
	unpin func()
	cat   *catalog.Catalog
	ops   []ddlOp
	// conds are the runs of ops that create an object IF NOT EXISTS or
	// drop one IF EXISTS (see IfNotExists, IfExists).
	conds  []condGroup
	tables map[uint64]*txTable
	seqs   map[string]*seqTxState
	// seqMoves are the committed sequences MoveTable moved, by their new
	// key (move.go).
	seqMoves map[string]*movedSequence
	// seqLSN is the WAL record the latest committed-sequence value drawn
	// by NextVal depends on: synced when the transaction ends.
	seqLSN uint64
	sps    []*savepoint
	done   bool
	// refs are the committed parent rows its foreign key checks relied
	// on (fkref.go), refSeen their identities.
	refs    []fkRef
	refSeen map[refID]bool
	keybuf  []byte
	// lockbuf holds the key locks checkUnique takes for a batch.
	lockbuf []lockKey
	// spillFiles are the segment files the transaction spilled (spill.go)
	// that no commit installed yet: removed when it ends.
	spillFiles []string
	// base is the oldest snapshot a change of this transaction was made
	// under, held (with unpinBase) once Refresh moved snap past it; write
	// conflicts at commit are judged against it. nil: snap.
	base      *dbState
	unpinBase func()
	// ruleTables are the tables whose tableRT.fence this transaction
	// counts in, lowered when it ends.
	ruleTables []*tableRT
	// doomed is the error of every later operation (40001), once Refresh
	// found that the transaction cannot commit.
	doomed error
	// Write locks (locks.go): ctx bounds lock waits; the rest is guarded
	// by DB.locks.mu.
	ctx context.Context
	// lockTimeout bounds each lock wait (SetLockTimeout).
	lockTimeout time.Duration
	held        []lockKey
	// intSpaces are the constraints whose one-integer keys the
	// transaction holds locks on, intHeld the number of those keys.
	intSpaces []*intLockSpace
	intHeld   int
	// intLog lists, while the transaction has a savepoint, the
	// one-integer keys it locked since the first: RollbackTo releases
	// those taken after its savepoint.
	intLog     []intLogEntry
	ended      chan struct{} // closed when the transaction ends; made on first lock
	waitingFor *Tx
	// waitingKey is the lock waited for since waitStart (with waitingFor).
	waitingKey lockKey
	waitStart  time.Time
	// owner is SetOwner's backend pid, which pg_locks shows.
	owner int32
}

// SetOwner records the backend (pid) the transaction runs for: Locks
// reports its locks under it.
func (tx *Tx) SetOwner(pid int32) { tx.owner = pid }

// txTable is what a transaction did to one table.
type txTable struct {
	id        uint64
	truncated bool
	inserts   []*tailBatch // inserts held in memory
	memBytes  int64        // the size of inserts
	insRows   int64        // rows inserted, in memory and spilled
	// insLSN is the LSN of the snapshot the first of them was inserted
	// under, or the durable LSN when they were last given new row IDs:
	// rows another server inserted after it may carry the row IDs this
	// transaction drew (rebase.go).
	insLSN uint64
	// spilled are the segments the transaction wrote its earlier inserts
	// to (spill.go), spilledIDs their rows' IDs.
	spilled    []*segment
	spilledIDs *roaring64.Bitmap
	ownIDs     *roaring64.Bitmap // row IDs of this tx's inserts
	deletes    *roaring64.Bitmap // committed rows this tx deleted
	ownDel     *roaring64.Bitmap // own inserted rows this tx deleted
	local      map[string]*localIndex
	// upsert is set when an INSERT ... ON CONFLICT wrote the table: a key
	// a concurrent transaction committed meanwhile is then a serialization
	// failure at commit (a retry resolves it), not a unique violation.
	upsert bool
}

// localIndex holds the keys of the rows a transaction inserted for one
// constraint; full means it also holds the keys of the committed rows the
// transaction sees (the constraint has no committed index yet).
type localIndex struct {
	m    keyMap
	full bool
}

func newTxTable(id uint64) *txTable {
	return &txTable{id: id, ownIDs: roaring64.New(), deletes: roaring64.New(), ownDel: roaring64.New(),
		spilledIDs: roaring64.New(), local: map[string]*localIndex{}}
}

func (tt *txTable) empty() bool {
	return !tt.truncated && tt.insRows == 0 && tt.deletes.IsEmpty()
}

// Begin starts a transaction on the latest committed state.
// With an object store that other servers write to, the latest state
// this server knows of: CatchUp first to see their latest commits.
func (db *DB) Begin() *Tx {
	snap, unpin := db.pinPublished()
	return &Tx{db: db, snap: snap, unpin: unpin, cat: snap.cat, tables: map[uint64]*txTable{},
		seqs: map[string]*seqTxState{}}
}

// CatchUp applies the commits that other servers on the object store
// (Options.Store) acknowledged before the call, so that the next Begin
// and Catalog see them: one GET of the store, unless a catch-up started
// less than Options.MaxStaleness ago. Without a store it does nothing.
// The session calls it before each statement outside a transaction
// block (tail.go).
func (db *DB) CatchUp() error {
	if db.closed.Load() {
		return errClosed()
	}
	return db.home.catchUp(db.opts.MaxStaleness)
}

// Catalog returns the catalog as this transaction sees it: the snapshot
// taken at Begin plus its own DDL. It is immutable.
func (tx *Tx) Catalog() *catalog.Catalog { return tx.cat }

func (tx *Tx) check() error {
	if tx.done {
		return pgerr.New(pgerrcode.NoActiveSQLTransaction, "transaction is already finished")
	}
	if tx.db.closed.Load() {
		return errClosed()
	}
	return tx.doomed
}

func (tx *Tx) table(id uint64) *txTable {
	tt := tx.tables[id]
	if tt == nil {
		tt = newTxTable(id)
		tx.tables[id] = tt
	}
	return tt
}

// firstWriteFenced returns the 40001 of fencedOut for the transaction's
// first write to table id while another transaction's DDL fences it: the
// statement fails before writing, and its session waits for that DDL
// (WaitFence) and runs it again on the DDL's outcome, as PostgreSQL's
// statement waits for the ALTER's lock, instead of the write failing at
// COMMIT. A transaction that wrote the table before the fence went up is
// left to its COMMIT, which fails: the DDL did not see those rows.
func (tx *Tx) firstWriteFenced(id uint64) error {
	if tt := tx.tables[id]; tt != nil && (tt.truncated || len(tt.inserts) > 0 || len(tt.spilled) > 0 || !tt.deletes.IsEmpty()) {
		return nil
	}
	return tx.fencedOut(id)
}

func undefinedTableID(id uint64) error {
	return pgerr.New(pgerrcode.UndefinedTable, "relation with OID %d does not exist", id)
}

// Insert adds the rows of rec to the table. rec has exactly the table's
// columns in catalog.TableDef.Columns order, with Arrow types Column.Type.Arrow();
// Insert keeps (retains) its arrays, which must not change afterwards. It
// assigns the rows their IDs and checks the primary key and unique
// constraints against the committed rows and this transaction's rows: a
// duplicate is 23505 and the insert then has no effect. NOT NULL and CHECK
// are the executor's job.
func (tx *Tx) Insert(tableID uint64, rec arrow.Record) error {
	if err := tx.check(); err != nil {
		return err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return undefinedTableID(tableID)
	}
	if int(rec.NumCols()) != len(def.Columns) {
		return errAlteredMeanwhile(def)
	}
	colIDs := make([]int, len(def.Columns))
	cols := make([]arrow.Array, len(def.Columns))
	for i, c := range def.Columns {
		if want := c.Type.Arrow(); !arrow.TypeEqual(rec.Column(i).DataType(), want) {
			return errAlteredMeanwhile(def)
		}
		colIDs[i] = c.ID
		cols[i] = rec.Column(i)
	}
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if err := tx.firstWriteFenced(tableID); err != nil {
		return err
	}
	tt := tx.table(tableID)
	cons := constraintsOf(tx.cat, def)
	var keys []*newKeys
	if len(cons) > 0 {
		var err error
		if keys, err = tx.checkUnique(def, tt, cons, colIDs, cols, n); err != nil {
			return err
		}
	}
	rt := tx.db.rt(tableID, def.Schema)
	start := rt.nextRowID.Add(int64(n)) - int64(n)
	rowIDs := rowIDRange(start, n)
	ids := rowIDs.Int64Values()
	for i, c := range cols {
		cols[i] = ownedColumn(c)
	}
	b := &tailBatch{colIDs: colIDs, cols: cols, rowIDs: rowIDs, n: n}
	tt.inserts = append(tt.inserts, b)
	tt.memBytes += batchBytes(b)
	if tt.insRows == 0 {
		tt.insLSN = tx.snap.lsn
	}
	tt.insRows += int64(n)
	tt.ownIDs.AddRange(uint64(start), uint64(start)+uint64(n))
	for ci, con := range cons {
		if keys[ci] != nil {
			keys[ci].record(tt.local[con.sig()].m, ids)
		}
	}
	return tx.maybeSpill(def, tt)
}

// ownedColumn is a column the transaction keeps (a new reference): a slice
// whose buffers are much larger than its rows need — rows fetched from a
// segment and passed through an UPDATE — is copied, so that the write
// pins, logs and counts its own rows rather than the segment's whole
// column.
func ownedColumn(a arrow.Array) arrow.Array {
	d := a.Data()
	if whole, need := arraySize(d), slicedSize(d); whole > 2*need+64<<10 {
		if c, err := array.Concatenate([]arrow.Array{a}, memory.DefaultAllocator); err == nil {
			return c
		}
	}
	a.Retain()
	return a
}

// keyTypes returns the SQL types of a constraint's columns.
func keyTypes(def *catalog.TableDef, con constraint) []types.T {
	if con.key != nil {
		return con.key.types
	}
	ts := make([]types.T, len(con.cols))
	for i, id := range con.cols {
		if _, c := def.ColumnByID(id); c != nil {
			ts[i] = c.Type
		}
	}
	return ts
}

// newKeys are the keys of a batch of new rows for one constraint, as
// checkUnique found them: a one-integer key's values (ints, with the key
// column for its NULLs), or every other key encoded (strs, "" for a key
// with a NULL).
type newKeys struct {
	ints []int64
	col  arrow.Array
	strs []string
}

// record adds the keys to m, row i's as ids[i].
func (k *newKeys) record(m keyMap, ids []int64) {
	if k.col == nil {
		for i, s := range k.strs {
			if s != "" {
				m.set(s, ids[i])
			}
		}
		return
	}
	nulls := k.col.NullN() > 0
	for i, v := range k.ints {
		if !nulls || k.col.IsValid(i) {
			m.ints[v] = ids[i]
		}
	}
}

// checkUnique checks n new rows against every constraint and returns their
// keys per constraint (nil where the rows lack the constraint's columns).
// A key that is one integer column is checked by its value, without
// encoding it (keyMap keeps such keys by value).
func (tx *Tx) checkUnique(def *catalog.TableDef, tt *txTable, cons []constraint, colIDs []int, cols []arrow.Array, n int) ([]*newKeys, error) {
	keys := make([]*newKeys, len(cons))
	rt := tx.db.lookupRT(def.ID)
	for ci, con := range cons {
		kc, pos, ok, err := keyColumns(con, colIDs, cols)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		li, err := tx.localIndex(def, tt, con, false)
		if err != nil {
			return nil, err
		}
		ks := &newKeys{}
		var bad int
		byValue := false
		if len(pos) == 1 && con.byValue() {
			ks.ints, byValue = intKeyValues(kc[pos[0]])
		}
		if byValue {
			ks.col = kc[pos[0]]
			bad = newIntKeys(li, tt, ks)
		} else {
			bad = tx.newStrKeys(def, li, tt, con, kc, pos, ks)
		}
		if bad >= 0 {
			return nil, uniqueViolation(def, con, kc, pos, bad).AtRow(bad)
		}
		// Lock the keys before looking at the committed ones: a
		// transaction inserting one of them commits or aborts first.
		if err := tx.lockKeys(def.ID, con.sig(), ks); err != nil {
			return nil, err
		}
		for !li.full && !tt.truncated && rt != nil {
			i, row := tx.db.committedConflict(rt, con, ks, tt)
			if i < 0 {
				break
			}
			// The row with the key may be on its way out: a transaction
			// deleting or updating it holds its lock. As PostgreSQL's
			// insert waits for the transaction deleting the row it
			// conflicts with, wait for that one to end and look again:
			// the key is free if it committed.
			waited, err := tx.db.locks.waitForHolder(tx, lockKey{table: def.ID, id: uint64(row)})
			if err != nil {
				return nil, err
			}
			if waited {
				continue
			}
			if tx.lostDelete(rt, tt) {
				return nil, Conflict()
			}
			return nil, uniqueViolation(def, con, kc, pos, i).AtRow(i)
		}
		keys[ci] = ks
	}
	return keys, nil
}

// newIntKeys checks the one-integer keys of ks against each other and
// against li (the transaction's rows, and the committed ones when li is
// full); it returns the first row whose key is taken, or -1.
func newIntKeys(li *localIndex, tt *txTable, ks *newKeys) int {
	bad := firstRepeat(ks.ints, ks.col)
	if len(li.m.ints) == 0 {
		return bad
	}
	nulls := ks.col.NullN() > 0
	end := len(ks.ints)
	if bad >= 0 {
		end = bad
	}
	for i, v := range ks.ints[:end] {
		if nulls && ks.col.IsNull(i) {
			continue
		}
		if r, hit := li.m.ints[v]; hit && !tt.ownDel.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r)) {
			return i
		}
	}
	return bad
}

// firstRepeat returns the first row of vals whose value an earlier row
// has (rows col has NULL in left out), or -1. Keys in ascending or
// descending order, as a bulk load's usually are, need no set.
func firstRepeat(vals []int64, col arrow.Array) int {
	nulls := col.NullN() > 0
	up, down, have := true, true, false
	var last int64
	for i, v := range vals {
		if nulls && col.IsNull(i) {
			continue
		}
		if have {
			up = up && v > last
			down = down && v < last
			if !up && !down {
				break
			}
		}
		last, have = v, true
	}
	if up || down {
		return -1
	}
	seen := make(map[int64]struct{}, len(vals))
	for i, v := range vals {
		if nulls && col.IsNull(i) {
			continue
		}
		if _, dup := seen[v]; dup {
			return i
		}
		seen[v] = struct{}{}
	}
	return -1
}

// newStrKeys encodes the keys of the n new rows (over the columns at pos)
// into ks.strs and checks them against each other and against li; it
// returns the first row whose key is taken, or -1.
func (tx *Tx) newStrKeys(def *catalog.TableDef, li *localIndex, tt *txTable, con constraint, cols []arrow.Array, pos []int, ks *newKeys) int {
	ts := keyTypes(def, con)
	n := cols[0].Len()
	ks.strs = make([]string, n)
	seen := make(map[string]struct{}, n)
	for i := 0; i < n; i++ {
		var ok bool
		tx.keybuf, ok = con.rowKey(tx.keybuf, ts, cols, pos, i)
		if !ok {
			continue
		}
		k := string(tx.keybuf)
		if _, dup := seen[k]; dup {
			return i
		}
		seen[k] = struct{}{}
		if r, hit := li.m.get(k); hit && !tt.ownDel.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r)) {
			return i
		}
		ks.strs[i] = k
	}
	return -1
}

// lockKeys takes the key locks of ks's keys of constraint sig; keys of
// one integer, by value (intlocks.go).
func (tx *Tx) lockKeys(table uint64, sig string, ks *newKeys) error {
	space := intSpaceKey{table: table, sig: sigHash(sig)}
	if ks.col != nil {
		var null func(i int) bool
		if ks.col.NullN() > 0 {
			null = ks.col.IsNull
		}
		return tx.db.locks.lockInts(tx, space, newIntBatch(ks.ints, null))
	}
	n := 0
	var ints []int64
	for _, k := range ks.strs {
		if v, ok := intKey(k); ok {
			ints = append(ints, v)
		} else if k != "" {
			n++
		}
	}
	if len(ints) > 0 {
		if err := tx.db.locks.lockInts(tx, space, newIntBatch(ints, nil)); err != nil {
			return err
		}
	}
	if n == 0 || tx.db.locks.full(tx, n) {
		return nil
	}
	locks := tx.lockbuf[:0]
	for _, k := range ks.strs {
		if _, isInt := intKey(k); k != "" && !isInt {
			locks = append(locks, keyLock(table, sig, k))
		}
	}
	tx.lockbuf = locks
	return tx.db.locks.lock(tx, locks)
}

// lostDelete reports whether a commit since the snapshot the
// transaction's changes were made under deleted a row tt deletes: the
// transaction lost a write conflict, and its commit would fail with
// 40001. An UPDATE of a row that another server updated meanwhile finds
// the key its new version takes held by the other server's version once a
// catch-up applied it after the row was locked (there are no row locks
// across servers): that is the conflict, not a duplicate key.
func (tx *Tx) lostDelete(rt *tableRT, tt *txTable) bool {
	if tt.deletes.IsEmpty() {
		return false
	}
	base := tx.snap
	if tx.base != nil {
		base = tx.base
	}
	db := tx.db
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, e := range rt.delLog {
		if e.lsn > base.lsn && e.rows.Intersects(tt.deletes) {
			return true
		}
	}
	return false
}

// committedConflict returns the first of the new keys ks held by a live
// committed row that tt has not deleted, and that row's ID; -1 if none.
func (db *DB) committedConflict(rt *tableRT, con constraint, ks *newKeys, tt *txTable) (int, int64) {
	db.idxMu.RLock()
	defer db.idxMu.RUnlock()
	ix := rt.uniq[con.sig()]
	if ix == nil || ix.m.len() == 0 {
		return -1, 0
	}
	var deleted deletedRows
	if ts := db.head.Load().tables[rt.id]; ts != nil {
		deleted = ts.deleted
	}
	live := func(r int64) bool {
		return !deleted.Contains(uint64(r)) && !(tt != nil && tt.deletes.Contains(uint64(r)))
	}
	if ks.col != nil {
		if len(ix.m.ints) == 0 {
			return -1, 0
		}
		for i, v := range ks.ints {
			if ks.col.IsNull(i) {
				continue
			}
			if r, ok := ix.m.ints[v]; ok && live(r) {
				return i, r
			}
		}
		return -1, 0
	}
	for i, k := range ks.strs {
		if k == "" {
			continue
		}
		if r, ok := ix.m.get(k); ok && live(r) {
			return i, r
		}
	}
	return -1, 0
}

// localIndex returns tt's index for con, building it from the
// transaction's rows (and, when the constraint has no committed index, the
// committed rows it sees) if needed. With dupErr, a key repeated among
// those rows is a "could not create unique index" error.
func (tx *Tx) localIndex(def *catalog.TableDef, tt *txTable, con constraint, dupErr bool) (*localIndex, error) {
	sig := con.sig()
	if li := tt.local[sig]; li != nil && !dupErr {
		return li, nil
	}
	li := &localIndex{m: newKeyMap()}
	ts := keyTypes(def, con)
	add := func(colIDs []int, cols []arrow.Array, ids []int64, skip ...*roaring64.Bitmap) error {
		cols, pos, ok, err := keyColumns(con, colIDs, cols)
		if err != nil || !ok {
			return err
		}
	rows:
		for i, id := range ids {
			for _, s := range skip {
				if s != nil && s.Contains(uint64(id)) {
					continue rows
				}
			}
			var ok bool
			tx.keybuf, ok = con.rowKey(tx.keybuf, ts, cols, pos, i)
			if !ok {
				continue
			}
			k := string(tx.keybuf)
			if _, dup := li.m.get(k); dup && dupErr {
				return duplicateInData(def, con, cols, pos, i)
			}
			li.m.set(k, id)
		}
		return nil
	}
	committed := false
	if rt := tx.db.lookupRT(def.ID); rt != nil {
		tx.db.idxMu.RLock()
		committed = rt.uniq[sig] != nil
		tx.db.idxMu.RUnlock()
	}
	if snapTS := tx.snap.tables[def.ID]; snapTS != nil && !tt.truncated && (!committed || dupErr) {
		li.full = true
		// Read the key columns of the committed rows this tx sees.
		positions := make([]int, len(con.cols))
		for i, id := range con.cols {
			positions[i], _ = def.ColumnByID(id)
		}
		r := tx.db.newScan(context.Background(), tx.snap, snapTS, def, positions, true,
			append(snapTS.deleted.layers(), tt.deletes), nil, nil)
		defer r.Release()
		for r.Next() {
			rec := r.Record()
			cols := rec.Columns()
			ids := cols[len(cols)-1].(*array.Int64).Int64Values()
			if err := add(con.cols, cols[:len(cols)-1], ids); err != nil {
				return nil, err
			}
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	for _, b := range tt.inserts {
		if err := add(b.colIDs, b.cols, b.rowIDs.Int64Values(), tt.ownDel); err != nil {
			return nil, err
		}
	}
	if len(tt.spilled) > 0 {
		ks, err := tx.spilledKeys(def, tt, con)
		if err != nil {
			return nil, err
		}
		if !ks.addTo(li.m, dupErr) {
			return nil, pgerr.New(pgerrcode.UniqueViolation, "could not create unique index %q", con.name).
				WithDetail("A key is repeated among the rows this transaction wrote.").WithConstraint(def.Schema, def.Name, con.name)
		}
	}
	if !dupErr || tt.local[sig] == nil {
		tt.local[sig] = li
	}
	return li, nil
}

// MarkUpsert records that an INSERT ... ON CONFLICT writes the table:
// Commit then reports a key inserted concurrently as 40001 instead of
// 23505, since running the statement again resolves the conflict.
func (tx *Tx) MarkUpsert(tableID uint64) {
	if !tx.done {
		tx.table(tableID).upsert = true
	}
}

// Delete removes rows, named by the row IDs this transaction's Scan
// returned (committed rows or its own inserts).
func (tx *Tx) Delete(tableID uint64, rowIDs []int64) error {
	if err := tx.check(); err != nil {
		return err
	}
	if tx.cat.Tables[tableID] == nil {
		return undefinedTableID(tableID)
	}
	if err := tx.firstWriteFenced(tableID); err != nil {
		return err
	}
	tt := tx.table(tableID)
	committed := roaring64.New()
	for _, r := range rowIDs {
		if !tt.ownIDs.Contains(uint64(r)) && !tt.truncated && !tt.deletes.Contains(uint64(r)) {
			committed.Add(uint64(r))
		}
	}
	// Lock the committed rows first (waiting for a concurrent writer);
	// on a conflict nothing is deleted.
	if err := tx.lockRows(tableID, committed); err != nil {
		return err
	}
	for _, r := range rowIDs {
		if tt.ownIDs.Contains(uint64(r)) {
			tt.ownDel.Add(uint64(r))
		}
	}
	tt.deletes.Or(committed)
	return nil
}

// Inserted reports whether this transaction inserted rows into the
// table (rows it still holds, in memory or spilled).
func (tx *Tx) Inserted(tableID uint64) bool {
	tt := tx.tables[tableID]
	return tt != nil && (tt.insRows > 0 || len(tt.spilled) > 0)
}

// CreatedOrTruncated reports whether this transaction created the table
// or truncated it, so that every row it holds is the transaction's own
// (COPY FREEZE's condition). Unlike PostgreSQL it does not ask that this
// happened in the current subtransaction.
func (tx *Tx) CreatedOrTruncated(tableID uint64) bool {
	if tt := tx.tables[tableID]; tt != nil && tt.truncated {
		return true
	}
	return tx.cat.Tables[tableID] != nil && tx.snap.cat.Tables[tableID] == nil
}

// Truncate removes every row of the table.
func (tx *Tx) Truncate(tableID uint64) error {
	if err := tx.check(); err != nil {
		return err
	}
	if tx.cat.Tables[tableID] == nil {
		return undefinedTableID(tableID)
	}
	// As for AlterTable: another transaction's open DDL on the table is
	// waited for, not made to fail at its commit.
	if err := tx.fencedOut(tableID); err != nil {
		return err
	}
	tt := tx.table(tableID)
	tt.truncated = true
	tt.inserts = nil
	tt.memBytes = 0
	tt.insRows = 0
	tt.spilled = nil
	tt.spilledIDs = roaring64.New()
	tt.ownIDs = roaring64.New()
	tt.deletes = roaring64.New()
	tt.ownDel = roaring64.New()
	tt.local = map[string]*localIndex{}
	return nil
}

// Scan streams the table as this transaction sees it: the rows committed
// at Begin minus those deleted (then or by this transaction), plus this
// transaction's own inserts as of the call. columns are positions in
// catalog.TableDef.Columns; a column a segment lacks reads as NULL. withRowID
// appends an int64 column "__rowid" (what Delete takes). Batches come
// straight from Parquet row groups and in-memory tail batches; the table is
// never materialised. The reader holds the snapshot's files until it is
// released or reaches its end; each record is valid until the next Next.
func (tx *Tx) Scan(ctx context.Context, tableID uint64, columns []int, withRowID bool) (array.RecordReader, error) {
	if err := tx.check(); err != nil {
		return nil, err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return nil, undefinedTableID(tableID)
	}
	if err := checkPositions(def, columns); err != nil {
		return nil, err
	}
	tt := tx.tables[tableID]
	var ts *tableState
	var deleted []*roaring64.Bitmap
	if s := tx.snap.tables[tableID]; s != nil && (tt == nil || !tt.truncated) {
		ts = s
		deleted = append(deleted, s.deleted.layers()...)
		if tt != nil && !tt.deletes.IsEmpty() {
			deleted = append(deleted, tt.deletes.Clone())
		}
	}
	var own []*tailBatch
	var ownDel *roaring64.Bitmap
	if tt != nil {
		own = slices.Clone(tt.inserts)
		ownDel = tt.ownDel.Clone()
		if len(tt.spilled) > 0 {
			// The spilled rows are read as segments, after the committed
			// ones; ownDel is then a deleted set for them too.
			view := &tableState{segments: slices.Clone(tt.spilled)}
			if ts != nil {
				view.segments = append(slices.Clip(ts.segments), tt.spilled...)
				view.tail = ts.tail
			}
			ts = view
			deleted = append(deleted, ownDel)
		}
	}
	return tx.db.newScan(ctx, tx.snap, ts, def, columns, withRowID, deleted, own, ownDel), nil
}

// newScan builds a reader over ts (may be nil) and own, pinning snap.
func (db *DB) newScan(ctx context.Context, snap *dbState, ts *tableState, def *catalog.TableDef, columns []int,
	withRowID bool, deleted []*roaring64.Bitmap, own []*tailBatch, ownDel *roaring64.Bitmap) *scanReader {
	schema, ids, types := scanSchema(def, columns, withRowID)
	r := &scanReader{db: db, ctx: ctx, schema: schema, colIDs: ids, types: types, withRowID: withRowID,
		deleted: deleted, own: own, ownDel: ownDel}
	r.refs.Store(1)
	if ts != nil {
		r.segs = ts.segments
		r.tail = ts.tail
	}
	r.unpin = db.pinState(snap)
	return r
}

// pinState pins a state already pinned by the caller (so its files exist).
func (db *DB) pinState(s *dbState) func() {
	db.pinMu.Lock()
	p := &pin{state: s}
	db.pins[p] = struct{}{}
	db.pinMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			db.pinMu.Lock()
			delete(db.pins, p)
			db.gcLocked(false)
			db.pinMu.Unlock()
		})
	}
}

// RowCount is a cheap estimate of the rows the transaction sees, for
// planning.
func (tx *Tx) RowCount(tableID uint64) int64 {
	tt := tx.tables[tableID]
	var n int64
	if ts := tx.snap.tables[tableID]; ts != nil && (tt == nil || !tt.truncated) {
		n += ts.liveRows()
		if tt != nil {
			n -= int64(tt.deletes.GetCardinality())
		}
	}
	if tt != nil {
		n += tt.insRows - int64(tt.ownDel.GetCardinality())
	}
	return max(n, 0)
}

// savepoint is the state of a transaction when Savepoint was called.
type savepoint struct {
	cat    *catalog.Catalog
	nops   int
	tables map[uint64]txTableSave
	seqs   map[string]seqTxState
	nrefs  int
	// nheld and nintLog are how many row and key locks the transaction
	// held and how long its intLog was: RollbackTo releases those taken
	// since.
	nheld, nintLog int
}

type txTableSave struct {
	truncated               bool
	inserts                 []*tailBatch
	memBytes, insRows       int64
	spilled                 []*segment
	spilledIDs              *roaring64.Bitmap
	ownIDs, deletes, ownDel *roaring64.Bitmap
}

// Savepoint records the transaction's state and returns a handle for
// RollbackTo.
func (tx *Tx) Savepoint() int {
	sp := &savepoint{cat: tx.cat, nops: len(tx.ops), tables: map[uint64]txTableSave{}, seqs: map[string]seqTxState{}, nrefs: len(tx.refs)}
	sp.nheld, sp.nintLog = tx.db.locks.heldCount(tx)
	for id, tt := range tx.tables {
		sp.tables[id] = txTableSave{truncated: tt.truncated, inserts: slices.Clip(tt.inserts), memBytes: tt.memBytes,
			insRows: tt.insRows, spilled: slices.Clip(tt.spilled), spilledIDs: tt.spilledIDs,
			ownIDs: tt.ownIDs.Clone(), deletes: tt.deletes.Clone(), ownDel: tt.ownDel.Clone()}
	}
	for k, s := range tx.seqs {
		sp.seqs[k] = *s
	}
	tx.sps = append(tx.sps, sp)
	return len(tx.sps) - 1
}

// RollbackTo undoes everything done since Savepoint returned sp (DDL and
// DML; sequence values handed out stay used) and, as PostgreSQL does for a
// rolled-back subtransaction, releases the row and key locks taken since
// (SELECT ... FOR UPDATE's, a deleted or updated row's, an inserted
// key's). sp stays valid; later savepoints are discarded.
func (tx *Tx) RollbackTo(sp int) {
	if tx.done || sp < 0 || sp >= len(tx.sps) {
		return
	}
	s := tx.sps[sp]
	tx.sps = tx.sps[:sp+1]
	tx.cat = s.cat
	if s.nops == 0 {
		tx.cat = tx.snap.cat // Refresh may have moved the snapshot since
	}
	tx.truncateOps(s.nops)
	tx.truncateRefs(s.nrefs)
	tx.db.locks.releaseSince(tx, s.nheld, s.nintLog)
	for id, tt := range tx.tables {
		saved, ok := s.tables[id]
		if !ok {
			delete(tx.tables, id)
			continue
		}
		tt.truncated = saved.truncated
		tt.inserts = saved.inserts
		tt.memBytes = saved.memBytes
		tt.insRows = saved.insRows
		tt.spilled = saved.spilled
		tt.spilledIDs = saved.spilledIDs
		tt.ownIDs = saved.ownIDs.Clone()
		tt.deletes = saved.deletes.Clone()
		tt.ownDel = saved.ownDel.Clone()
		tt.local = map[string]*localIndex{}
	}
	tx.seqs = map[string]*seqTxState{}
	for k, v := range s.seqs {
		tx.seqs[k] = &v
	}
}

// Rollback abandons the transaction. It is safe to call after Commit (it
// then does nothing).
func (tx *Tx) Rollback() {
	if tx.done {
		return
	}
	tx.done = true
	// The values nextval handed out must not come back after a crash,
	// even though nothing of the transaction commits. A failed fsync
	// leaves the database broken, which every later write reports.
	_ = tx.db.syncTo(tx.seqLSN)
	tx.tables = nil
	tx.removeSpills()
	tx.unpin()
	if tx.unpinBase != nil {
		tx.unpinBase()
	}
	tx.db.locks.release(tx)
	for _, rt := range tx.ruleTables {
		rt.fence.lower(tx)
	}
}

// String names the transaction by its snapshot's LSN, for logs.
func (tx *Tx) String() string { return fmt.Sprintf("tx@%d", tx.snap.lsn) }
