package storage

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// Lock order. Every mutex of storage and exec, in the order they may be
// taken: a goroutine holding one takes only locks listed below it (never
// one above, never a second of the same kind unless the line says how).
// Readers take none of the commit path's: a scan pins a state (pinMu,
// briefly) and reads immutable data.
//
//	exec/session and exec (none of them is held while calling into storage)
//	  advisoryTable.mu    advisory locks (exec/session/advisory.go); waits
//	                      with it released
//	  SequenceValues.mu   a session's currval/lastval values
//	                      (exec/sequence_values.go)
//	  ExprCache.mu        the shared expression cache (exec/expr_cache.go)
//	storage
//	  DB.ckptMu           one checkpoint, or adoption of another server's
//	                      checkpoint (adopt.go), at a time; takes syncMu
//	                      and DB.mu, then each table's flushMu
//	  seqState.mu         one sequence's runtime state (NextVal, SetVal);
//	                      then DB.mu to log, then syncMu to wait for the fsync
//	  tableRT.flushMu     one table's flush, compaction and manifest
//	                      (flush.go); a commit that adds a unique index to
//	                      tables with rows holds theirs, taken in ascending
//	                      table ID order, while it builds the index and
//	                      until DB.mu is released (index_build.go); the
//	                      adoption of a checkpoint holds those of the
//	                      tables it replaces, in ascending table ID
//	                      order, and takes syncMu then DB.mu under them;
//	                      nothing takes a flushMu while holding syncMu
//	  DB.syncMu           the group-commit fsync (waitDurable), the
//	                      catch-up with other servers' log (tail.go) and
//	                      the checkpoint's WAL rotation; then DB.mu
//	  DB.mu               commit validation, WAL append and publication of
//	                      new states; flush and compaction publication
//	  DB.idxMu            the unique indexes: read alone by inserts'
//	                      checks, written under DB.mu
//	  DB.rtMu             the map of table runtimes
//	  DB.pinMu            pinned states and files waiting for removal
//	  DB.workMu           requests to the background worker
//	  DB.sideMu           the queue of spilled segments' index builds
//	                      (sidebuild.go)
//	  leaves: lockTable.mu (row and key locks below; a wait releases it),
//	  colCache.mu (cache.go), segExtra.textMu then segExtra.mu
//	  (segmeta.go), textUnit.mu (textunit.go), objLog.mu and
//	  objectHome.mu (objhome.go), leadership.op then leadership.mu
//	  (lead.go; op is held across the lease's puts)
//
// The long work of DDL (building a new unique index over a large table)
// holds only the table's flushMu, never DB.mu, so other sessions keep
// committing meanwhile (index_build.go).

// Write locks. A transaction that deletes (or updates) a committed row, or
// inserts a key of a primary key or unique constraint, locks the row or
// the key until it ends; another transaction that wants the same row or
// key waits for it, as in PostgreSQL. Readers never lock and never wait.
// After the wait (or without one) the writer checks what committed since
// its statement's snapshot: a row deleted meanwhile is a conflict
// (IsConflict), which a READ COMMITTED statement resolves by running again
// on a new snapshot and a REPEATABLE READ transaction reports as 40001; a
// key committed meanwhile is a unique violation. A wait that would close a
// cycle fails with 40P01 (deadlock detected). Commit still validates
// everything (first committer wins), so the locks make conflicts rarer and
// earlier, never decide correctness alone.

// lockKey names one lockable thing: a row (rowKind, id = row ID) or a key
// of a constraint (keyKind, id = hash of signature and key; a collision
// only makes a transaction wait without need). In a transaction's held
// list, sharedRowKind marks a row it holds in share mode.
type lockKey struct {
	table uint64
	kind  uint8
	id    uint64
}

// The kinds of lockKey.
const (
	rowKind uint8 = iota
	keyKind
	sharedRowKind
)

