package storage

import (
	"errors"
	"sync"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// Sequences are not transactional, as in PostgreSQL: a value nextval hands
// out is never handed out again, even after a crash or a rollback. Before
// handing out a value past what the log already covers, NextVal logs a
// reservation of seqReserve values; after a crash the sequence resumes past
// the reservation. DB.NextVal fsyncs the reservation before it returns;
// Tx.NextVal leaves that to the end of its transaction (as PostgreSQL
// flushes a sequence's WAL at commit), so that a multi-row INSERT drawing a
// bigserial for each row costs one fsync, not one per reservation. SetVal
// is logged as is.
//
// Several servers on one object store (tail.go): a reservation is a claim
// on a block of values, and the log's conditional puts decide between
// claims. A server computes its reservation from the sequence's state as
// the log stood when it last caught up, and its log object is put only if
// no other server put that one first, so two servers never hold one
// value. There every reservation is durable before a value of it is
// handed out, inside a transaction too: a value of a claim that lost the
// race could be another server's. A draw that loses the race (to any
// commit of another server) was caught up by the loss and is retried,
// seqRaceTries times at most, as is setval: neither is transactional.

const seqReserve = 32

// seqReserveShared is the reservation on an object store, where each one
// is a put before its first value goes out (a round trip to the store):
// a multi-row INSERT drawing a bigserial per row waits for one put per
// seqReserveShared rows. A restart skips what is left of the block, as
// PostgreSQL's sequence CACHE does.
const seqReserveShared = 1024

// seqRaceTries bounds how often nextval and setval retry a log race they
// lost to other servers before failing with 40001: each loss means
// another server committed, so only a server that cannot get a put in
// runs out of them.
const seqRaceTries = 64

// errSeqReplaced: the state a draw or setval read was replaced meanwhile
// (a catch-up applied another server's record of the sequence); retried.
var errSeqReplaced = errors.New("the sequence's state was replaced by another server's")

// seqState is the runtime state of a committed sequence.
type seqState struct {
	mu     sync.Mutex
	last   int64 // last value handed out (or the start value if !called)
	called bool
	// durable is the state the log would restore: nextval after recovery
	// returns durNext. covered is false until something was logged.
	durLast   int64
	durCalled bool
	// durLSN is the WAL record that logged durLast (0: none since open);
	// a value handed out is durable once the WAL is synced up to it.
	durLSN uint64
}

// seqTxState is a sequence created by a transaction that has not
// committed: its values live in the transaction.
type seqTxState struct {
	last   int64
	called bool
}

// nextValue computes nextval from (last, called) for def: past a bound, a
// cycling sequence starts again at the other one.
func nextValue(def *catalog.SequenceDef, last int64, called bool) (int64, error) {
	if !called {
		return last, nil
	}
	v := last + def.Increment
	overflow := (def.Increment > 0 && v < last) || (def.Increment < 0 && v > last)
	switch {
	case def.Cycle && def.Increment > 0 && (overflow || v > def.Max):
		return def.Min, nil
	case def.Cycle && def.Increment < 0 && (overflow || v < def.Min):
		return def.Max, nil
	}
	if def.Increment > 0 && (overflow || v > def.Max) {
		return 0, pgerr.New(pgerrcode.SequenceGeneratorLimitExceeded,
			"nextval: reached maximum value of sequence %q (%d)", def.Name, def.Max)
	}
	if def.Increment < 0 && (overflow || v < def.Min) {
		return 0, pgerr.New(pgerrcode.SequenceGeneratorLimitExceeded,
			"nextval: reached minimum value of sequence %q (%d)", def.Name, def.Min)
	}
	return v, nil
}

// covers reports whether a durable state (last, called) already accounts
// for handing out v: recovery would resume after v.
func covers(def *catalog.SequenceDef, durLast int64, durCalled bool, v int64) bool {
	if !durCalled {
		return false
	}
	if def.Increment > 0 {
		return v <= durLast
	}
	return v >= durLast
}

// reservationEnd is the last value of a reservation of block values
// starting at v, clamped to the sequence's bounds.
func reservationEnd(def *catalog.SequenceDef, v, block int64) int64 {
	span := def.Increment * (block - 1)
	end := v + span
	if def.Increment > 0 {
		if end < v || end > def.Max {
			end = def.Max
		}
	} else if end > v || end < def.Min {
		end = def.Min
	}
	return end
}

// seqFor returns the committed sequence schema.name and its state.
func (db *DB) seqFor(schema, name string) (*catalog.SequenceDef, *seqState, error) {
	key := catalog.Key(schema, name)
	db.mu.Lock()
	defer db.mu.Unlock()
	def := db.head.Load().cat.Sequences[key]
	if def == nil {
		return nil, nil, pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", name)
	}
	st := db.seqs[key]
	if st == nil {
		st = &seqState{last: def.Start}
		db.seqs[key] = st
	}
	return def, st, nil
}

// NextVal advances a committed sequence and returns its new value (2200H
// past its bounds). The value is never handed out again, even after a
// crash.
func (db *DB) NextVal(schema, name string) (int64, error) {
	v, lsn, err := db.nextVal(schema, name)
	if err != nil {
		return 0, err
	}
	return v, db.syncTo(lsn)
}

// nextVal is NextVal without the fsync: it returns the value and the LSN
// the WAL must be synced up to before the value may be relied on (on an
// object store, where the reservation is put before, a durable one).
func (db *DB) nextVal(schema, name string) (int64, uint64, error) {
	for try := 1; ; try++ {
		v, lsn, err := db.draw(schema, name)
		if try < seqRaceTries && (errors.Is(err, errLostRace) || errors.Is(err, errSeqReplaced)) {
			continue
		}
		return v, lsn, err
	}
}

// draw is one try of nextVal.
func (db *DB) draw(schema, name string) (int64, uint64, error) {
	if db.closed.Load() {
		return 0, 0, errClosed()
	}
	def, st, err := db.seqFor(schema, name)
	if err != nil {
		return 0, 0, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	v, err := nextValue(def, st.last, st.called)
	if err != nil {
		return 0, 0, err
	}
	// A cycle back to the start lies below the reservation but is not
	// covered by it: recovery would resume after the reservation's end.
	wrapped := st.called && (def.Increment > 0) == (v < st.last)
	if wrapped || !covers(def, st.durLast, st.durCalled, v) {
		_, shared := db.home.(*objectHome)
		block := int64(seqReserve)
		if shared {
			block = seqReserveShared
		}
		end := reservationEnd(def, v, block)
		lsn, epoch, err := db.logSequence(catalog.Key(schema, name), st, end, true)
		if err != nil {
			return 0, 0, err
		}
		if shared {
			// The claim must win its log race before a value of it
			// goes out (st is left as it was if it loses).
			if err := db.waitDurable(lsn, epoch); err != nil {
				return 0, 0, err
			}
		}
		st.durLast, st.durCalled, st.durLSN = end, true, lsn
	}
	st.last, st.called = v, true
	return v, st.durLSN, nil
}

// syncTo is waitDurable(lsn) that returns at once when the WAL is synced
// that far already.
func (db *DB) syncTo(lsn uint64) error {
	if lsn <= db.durableLSN.Load() {
		return nil
	}
	return db.waitDurable(lsn, db.epoch())
}

// SetVal sets a committed sequence's state as setval(seq, v, isCalled)
// does (22003 if v is out of bounds), durably.
func (db *DB) SetVal(schema, name string, v int64, isCalled bool) error {
	for try := 1; ; try++ {
		err := db.setVal(schema, name, v, isCalled)
		if try < seqRaceTries && (errors.Is(err, errLostRace) || errors.Is(err, errSeqReplaced)) {
			continue
		}
		return err
	}
}

// setVal is one try of SetVal.
func (db *DB) setVal(schema, name string, v int64, isCalled bool) error {
	if db.closed.Load() {
		return errClosed()
	}
	def, st, err := db.seqFor(schema, name)
	if err != nil {
		return err
	}
	if v < def.Min || v > def.Max {
		return pgerr.New(pgerrcode.NumericValueOutOfRange,
			"setval: value %d is out of bounds for sequence %q (%d..%d)", v, def.Name, def.Min, def.Max)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	lsn, epoch, err := db.logSequence(catalog.Key(schema, name), st, v, isCalled)
	if err != nil {
		return err
	}
	if err := db.waitDurable(lsn, epoch); err != nil {
		return err
	}
	st.last, st.called = v, isCalled
	st.durLast, st.durCalled, st.durLSN = v, isCalled, lsn
	return nil
}

// logSequence appends (without fsync) a record setting a sequence's
// durable state, unless the sequence was dropped (42P01) or its state
// replaced by another server's (errSeqReplaced) meanwhile, and returns its
// LSN and the log epoch it was appended in.
func (db *DB) logSequence(key string, st *seqState, last int64, called bool) (uint64, uint64, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.head.Load().cat.Sequences[key] == nil {
		return 0, 0, pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", key)
	}
	if db.seqs[key] != st {
		return 0, 0, errSeqReplaced
	}
	lsn, err := db.appendWALLocked(&walRecord{seqs: []seqEntry{{key: key, last: last, called: called}}})
	if err != nil {
		return 0, 0, err
	}
	next := db.head.Load().derive()
	next.lsn = lsn
	db.setHead(next)
	return lsn, db.logEpoch, nil
}

// NextVal is nextval for a sequence this transaction may have created: a
// sequence created by the transaction counts inside it (its state commits
// with it); any other draws from the database as DB.NextVal does, but the
// reservation it logs is fsynced when the transaction ends (Commit or
// Rollback), not before NextVal returns.
func (tx *Tx) NextVal(schema, name string) (int64, error) {
	if err := tx.check(); err != nil {
		return 0, err
	}
	key := catalog.Key(schema, name)
	if st := tx.seqs[key]; st != nil {
		def := tx.cat.Sequences[key]
		v, err := nextValue(def, st.last, st.called)
		if err != nil {
			return 0, err
		}
		st.last, st.called = v, true
		return v, nil
	}
	if tx.cat.Sequences[key] == nil {
		return 0, pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", name)
	}
	v, lsn, err := tx.db.nextVal(tx.committedSequence(schema, name))
	if err != nil {
		return 0, err
	}
	tx.seqLSN = max(tx.seqLSN, lsn)
	return v, nil
}

// SetVal is setval for a sequence this transaction may have created (see
// NextVal).
func (tx *Tx) SetVal(schema, name string, v int64, isCalled bool) error {
	if err := tx.check(); err != nil {
		return err
	}
	key := catalog.Key(schema, name)
	if st := tx.seqs[key]; st != nil {
		def := tx.cat.Sequences[key]
		if v < def.Min || v > def.Max {
			return pgerr.New(pgerrcode.NumericValueOutOfRange,
				"setval: value %d is out of bounds for sequence %q (%d..%d)", v, def.Name, def.Min, def.Max)
		}
		st.last, st.called = v, isCalled
		return nil
	}
	if tx.cat.Sequences[key] == nil {
		return pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", name)
	}
	schema, name = tx.committedSequence(schema, name)
	return tx.db.SetVal(schema, name, v, isCalled)
}

// seqSnapshot returns the state catalog.json should record for each
// committed sequence: the exact state when final (nothing else runs), else
// the durable one (values up to a reservation may have been handed out).
func (db *DB) seqSnapshot(final bool) map[string]seqEntry {
	db.mu.Lock()
	cat := db.head.Load().cat
	states := make(map[string]*seqState, len(db.seqs))
	for k, s := range db.seqs {
		if cat.Sequences[k] != nil {
			states[k] = s
		}
	}
	db.mu.Unlock()
	out := map[string]seqEntry{}
	for k, s := range states {
		s.mu.Lock()
		if final || !s.durCalled {
			out[k] = seqEntry{key: k, last: s.last, called: s.called}
		} else {
			out[k] = seqEntry{key: k, last: s.durLast, called: s.durCalled}
		}
		s.mu.Unlock()
	}
	return out
}
