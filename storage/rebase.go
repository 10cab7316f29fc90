package storage

// Rebasing commits onto other servers' commits (several servers on one
// object store, tail.go). A commit is judged against the head under DB.mu
// (Tx.commitLocked): its deletions against the rows deleted by the commits
// since its snapshot (delLog), its inserted keys against the unique
// indexes, its foreign keys against the reference history. When its group
// commit loses the log to another server (the log object it wants is
// taken), the server drops the group's records, applies the other
// server's log objects as if those transactions had committed here, and
// each commit of the group is judged again against the new head and
// appended again (Tx.Commit): the checks a commit makes against a
// concurrent commit of its own server. So an append always commits, an
// update or delete commits unless one of the commits it missed deleted
// (updated) one of its rows (40001), and an insert of a key one of them
// inserted fails with 23505, as it does on one server and in PostgreSQL
// (15, under each isolation level, answers the second of two concurrent
// inserters of a key "duplicate key value" once the first commits; a
// retry would only get it again), or with 40001 for INSERT ... ON
// CONFLICT, which a retry resolves. A commit that keeps losing
// (rebaseTries) fails with 40001. Returning to the durable state costs
// what the lost commits did, not the size of the tables: the unique
// indexes take back the keys those commits set (keyUndo), and are
// rebuilt only for a table one of them truncated, changed the rules of,
// or set more than undoKeys keys of.
//
// What differs from one server is row IDs: each server draws them from
// its own counter (advanced past every row it applies), so rows another
// server inserted may carry IDs a transaction drew before it applied them
// (tableRT.foreignIns past txTable.insLSN). The transaction's rows then
// get new IDs, drawn past every row applied: at commit (renumberLocked,
// in the batches its record carries) and when a READ COMMITTED statement
// moves its snapshot past the other server's rows (Refresh:
// renumberOwn, throughout its state, so that no statement sees two
// rows under one ID).
//
// A transaction that changed the schema is rebased as its rows are: its
// DDL is replayed on the new head's catalog (replayOps), as it is after a
// concurrent DDL commit on one server, so a change the other server's
// commits made impossible (a name they took, a table they altered or
// dropped) fails there, and any other commits (a table it created keeps
// its ID: tables take IDs no other server hands out, tableid.go).
// Rows spilled to segment files of the transaction's own
// (spill.go; only the leader spills) carry their IDs in the files: a
// spilled transaction is rebased, its rows in memory renumbered, and its
// spilled rows keep their IDs unless another server's rows carry one of
// them (spilledClash), as they do when the other server inserted into the
// table while the transaction ran (both servers draw IDs past the same
// rows). Then the spilled rows are written again, to new files under new
// IDs drawn spillGap past every row applied (a cost like the spill's
// own): by the commit, which then tries again (respill), and by a READ
// COMMITTED statement that moves the snapshot past the other server's
// rows (respillAll, with the rows deleted again and the savepoints'
// state).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// rebaseTries bounds how often a commit is rebased after losing the log
// to another server: each loss means another server committed, so only a
// commit that cannot get a put in under contention runs out of them.
const rebaseTries = 16

// lostRace is errLostRace with a detail saying why the commit was not
// rebased.
func lostRace(detail string, args ...any) error {
	return pgerr.New(pgerrcode.SerializationFailure, "%s", errLostRace.Message).WithDetail(detail, args...)
}

// spilledRowIDs is the error of a transaction whose spilled rows shared
// row IDs with rows other servers inserted at each of its attempts'
// tries (respill).
func spilledRowIDs(attempts int) error {
	return lostRace("Other servers' rows kept carrying the row IDs of the rows this transaction wrote to segment files "+
		"of its own (a large transaction), which were written again under new row IDs %d times.", attempts)
}

// notRebased returns nil when a commit that lost the log to another
// server on its attempt'th try is judged again on the new state, else the
// 40001 it fails with.
func (tx *Tx) notRebased(attempt int) error {
	if attempt >= rebaseTries {
		return lostRace("Its commit lost the log to other servers %d times in a row.", attempt)
	}
	return nil
}