// lockTable holds the locks of every open transaction. Its zero value is
// ready to use.
type lockTable struct {
	mu   sync.Mutex
	held map[lockKey]*Tx
	// shared are the rows locked FOR SHARE or FOR KEY SHARE, each by any
	// number of transactions at once (none of them in held: a writer or
	// FOR UPDATE waits for every one). A transaction's shared rows are in
	// its held list too, so that release and releaseSince find them.
	shared map[lockKey][]*Tx
	// ints are the locks on one-integer keys, by constraint (intlocks.go).
	ints map[intSpaceKey]*intLockSpace
	// waiting are the transactions waiting for a lock.
	waiting map[*Tx]struct{}
}

var keySeed = maphash.MakeSeed()

// keyLock is the lock of key (encoded by rowKey) of the constraint with
// signature sig, a key other than one integer (see intLockSpace).
func keyLock(table uint64, sig, key string) lockKey {
	var h maphash.Hash
	h.SetSeed(keySeed)
	h.WriteString(sig)
	h.WriteByte(0)
	h.WriteString(key)
	return lockKey{table: table, kind: keyKind, id: h.Sum64()}
}

// lockWaitKey is the context key of WithLockWait's hook.
type lockWaitKey struct{}

// WithLockWait returns ctx carrying hook, which a transaction whose
// context it is calls with true when it starts waiting for another
// transaction's lock and with false when the wait ends (pg_stat_activity's
// wait_event).
func WithLockWait(ctx context.Context, hook func(waiting bool)) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, hook)
}

// SetContext sets the context that bounds the transaction's lock waits
// (the running statement's: a cancel or statement_timeout ends a wait).
func (tx *Tx) SetContext(ctx context.Context) { tx.ctx = ctx }

// Context is the context SetContext gave the transaction (nil: none), so
// that a statement nested in another (a trigger's) can give it back.
func (tx *Tx) Context() context.Context { return tx.ctx }

// SetLockTimeout bounds each lock wait of the transaction (lock_timeout;
// 0: no bound). A wait that runs out fails with 55P03.
func (tx *Tx) SetLockTimeout(d time.Duration) { tx.lockTimeout = d }

func lockTimedOut() error {
	return pgerr.New(pgerrcode.LockNotAvailable, "canceling statement due to lock timeout")
}

func deadlockDetected() error {
	return pgerr.New(pgerrcode.DeadlockDetected, "deadlock detected").
		WithDetail("The transaction waited for a row or key locked by a transaction that waits for it.").
		WithHint("Retry the transaction.")
}

// maxLocks is the most rows and keys a transaction locks: a bulk change
// beyond it takes no more locks (they cost memory), and relies on the
// checks that follow and on commit's validation alone.
const maxLocks = 100_000

// lock acquires keys for tx, waiting for the holders of any taken by
// another transaction. On error tx keeps the locks it acquired so far.
func (lt *lockTable) lock(tx *Tx, keys []lockKey) error {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if tx.lockCount()+len(keys) > maxLocks {
		return nil
	}
	if lt.held == nil {
		lt.held = map[lockKey]*Tx{}
	}
	for i := 0; i < len(keys); {
		k := keys[i]
		h := lt.held[k]
		if h == nil {
			if o := lt.otherSharer(tx, k); o != nil {
				if err := lt.waitFor(tx, o, k); err != nil {
					return err
				}
				continue
			}
			lt.held[k] = tx
			tx.held = append(tx.held, k)
			if tx.ended == nil {
				tx.ended = make(chan struct{})
			}
			i++
			continue
		}
		if h == tx {
			i++
			continue
		}
		if err := lt.waitFor(tx, h, k); err != nil {
			return err
		}
		// Try k again: the holder is gone (or another waiter won).
	}
	return nil
}

// waitFor makes tx wait for h, which holds k, to end (lt.mu held; it is
// released during the wait). It fails with 40P01 when h waits for tx,
// directly or not, and when the statement's context ends or the wait
// passes lock_timeout.
func (lt *lockTable) waitFor(tx, h *Tx, k lockKey) error {
	for w := h; w != nil; w = w.waitingFor {
		if w == tx {
			return deadlockDetected()
		}
	}
	ctx := tx.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tx.waitingFor, tx.waitingKey, tx.waitStart = h, k, time.Now()
	if lt.waiting == nil {
		lt.waiting = map[*Tx]struct{}{}
	}
	lt.waiting[tx] = struct{}{}
	ended := h.ended
	lt.mu.Unlock()
	var err error
	var timeout <-chan time.Time
	if tx.lockTimeout > 0 {
		t := time.NewTimer(tx.lockTimeout)
		defer t.Stop()
		timeout = t.C
	}
	hook, _ := ctx.Value(lockWaitKey{}).(func(bool))
	if hook != nil {
		hook(true)
	}
	select {
	case <-ended:
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout:
		err = lockTimedOut()
	}
	if hook != nil {
		hook(false)
	}
	lt.mu.Lock()
	tx.waitingFor = nil
	delete(lt.waiting, tx)
	return err
}

