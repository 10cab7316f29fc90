package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// LockRows is SELECT ... FOR UPDATE / FOR SHARE: it locks each row of the
// locked tables as it passes and lets through only the rows it locked. A
// row another transaction holds is waited for, or fails the statement
// (NOWAIT), or is passed over (SKIP LOCKED). A row changed by a
// transaction that committed after the statement's snapshot is a
// serialization failure under REPEATABLE READ, as in PostgreSQL. Under
// READ COMMITTED PostgreSQL locks the row's new version if it still
// qualifies; here, with Runtime.RerunOnGoneLock and no row let through
// yet, the statement fails with storage.Conflict for its caller to run
// it again on a new snapshot, which has the new version; otherwise the
// row is passed over (its new version is another row).
type LockRows struct {
	rt    *Runtime
	node  *sql.LockRows
	input Operator
	out   outSlot
	// left is how many more rows the LIMIT above takes (-1: all); rows
	// past it are not locked.
	left   int64
	inited bool
	// emitted is set once a row has been let through.
	emitted bool
}

func newLockRows(rt *Runtime, n *sql.LockRows, in Operator) *LockRows {
	return &LockRows{rt: rt, node: n, input: in}
}

// Schema implements Operator.
func (l *LockRows) Schema() *arrow.Schema { return l.input.Schema() }

// Next implements Operator.
func (l *LockRows) Next(ctx context.Context) (arrow.Record, error) {
	l.out.release()
	tx := l.rt.Tx
	if tx == nil {
		return nil, internalErr("FOR UPDATE without a transaction")
	}
	tx.SetContext(ctx)
	if !l.inited {
		l.inited = true
		count, offset, err := limitValues(ctx, l.rt, l.node.Count, l.node.Offset)
		if err != nil {
			return nil, err
		}
		l.left = -1
		if count >= 0 {
			l.left = limitEnd(count, offset)
		}
	}
	for {
		if l.left == 0 {
			return nil, io.EOF
		}
		rec, err := l.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		keep := make([]int, 0, rec.NumRows())
		for i := 0; i < int(rec.NumRows()) && l.left != 0; i++ {
			ok, err := l.lockRow(tx, rec, i)
			if err != nil {
				return nil, err
			}
			if ok {
				keep = append(keep, i)
				if l.left > 0 {
					l.left--
				}
			}
		}
		switch {
		case len(keep) == int(rec.NumRows()):
			l.emitted = true
			return l.out.pass(rec), nil
		case len(keep) > 0:
			taken, err := rowcopy.TakeRecord(l.rt.mem(), rec, keep)
			if err != nil {
				return nil, err
			}
			l.emitted = true
			return l.out.set(taken), nil
		}
	}
}

// lockRow locks row i's rows of the locked tables; false passes it over.
func (l *LockRows) lockRow(tx *storage.Tx, rec arrow.Record, i int) (bool, error) {
	for _, t := range l.node.Targets {
		ids := rec.Column(t.RowID).(*array.Int64)
		if ids.IsNull(i) {
			continue // the NULL side of an outer join locks nothing
		}
		got, err := tx.LockRow(t.Table.ID, ids.Value(i), rowLockWait(l.node.Wait), t.Shared)
		if err != nil {
			return false, err
		}
		switch got {
		case storage.RowBusy:
			return false, nil
		case storage.RowGone:
			if l.rt.repeatableRead() || l.rt.RerunOnGoneLock && !l.emitted {
				return false, storage.Conflict()
			}
			return false, nil
		}
	}
	return true, nil
}

// readOnly reports whether the statement runs in a read-only transaction
// (where PostgreSQL refuses to lock rows, as it refuses to write them).
func (rt *Runtime) readOnly() bool {
	fn := rt.fnCtx()
	if fn.Session == nil {
		return false
	}
	v, _ := fn.Session.Setting("transaction_read_only")
	return v == "on"
}

// repeatableRead reports whether the statement runs under REPEATABLE READ.
func (rt *Runtime) repeatableRead() bool {
	fn := rt.fnCtx()
	if fn.Session == nil {
		return false
	}
	level, _ := fn.Session.Setting("transaction_isolation")
	return level == RepeatableRead
}

// Close implements Operator.
func (l *LockRows) Close() {
	l.out.release()
	l.input.Close()
}

// rowLockWait is storage's policy for a locking clause's wait policy.
func rowLockWait(w sql.LockWait) storage.RowLockWait {
	switch w {
	case sql.LockWaitNoWait:
		return storage.LockNoWait
	case sql.LockWaitSkipLocked:
		return storage.LockSkip
	}
	return storage.LockWait
}
