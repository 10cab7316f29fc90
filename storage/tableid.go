package storage

import (
	"errors"
	"sync"
)

// Table IDs on an object store. Several servers share one catalog there,
// and each would draw the next table ID from the catalog as it last read
// it, so two tables created at once on two servers would share one and
// the second commit could not be rebased. Instead a server claims a block
// of tableIDBlock IDs before handing one out: it logs a record whose
// catalog is the head's with NextID past the block, and the log's
// conditional put decides between two servers claiming the same block,
// as it does between two reservations of a sequence (sequence.go). The
// loser has caught up with the winner's catalog when it learns it lost,
// and claims the block after it. IDs of a block a server never hands out
// (it stopped first) are skipped, as PostgreSQL skips OIDs.

// tableIDBlock is how many table IDs one claim takes.
const tableIDBlock = 32

// tableIDClaim is the block of table IDs this server claimed on the
// object store and has not handed out yet: [next, end).
type tableIDClaim struct {
	mu        sync.Mutex
	next, end uint64
}

// newTableID returns an ID no other table has or will have, on this
// server or (on an object store) any other.
func (db *DB) newTableID() (uint64, error) {
	if _, shared := db.home.(*objectHome); !shared {
		return db.nextTableID.Add(1) - 1, nil
	}
	c := &db.tableIDs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next < c.end {
		c.next++
		return c.next - 1, nil
	}
	for try := 1; ; try++ {
		start, end, err := db.claimTableIDs()
		if err == nil {
			c.next, c.end = start+1, end
			return start, nil
		}
		if try >= seqRaceTries || !errors.Is(err, errLostRace) {
			return 0, err
		}
	}
}

// claimTableIDs logs a claim of the next block of table IDs and waits
// until it is durable: errLostRace when another server's commit took the
// log object first (its catalog, applied meanwhile, moved NextID past
// whatever it claimed).
func (db *DB) claimTableIDs() (start, end uint64, err error) {
	if db.closed.Load() {
		return 0, 0, errClosed()
	}
	db.mu.Lock()
	head := db.head.Load()
	start = max(head.cat.NextID, db.nextTableID.Load())
	end = start + tableIDBlock
	cat := head.cat.Clone()
	cat.NextID = end
	js, err := marshalCatalog(cat)
	if err != nil {
		db.mu.Unlock()
		return 0, 0, err
	}
	lsn, err := db.appendWALLocked(&walRecord{catalog: js})
	if err != nil {
		db.mu.Unlock()
		return 0, 0, err
	}
	next := head.derive()
	next.lsn, next.cat = lsn, cat
	db.setHead(next)
	epoch := db.logEpoch
	db.mu.Unlock()
	return start, end, db.waitDurable(lsn, epoch)
}