// waitForHolder waits, if another transaction holds key, for that one to
// end, and reports whether it waited; the wait fails as waitFor's do
// (40P01, 55P03, the statement's cancel or timeout).
func (lt *lockTable) waitForHolder(tx *Tx, key lockKey) (bool, error) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	h := lt.held[key]
	if h == nil || h == tx {
		return false, nil
	}
	return true, lt.waitFor(tx, h, key)
}

// full reports whether tx holds too many locks to take n more (lock
// then takes none of them): the caller need not name them.
func (lt *lockTable) full(tx *Tx, n int) bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return tx.lockCount()+n > maxLocks
}

// lockCount is the number of rows and keys tx holds locks on (lt.mu
// held).
func (tx *Tx) lockCount() int { return len(tx.held) + tx.intHeld }

// otherSharer returns a transaction other than tx that holds k shared,
// or nil (lt.mu held).
func (lt *lockTable) otherSharer(tx *Tx, k lockKey) *Tx {
	for _, o := range lt.shared[k] {
		if o != tx {
			return o
		}
	}
	return nil
}

// lockShared locks row k for tx in share mode (SELECT ... FOR SHARE):
// beside the other transactions that hold it so, after the one that holds
// it exclusively (a writer, FOR UPDATE) if any, which it waits for unless
// nowait (then it reports false). A row tx holds exclusively stays so.
func (lt *lockTable) lockShared(tx *Tx, k lockKey, nowait bool) (bool, error) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for {
		h := lt.held[k]
		if h == tx || h == nil && slices.Contains(lt.shared[k], tx) {
			return true, nil
		}
		if h == nil {
			if tx.lockCount() >= maxLocks {
				return true, nil // as lock: no more locks, commit validates
			}
			if lt.shared == nil {
				lt.shared = map[lockKey][]*Tx{}
			}
			lt.shared[k] = append(lt.shared[k], tx)
			tx.held = append(tx.held, lockKey{table: k.table, kind: sharedRowKind, id: k.id})
			if tx.ended == nil {
				tx.ended = make(chan struct{})
			}
			return true, nil
		}
		if nowait {
			return false, nil
		}
		// Waited for as a shared row (pg_locks shows the mode).
		if err := lt.waitFor(tx, h, lockKey{table: k.table, kind: sharedRowKind, id: k.id}); err != nil {
			return false, err
		}
	}
}

// unlock drops tx's lock k, an entry of its held list (lt.mu held).
func (lt *lockTable) unlock(tx *Tx, k lockKey) {
	if k.kind != sharedRowKind {
		if lt.held[k] == tx {
			delete(lt.held, k)
		}
		return
	}
	k.kind = rowKind
	if s := slices.DeleteFunc(lt.shared[k], func(o *Tx) bool { return o == tx }); len(s) == 0 {
		delete(lt.shared, k)
	} else {
		lt.shared[k] = s
	}
}

// release drops every lock tx holds and wakes its waiters.
func (lt *lockTable) release(tx *Tx) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for _, k := range tx.held {
		lt.unlock(tx, k)
	}
	tx.held = nil
	lt.releaseInts(tx)
	if tx.ended != nil {
		close(tx.ended)
		tx.ended = nil
	}
}

// heldCount is the number of row and key locks in tx.held and the length
// of its intLog, marks for releaseSince.
func (lt *lockTable) heldCount(tx *Tx) (held, intLog int) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return len(tx.held), len(tx.intLog)
}