// rebatched returns the batches of prepared as new batches holding the
// same rows, for another try at a commit: the state of the try that lost
// the log holds the old ones, which its readers may still look at (and a
// commit sets a batch's LSNs).
func rebatched(prepared map[uint64][]*tailBatch) map[uint64][]*tailBatch {
	out := make(map[uint64][]*tailBatch, len(prepared))
	for id, bs := range prepared {
		nbs := make([]*tailBatch, len(bs))
		for i, b := range bs {
			nbs[i] = &tailBatch{colIDs: b.colIDs, cols: b.cols, rowIDs: b.rowIDs, n: b.n}
		}
		out[id] = nbs
	}
	return out
}

// foreignRows reports whether rows another server inserted into the table
// of tt, applied since the transaction drew its rows' IDs, may carry the
// same IDs (db.mu held).
func (tx *Tx) foreignRows(tt *txTable) bool {
	if tt.insRows == 0 {
		return false
	}
	rt := tx.db.lookupRT(tt.id)
	return rt != nil && rt.foreignIns > tt.insLSN
}

// spilledClash reports whether a row of the table of tt in the head,
// other than those of the head when the transaction drew its rows' IDs,
// may carry the ID of one of its spilled rows (db.mu held): a row of the
// tail committed since, or a segment whose range of row IDs meets
// theirs (the transaction's IDs were drawn past every segment then).
func (tx *Tx) spilledClash(tt *txTable) bool {
	ts := tx.db.head.Load().tables[tt.id]
	if ts == nil || tt.spilledIDs.IsEmpty() {
		return false
	}
	ids := tt.spilledIDs
	for _, seg := range ts.segments {
		if seg.rows > 0 && seg.maxRow >= 0 && ids.Rank(uint64(seg.maxRow))-rankBelow(ids, seg.minRow) > 0 {
			return true
		}
	}
	for _, b := range ts.tail {
		if b.lsn <= tt.insLSN {
			continue
		}
		for _, r := range b.rowIDs.Int64Values() {
			if ids.Contains(uint64(r)) {
				return true
			}
		}
	}
	return false
}

// rankBelow returns how many IDs of s are below v.
func rankBelow(s *roaring64.Bitmap, v int64) uint64 {
	if v <= 0 {
		return 0
	}
	return s.Rank(uint64(v - 1))
}

// renumberLocked gives the rows of prepared (the transaction's inserts
// held in memory, by table, as its record carries them) new row IDs in
// each table whose rows another server's may share IDs with (db.mu held):
// drawn now, past every row applied. Spilled rows keep theirs, written in
// their files: when another server's rows carry one of them,
// errSpillClash.
func (tx *Tx) renumberLocked(prepared map[uint64][]*tailBatch) error {
	for id, tt := range tx.tables {
		if !tx.foreignRows(tt) {
			continue
		}
		if len(tt.spilled) > 0 && tx.spilledClash(tt) {
			return errSpillClash
		}
		rt := tx.db.lookupRT(id)
		bs := prepared[id]
		n := 0
		for _, b := range bs {
			n += b.n
		}
		next := rt.nextRowID.Add(int64(n)) - int64(n)
		nbs := make([]*tailBatch, len(bs))
		for i, b := range bs {
			nbs[i] = &tailBatch{colIDs: b.colIDs, cols: b.cols, rowIDs: rowIDRange(next, b.n), n: b.n}
			next += int64(b.n)
		}
		prepared[id] = nbs
		tt.insLSN = tx.db.durableLSN.Load() // every foreign row applied so far is counted past
	}
	return nil
}

