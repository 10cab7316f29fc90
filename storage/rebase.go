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
// (rebaseTries) fails with 40001.
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
// Not rebased, failing with 40001 as before: a transaction that changed
// the schema or created a sequence (its catalog is built on its
// snapshot's), and one whose rows were spilled to segment files of its
// own (spill.go; only the leader spills): the files carry the rows' IDs,
// so such a transaction also fails, at commit or at its next statement,
// when another server inserted into a table it spilled rows of.

import (
	"cmp"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

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

// spilledRowIDs is the error of a transaction whose spilled rows may
// share row IDs with rows another server inserted.
func spilledRowIDs() error {
	return lostRace("Another server inserted into a table this transaction wrote rows of to segment files of its own " +
		"(a large transaction); those rows keep the row IDs they were written with, which the other server's rows may carry too.")
}

// notRebased returns nil when a commit that lost the log to another
// server on its attempt'th try is judged again on the new state, else the
// 40001 it fails with.
func (tx *Tx) notRebased(attempt int) error {
	if len(tx.ops) > 0 || len(tx.seqs) > 0 {
		return lostRace("The transaction changed the schema, which is not rebased onto the other server's commits.")
	}
	for _, tt := range tx.tables {
		if len(tt.spilled) > 0 {
			return lostRace("The transaction wrote rows to segment files of its own (a large transaction), " +
				"which are not rebased onto the other server's commits.")
		}
	}
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

// renumberLocked gives the rows of prepared (the transaction's inserts
// held in memory, by table, as its record carries them) new row IDs in
// each table whose rows another server's may share IDs with (db.mu held):
// drawn now, past every row applied. A table with spilled rows cannot be
// renumbered: 40001.
func (tx *Tx) renumberLocked(prepared map[uint64][]*tailBatch) error {
	for id, tt := range tx.tables {
		if !tx.foreignRows(tt) {
			continue
		}
		if len(tt.spilled) > 0 {
			return spilledRowIDs()
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
// savepoints saved; its local key indexes are rebuilt when next used. It
// reports false, changing nothing, when rows of such a table were
// spilled.
func (tx *Tx) renumberOwn() bool {
	db := tx.db
	type stale struct {
		tt *txTable
		rt *tableRT
	}
	var tables []stale
	db.mu.Lock()
	for _, tt := range tx.tables {
		if tx.foreignRows(tt) {
			tables = append(tables, stale{tt, db.lookupRT(tt.id)})
		}
	}
	// Every row of another server applied so far is counted past: IDs
	// drawn from now on are none of theirs (countPast).
	durable := db.durableLSN.Load()
	db.mu.Unlock()
	for _, st := range tables {
		if len(st.tt.spilled) > 0 {
			return false
		}
		for _, sp := range tx.sps {
			if len(sp.tables[st.tt.id].spilled) > 0 {
				return false
			}
		}
	}
	for _, st := range tables {
		tx.renumberTable(st.tt, st.rt)
		st.tt.insLSN = durable
	}
	return true
}

// idMove is a batch's range of row IDs and its new start.
type idMove struct {
	from, to, n int64
}

// renumberTable gives every row of tt the transaction or one of its
// savepoints holds a new row ID drawn from rt. Each batch holds a range of
// IDs (Insert draws one per batch) and gets a new range; the own row ID
// sets are the union of their batches' ranges (spilled rows aside).
func (tx *Tx) renumberTable(tt *txTable, rt *tableRT) {
	moved := map[*tailBatch]*tailBatch{}
	var moves []idMove
	renumber := func(bs []*tailBatch) ([]*tailBatch, *roaring64.Bitmap) {
		out := make([]*tailBatch, len(bs))
		own := roaring64.New()
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
	tt.inserts, tt.ownIDs = renumber(tt.inserts)
	saved := make(map[*savepoint]txTableSave, len(tx.sps))
	for _, sp := range tx.sps {
		if s, ok := sp.tables[tt.id]; ok {
			s.inserts, s.ownIDs = renumber(s.inserts)
			saved[sp] = s
		}
	}
	slices.SortFunc(moves, func(a, b idMove) int { return cmp.Compare(a.from, b.from) })
	remap := func(s *roaring64.Bitmap) *roaring64.Bitmap {
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
	tt.ownDel = remap(tt.ownDel)
	for sp, s := range saved {
		s.ownDel = remap(s.ownDel)
		sp.tables[tt.id] = s
	}
	tt.local = map[string]*localIndex{}
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