// releaseSince drops the locks tx took after it held n and its intLog
// had nint entries (ROLLBACK TO SAVEPOINT), and wakes every transaction
// waiting for tx: each tries its lock again and waits anew for one tx
// still holds.
func (lt *lockTable) releaseSince(tx *Tx, n, nint int) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if n >= len(tx.held) && nint >= len(tx.intLog) {
		return
	}
	for _, k := range tx.held[n:] {
		lt.unlock(tx, k)
	}
	clear(tx.held[n:])
	tx.held = tx.held[:n]
	for _, e := range tx.intLog[nint:] {
		tx.intHeld -= e.own.removeRun(e.lo, e.hi)
	}
	clear(tx.intLog[nint:])
	tx.intLog = tx.intLog[:nint]
	if tx.ended != nil {
		close(tx.ended)
		tx.ended = make(chan struct{})
	}
}

// conflictError marks a write conflict found while a statement runs: a
// row it changes was changed by a transaction that committed after the
// statement's snapshot.
type conflictError struct{ err *pgerr.Error }

func (e *conflictError) Error() string { return e.err.Error() }
func (e *conflictError) Unwrap() error { return e.err }

// Conflict returns the error of a statement that met a concurrent update
// (40001): IsConflict reports it, and the statement may run again on a new
// snapshot.
func Conflict() error {
	return &conflictError{err: pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update")}
}

// IsConflict reports whether err is a write conflict found while a
// statement ran (not at commit), which running the statement again on a
// new snapshot resolves.
func IsConflict(err error) bool {
	var c *conflictError
	return errors.As(err, &c)
}

// lockRows locks the committed rows of a table this transaction is about
// to delete and checks that no transaction deleted one of them after the
// snapshot they were read from.
func (tx *Tx) lockRows(tableID uint64, rows *roaring64.Bitmap) error {
	if rows.IsEmpty() {
		return nil
	}
	if n := rows.GetCardinality(); n <= maxLocks {
		keys := make([]lockKey, 0, n)
		it := rows.Iterator()
		for it.HasNext() {
			keys = append(keys, lockKey{table: tableID, id: it.Next()})
		}
		if err := tx.db.locks.lock(tx, keys); err != nil {
			return err
		}
	}
	db := tx.db
	db.mu.Lock()
	defer db.mu.Unlock()
	head := db.head.Load()
	hts, sts := head.tables[tableID], tx.snap.tables[tableID]
	if hts == nil || sts != nil && hts.epoch != sts.epoch {
		return Conflict() // dropped or truncated meanwhile
	}
	if rt := db.lookupRT(tableID); rt != nil {
		for _, e := range rt.delLog {
			if e.lsn > tx.snap.lsn && e.rows.Intersects(rows) {
				return Conflict()
			}
		}
	}
	return nil
}

// RowLockWait says what LockRow does when another transaction holds the
// row: wait for it, fail (NOWAIT) or pass over the row (SKIP LOCKED).
type RowLockWait uint8

// The wait policies of SELECT ... FOR UPDATE.
const (
	LockWait RowLockWait = iota
	LockNoWait
	LockSkip
)

// RowLock is the outcome of LockRow.
type RowLock uint8

// LockRow outcomes: the row is locked; another transaction holds it (with
// LockSkip); or it is gone, deleted or updated by a transaction that
// committed after this transaction's snapshot.
const (
	RowLocked RowLock = iota
	RowBusy
	RowGone
)

// LockRow locks one committed row until the transaction ends: for SELECT
// ... FOR UPDATE (or FOR NO KEY UPDATE) with the lock writers take, so the
// row's next writer or locker waits; with shared, for FOR SHARE (or FOR
// KEY SHARE), beside other transactions' shared locks, so that only
// writers and FOR UPDATE wait (cairn has these two modes of PostgreSQL's
// four: FOR KEY SHARE also waits for FOR NO KEY UPDATE and for updates
// that keep the key, which PostgreSQL's does not). Rows the transaction
// inserted itself are visible to no one else and need no lock.
func (tx *Tx) LockRow(tableID uint64, rowID int64, wait RowLockWait, shared bool) (RowLock, error) {
	if err := tx.check(); err != nil {
		return RowGone, err
	}
	key := lockKey{table: tableID, kind: rowKind, id: uint64(rowID)}
	got, err := true, error(nil)
	switch {
	case shared:
		got, err = tx.db.locks.lockShared(tx, key, wait != LockWait)
	case wait == LockWait:
		err = tx.db.locks.lock(tx, []lockKey{key})
	default:
		got = tx.db.locks.tryLock(tx, key)
	}
	if err != nil {
		return RowGone, err
	}
	if !got {
		if wait == LockSkip {
			return RowBusy, nil
		}
		return RowBusy, pgerr.New(pgerrcode.LockNotAvailable, "could not obtain lock on row in relation %q", tx.cat.Tables[tableID].Name)
	}
	if tx.deletedSinceSnapshot(tableID, rowID) {
		return RowGone, nil
	}
	return RowLocked, nil
}

// deletedSinceSnapshot reports whether a transaction that committed after
// tx's snapshot deleted (or updated) committed row rowID.
func (tx *Tx) deletedSinceSnapshot(tableID uint64, rowID int64) bool {
	db := tx.db
	db.mu.Lock()
	defer db.mu.Unlock()
	if rt := db.lookupRT(tableID); rt != nil {
		for _, e := range rt.delLog {
			if e.lsn > tx.snap.lsn && e.rows.Contains(uint64(rowID)) {
				return true
			}
		}
	}
	return false
}

// WaitRow waits, without taking its lock, for the transaction that holds
// committed row rowID's lock (one deleting or updating it, or locking it
// FOR UPDATE) to end, and reports whether a transaction that committed
// after this one's snapshot deleted the row. INSERT ... ON CONFLICT DO
// NOTHING calls it for the row it would skip: as PostgreSQL's insert
// waits for the transaction deleting the row it conflicts with, a row on
// its way out is no conflict once that transaction commits.
func (tx *Tx) WaitRow(tableID uint64, rowID int64) (gone bool, err error) {
	if err := tx.check(); err != nil {
		return false, err
	}
	if _, err := tx.db.locks.waitForHolder(tx, lockKey{table: tableID, id: uint64(rowID)}); err != nil {
		return false, err
	}
	return tx.deletedSinceSnapshot(tableID, rowID), nil
}

// tryLock takes key for tx if no other transaction holds it.
func (lt *lockTable) tryLock(tx *Tx, key lockKey) bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if h := lt.held[key]; h != nil {
		return h == tx
	}
	if lt.otherSharer(tx, key) != nil {
		return false
	}
	if lt.held == nil {
		lt.held = map[lockKey]*Tx{}
	}
	lt.held[key] = tx
	tx.held = append(tx.held, key)
	if tx.ended == nil {
		tx.ended = make(chan struct{})
	}
	return true
}