// renumberOwn gives the rows the transaction inserted new row IDs in each
// table whose rows another server's may share IDs with, throughout its
// state: its batches, its own and own deleted row ID sets, and those its
// savepoints saved; its local key indexes are rebuilt when next used.
// Spilled rows keep theirs unless another server's rows carry one of
// them: then they are written again under new IDs (respillAll). It runs
// between statements (Refresh), when no statement holds a row's ID; on an
// error nothing the statements see has changed.
func (tx *Tx) renumberOwn() error {
	db := tx.db
	type stale struct {
		tt    *txTable
		rt    *tableRT
		clash bool
	}
	var tables []stale
	db.mu.Lock()
	for _, tt := range tx.tables {
		if tx.foreignRows(tt) {
			tables = append(tables, stale{tt, db.lookupRT(tt.id), tx.spilledClash(tt)})
		}
	}
	// Every row of another server applied so far is counted past: IDs
	// drawn from now on are none of theirs (countPast).
	durable := db.durableLSN.Load()
	db.mu.Unlock()
	for _, st := range tables {
		if st.clash {
			if err := tx.respillAll(st.tt, st.rt); err != nil {
				return err
			}
		}
	}
	for _, st := range tables {
		tx.renumberTable(st.tt, st.rt)
		st.tt.insLSN = durable
	}
	return nil
}

// respillAll writes every spilled row of tt, deleted again or not, to new
// segment files of its own (persisted), one for each of its files, under
// new row IDs drawn spillGap past every row applied, and moves the
// transaction's state and its savepoints' onto them: a savepoint's
// spilled files are the first of tt's, and a rollback to it finds their
// rows, and its deletions of them, under the new IDs. The old files are
// removed when the transaction ends.
func (tx *Tx) respillAll(tt *txTable, rt *tableRT) error {
	def := tx.cat.Tables[tt.id]
	n := int64(tt.spilledIDs.GetCardinality())
	next := rt.nextRowID.Add(spillGap+n) - n
	moved := map[*segment]*segment{}
	var moves []idMove
	var paths []string
	for _, seg := range tt.spilled {
		s, ms, err := tx.rewriteSpill(def, rt, seg, &next)
		if err != nil {
			return err
		}
		if s == nil {
			return spillError(seg.path, errors.New("a spilled file holds no rows"))
		}
		moved[seg], moves = s, append(moves, ms...)
		paths = append(paths, s.path)
	}
	if err := tx.db.home.persist(paths); err != nil {
		return spillError(rt.dir, err)
	}
	slices.SortFunc(moves, func(a, b idMove) int { return cmp.Compare(a.from, b.from) })
	newSegs := func(segs []*segment) []*segment {
		out := make([]*segment, len(segs))
		for i, s := range segs {
			out[i] = moved[s]
		}
		return out
	}
	tt.spilled = newSegs(tt.spilled)
	tt.spilledIDs, tt.ownIDs, tt.ownDel = remapIDs(tt.spilledIDs, moves), remapIDs(tt.ownIDs, moves), remapIDs(tt.ownDel, moves)
	for _, sp := range tx.sps {
		if s, ok := sp.tables[tt.id]; ok {
			s.spilled = newSegs(s.spilled)
			s.spilledIDs, s.ownIDs, s.ownDel = remapIDs(s.spilledIDs, moves), remapIDs(s.ownIDs, moves), remapIDs(s.ownDel, moves)
			sp.tables[tt.id] = s
		}
	}
	tt.local = map[string]*localIndex{}
	return nil
}

// idMove is a range of row IDs (a batch's, or a run of a spilled file's)
// and its new start.
type idMove struct {
	from, to, n int64
}

