package syscat

import "time"

// LockKind is the kind of a lock pg_locks shows.
type LockKind uint8

// The kinds of lock: a row's (locktype tuple), a key of a primary key or
// unique constraint (locktype object, on the table), and an advisory
// lock (locktype advisory).
const (
	LockRow LockKind = iota
	LockKey
	LockAdvisory
)

// Lock is one lock held or waited for, as pg_locks shows it.
type Lock struct {
	Kind LockKind
	// Table is a row or key lock's table ID.
	Table uint64
	// ID is the row ID of a row lock, the key's hash of a key lock, and
	// the key of an advisory lock (Pair: two int4 keys in its high and
	// low halves).
	ID     uint64
	Pair   bool
	PID    int32
	Shared bool
	// Granted is false for a lock waited for since WaitStart.
	Granted   bool
	WaitStart time.Time
}

func init() {
	// PostgreSQL 15's columns; transactionid is xid there (cairn has no
	// xid type: always NULL here). A row lock is locktype tuple, its row
	// ID split as page (all but the low 15 bits) and tuple (those); a key
	// lock is locktype object on the table (classid pg_class, objid the
	// table, objsubid the low 15 bits of the key's hash).
	register("pg_catalog", "pg_locks", 0, "locktype text, database oid, relation oid, page int4, tuple int2, virtualxid text, transactionid oid, classid oid, objid oid, objsubid int2, virtualtransaction text, pid int4, mode text, granted bool, fastpath bool, waitstart timestamptz", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Locks))
		for _, l := range v.Locks {
			mode := "ExclusiveLock"
			if l.Shared {
				mode = "ShareLock"
			}
			var wait any
			if !l.Granted {
				wait = timeOrNull(l.WaitStart)
			}
			db := int64(DatabaseOID)
			switch l.Kind {
			case LockRow:
				rows = append(rows, []any{"tuple", db, TableOID(l.Table), int64(l.ID >> 15), int64(l.ID & 0x7fff), nil, nil, nil, nil, nil,
					nil, int64(l.PID), mode, l.Granted, false, wait})
			case LockKey:
				rows = append(rows, []any{"object", db, nil, nil, nil, nil, nil, int64(pgClassOID), TableOID(l.Table), int64(l.ID & 0x7fff),
					nil, int64(l.PID), mode, l.Granted, false, wait})
			default:
				// PostgreSQL's: classid the key's high half, objid its
				// low half, objsubid 1 for a bigint key, 2 for two int4s.
				sub := int64(1)
				if l.Pair {
					sub = 2
				}
				rows = append(rows, []any{"advisory", db, nil, nil, nil, nil, nil, int64(l.ID >> 32), int64(l.ID & 0xffffffff), sub,
					nil, int64(l.PID), mode, l.Granted, false, wait})
			}
		}
		return rows
	})
}