// Lock is one row or key lock as pg_locks shows it: held (Granted) or
// waited for since WaitStart by the transaction of backend Owner.
type Lock struct {
	Table uint64
	// Key marks a lock on a key of a primary key or unique constraint
	// (ID is then a hash of the key); otherwise ID is the locked row's.
	Key     bool
	ID      uint64
	Owner   int32
	Granted bool
	// Shared marks a row held in share mode (FOR SHARE, FOR KEY SHARE).
	Shared    bool
	WaitStart time.Time
}

// Locks returns the row and key locks held and waited for now.
func (db *DB) Locks() []Lock {
	lt := &db.locks
	lt.mu.Lock()
	defer lt.mu.Unlock()
	out := make([]Lock, 0, len(lt.held)+len(lt.waiting))
	for k, tx := range lt.held {
		out = append(out, Lock{Table: k.table, Key: k.kind == keyKind, ID: k.id, Owner: tx.owner, Granted: true})
	}
	for k, txs := range lt.shared {
		for _, tx := range txs {
			out = append(out, Lock{Table: k.table, ID: k.id, Owner: tx.owner, Granted: true, Shared: true})
		}
	}
	out = lt.appendIntLocks(out)
	for tx := range lt.waiting {
		k := tx.waitingKey
		out = append(out, Lock{Table: k.table, Key: k.kind == keyKind, ID: k.id, Owner: tx.owner, WaitStart: tx.waitStart, Shared: k.kind == sharedRowKind})
	}
	return out
}