// renumberTable gives every row of tt the transaction or one of its
// savepoints holds in memory a new row ID drawn from rt. Each batch holds
// a range of IDs (Insert draws one per batch) and gets a new range; the
// own row ID sets are the union of their batches' ranges and the spilled
// rows' IDs, which stay.
func (tx *Tx) renumberTable(tt *txTable, rt *tableRT) {
	moved := map[*tailBatch]*tailBatch{}
	var moves []idMove
	renumber := func(bs []*tailBatch, spilled *roaring64.Bitmap) ([]*tailBatch, *roaring64.Bitmap) {
		out := make([]*tailBatch, len(bs))
		own := spilled.Clone()
		for i, b := range bs {
			nb := moved[b]
			if nb == nil {
				start := rt.nextRowID.Add(int64(b.n)) - int64(b.n)
				nb = &tailBatch{colIDs: b.colIDs, cols: b.cols, rowIDs: rowIDRange(start, b.n), n: b.n}
				moved[b] = nb
				moves = append(moves, idMove{from: b.rowIDs.Value(0), to: start, n: int64(b.n)})
			}
			out[i] = nb
			first := nb.rowIDs.Value(0)
			own.AddRange(uint64(first), uint64(first)+uint64(nb.n))
		}
		return out, own
	}
	tt.inserts, tt.ownIDs = renumber(tt.inserts, tt.spilledIDs)
	saved := make(map[*savepoint]txTableSave, len(tx.sps))
	for _, sp := range tx.sps {
		if s, ok := sp.tables[tt.id]; ok {
			s.inserts, s.ownIDs = renumber(s.inserts, s.spilledIDs)
			saved[sp] = s
		}
	}
	slices.SortFunc(moves, func(a, b idMove) int { return cmp.Compare(a.from, b.from) })
	tt.ownDel = remapIDs(tt.ownDel, moves)
	for sp, s := range saved {
		s.ownDel = remapIDs(s.ownDel, moves)
		sp.tables[tt.id] = s
	}
	tt.local = map[string]*localIndex{}
}

// remapIDs returns the row IDs of s, those in a range of moves (sorted by
// from, not overlapping) moved to its new start.
func remapIDs(s *roaring64.Bitmap, moves []idMove) *roaring64.Bitmap {
	out := roaring64.New()
	for it := s.Iterator(); it.HasNext(); {
		r := int64(it.Next())
		i := sort.Search(len(moves), func(i int) bool { return moves[i].from > r }) - 1
		if i >= 0 && r < moves[i].from+moves[i].n {
			r += moves[i].to - moves[i].from
		}
		out.Add(uint64(r))
	}
	return out
}

// rowIDRange returns the row IDs start, start+1, ..., start+n-1.
func rowIDRange(start int64, n int) *array.Int64 {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(start + int64(i))
	}
	return b.NewInt64Array()
}

// undoKeys is the most keys of one constraint a commit records how to
// take back (keyUndo); a commit that sets more has its table's indexes
// rebuilt should it lose the log (a scan of the table, as the commit
// was large).
const undoKeys = 1 << 16

// keyUndo records what a commit not yet durable did to the unique
// indexes of a table on an object store, to take it back should its
// group commit lose the log: the keys it set in index ix with the rows
// they mapped to before, or, with ix nil, that the table's indexes are
// to be rebuilt from the state the server returns to (the commit
// replaced, emptied or set many keys of them). So a lost race costs the
// lost commits' keys, not a scan of every table.
type keyUndo struct {
	lsn   uint64
	table uint64
	ix    *uniqueIndex
	ints  []intUndo
	strs  []strUndo
}

// intUndo is a one-integer key a commit set to row, and the row it
// mapped to before (had: it mapped to one).
type intUndo struct {
	key, row, old int64
	had           bool
}

// strUndo is intUndo for a key kept as a string.
type strUndo struct {
	key      string
	row, old int64
	had      bool
}

// setUndoable sets the keys in ix as addTo does, and returns how to take
// them back: the undo of the commit of record lsn in table id.
func (s *keySet) setUndoable(ix *uniqueIndex, lsn, id uint64) keyUndo {
	u := keyUndo{lsn: lsn, table: id, ix: ix, ints: make([]intUndo, len(s.ints)), strs: make([]strUndo, len(s.strs))}
	m := ix.m
	for i, k := range s.ints {
		old, had := m.ints[k.key]
		u.ints[i] = intUndo{key: k.key, row: k.row, old: old, had: had}
		m.ints[k.key] = k.row
	}
	for i, k := range s.strs {
		old, had := m.get(k.key)
		u.strs[i] = strUndo{key: k.key, row: k.row, old: old, had: had}
		m.set(k.key, k.row)
	}
	return u
}

// undo takes back the keys u set, once the undos of the commits after
// its own ran: a key still mapped to the row u set goes back to the row
// it mapped to before when a lost commit deleted that row (lostDel: it is
// live in the state the server returns to, or it is a lost commit's row,
// whose own undo comes next), and is removed otherwise — the row was
// deleted for good, perhaps dropped by a compaction since, and no other
// live row holds the key, or the commit could not have set it. That is
// the index a rebuild from the state the server returns to would give.
func (u *keyUndo) undo(lostDel *roaring64.Bitmap) {
	m := u.ix.m
	for _, k := range u.ints {
		if r, hit := m.ints[k.key]; !hit || r != k.row {
			continue
		}
		if k.had && lostDel.Contains(uint64(k.old)) {
			m.ints[k.key] = k.old
		} else {
			delete(m.ints, k.key)
		}
	}
	for _, k := range u.strs {
		if r, hit := m.get(k.key); !hit || r != k.row {
			continue
		}
		if k.had && lostDel.Contains(uint64(k.old)) {
			m.set(k.key, k.old)
		} else {
			m.del(k.key)
		}
	}
}

// undoKeysLocked returns the unique indexes to the published state pub
// after the commits past it lost the log, from head, the state with
// them (db.mu and db.idxMu held): the indexes of each table a lost
// commit replaced, emptied or set many keys of, and of each table whose
// runtime is new (a lost commit dropped it), are rebuilt from pub; the
// keys the others set are taken back (keyUndo), newest first.
func (db *DB) undoKeysLocked(head, pub *dbState, fresh map[uint64]bool) error {
	rebuild := fresh
	for _, u := range db.keyUndo {
		if u.lsn > pub.lsn && u.ix == nil {
			rebuild[u.table] = true
		}
	}
	lostDel := map[uint64]*roaring64.Bitmap{}
	for i := len(db.keyUndo) - 1; i >= 0; i-- {
		u := &db.keyUndo[i]
		if u.lsn <= pub.lsn || u.ix == nil || rebuild[u.table] || pub.cat.Tables[u.table] == nil {
			continue
		}
		d := lostDel[u.table]
		if d == nil {
			d = roaring64.New()
			if hts, pts := head.tables[u.table], pub.tables[u.table]; hts != nil && pts != nil {
				d = hts.deleted.minus(pts.deleted)
			}
			lostDel[u.table] = d
		}
		u.undo(d)
	}
	db.keyUndo = nil
	for id := range rebuild {
		def := pub.cat.Tables[id]
		rt := db.lookupRT(id)
		if def == nil || rt == nil {
			continue
		}
		rt.uniq = map[string]*uniqueIndex{}
		for _, con := range constraintsOf(pub.cat, def) {
			ix, err := db.buildIndex(pub, id, def, con, nil)
			if err != nil {
				return fmt.Errorf("rebuilding unique index %q after a lost commit race: %w", con.name, err)
			}
			rt.uniq[con.sig()] = ix
		}
	}
	return nil
}

// trimKeyUndoLocked forgets how to take back the commits that are durable
// (db.mu held).
func (db *DB) trimKeyUndoLocked() {
	durable := db.durableLSN.Load()
	i := 0
	for i < len(db.keyUndo) && db.keyUndo[i].lsn <= durable {
		i++
	}
	if i == 0 {
		return
	}
	db.keyUndo = append(db.keyUndo[:0:0], db.keyUndo[i:]...)
}

// errSpillClash is renumberLocked's error when another server's rows
// carry the IDs of spilled rows of the transaction: Tx.Commit writes those
// rows again under new IDs (respill) and tries again.
var errSpillClash = errors.New("another server's rows carry the IDs of spilled rows")

// spillGap is how far past every row applied respill draws the new IDs of
// spilled rows: another server draws its rows' IDs past the rows it
// applied, which do not include these until they commit, so only one
// that inserts as many rows meanwhile reaches them again.
const spillGap = 1 << 32

// respill writes the spilled rows of each table of the transaction whose
// spilled rows' IDs another server's rows carry again, under new IDs
// (respillAll), and reads their keys into spillKeys again. Only at
// commit or between statements: no statement holds the rows' IDs.
func (tx *Tx) respill(spillKeys map[uint64]map[string]*keySet) error {
	db := tx.db
	var clashed []*txTable
	db.mu.Lock()
	for _, tt := range tx.tables {
		if len(tt.spilled) > 0 && tx.foreignRows(tt) && tx.spilledClash(tt) {
			clashed = append(clashed, tt)
		}
	}
	db.mu.Unlock()
	for _, tt := range clashed {
		def := tx.cat.Tables[tt.id]
		if err := tx.respillAll(tt, db.rt(tt.id, def.Schema)); err != nil {
			return err
		}
		keys := map[string]*keySet{}
		for _, con := range constraintsOf(tx.cat, def) {
			ks, err := tx.spilledKeys(def, tt, con)
			if err != nil {
				return err
			}
			keys[con.sig()] = ks
		}
		spillKeys[tt.id] = keys
	}
	return nil
}

// rewriteSpill writes the rows of spilled segment seg of table def to a
// new segment file of rt, not yet persisted, under the row IDs *next,
// *next+1, ... (advancing *next), and returns it (nil when it holds no
// row) with the runs of old IDs moved.
func (tx *Tx) rewriteSpill(def *catalog.TableDef, rt *tableRT, seg *segment, next *int64) (*segment, []idMove, error) {
	db := tx.db
	specs := segmentSpecs(def)
	path := db.newSegmentPath(rt)
	side := db.newSpillSide(def, specs)
	sw, err := newSegmentWriter(path, specs)
	if err != nil {
		side.discard()
		return nil, nil, spillError(path, err)
	}
	tx.spillFiles = append(tx.spillFiles, path) // removed at the end unless installed
	sw.side, sw.noSync, sw.remote = side, true, db.home.fetcher()
	positions := make([]int, len(def.Columns))
	colIDs := make([]int, len(def.Columns))
	for i, c := range def.Columns {
		positions[i], colIDs[i] = i, c.ID
	}
	r := db.newScan(context.Background(), tx.snap, &tableState{segments: []*segment{seg}}, def, positions, true, nil, nil, nil)
	r.uncached = true
	defer r.Release()
	rows := 0
	var moves []idMove
	for r.Next() {
		rec := r.Record()
		cols := rec.Columns()
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		for _, c := range cols[:len(cols)-1] {
			c.Retain() // (the writer's sidecars may keep them past the next record)
		}
		for k, old := range cols[len(cols)-1].(*array.Int64).Int64Values() {
			if m := len(moves) - 1; m >= 0 && old == moves[m].from+moves[m].n && *next+int64(k) == moves[m].to+moves[m].n {
				moves[m].n++
			} else {
				moves = append(moves, idMove{from: old, to: *next + int64(k), n: 1})
			}
		}
		b := &tailBatch{colIDs: colIDs, cols: cols[:len(cols)-1], rowIDs: rowIDRange(*next, n), n: n}
		*next += int64(n)
		rows += n
		if err := sw.write(tailChunk(b, specs)); err != nil {
			sw.abort()
			return nil, nil, spillError(path, err)
		}
	}
	if err := r.Err(); err != nil {
		sw.abort()
		return nil, nil, err
	}
	if rows == 0 {
		sw.abort()
		return nil, nil, nil
	}
	s, err := sw.finish()
	if err != nil {
		return nil, nil, spillError(path, err)
	}
	return s, moves, nil
}
