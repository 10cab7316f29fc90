package storage

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// SequenceState is a sequence's current state as SELECT last_value,
// is_called FROM seq reads it (pg_dump saves it so that setval restores
// it): the last value handed out, or the next one to hand out when called
// is false. A sequence this transaction created reads as the transaction
// sees it. It changes nothing.
func (tx *Tx) SequenceState(schema, name string) (last int64, called bool, err error) {
	if err := tx.check(); err != nil {
		return 0, false, err
	}
	key := catalog.Key(schema, name)
	if st := tx.seqs[key]; st != nil {
		return st.last, st.called, nil
	}
	if tx.cat.Sequences[key] == nil {
		return 0, false, pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", name)
	}
	return tx.db.SequenceState(tx.committedSequence(schema, name))
}

// SequenceState is Tx.SequenceState for a committed sequence.
func (db *DB) SequenceState(schema, name string) (last int64, called bool, err error) {
	_, st, err := db.seqFor(schema, name)
	if err != nil {
		return 0, false, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.last, st.called, nil
}

// ReplaceSequence replaces a sequence's definition with def (same schema
// and name): its owner, ACL or owning column (ALTER SEQUENCE ... OWNER
// TO, OWNED BY). Its state (the values it hands out) is untouched. 42P01
// if the sequence is missing.
func (tx *Tx) ReplaceSequence(def *catalog.SequenceDef) error {
	key := catalog.Key(def.Schema, def.Name)
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Sequences[key] == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "sequence %q does not exist", def.Name)
		}
		s := *def
		c.Sequences[key] = &s
		return nil
	})
}

// BeginShared starts a transaction that reads the database as tx reads it
// (tx's snapshot, without tx's own changes), holding that snapshot itself:
// what another session's SET TRANSACTION SNAPSHOT adopts from the
// transaction that exported it (pg_export_snapshot, which pg_dump -j's
// workers read through). tx's snapshot must not move meanwhile (a
// REPEATABLE READ transaction's does not); the caller keeps tx from
// running on another goroutine while it is called.
func (tx *Tx) BeginShared() *Tx {
	unpin := tx.db.pinState(tx.snap)
	return &Tx{db: tx.db, snap: tx.snap, unpin: unpin, cat: tx.snap.cat, tables: map[uint64]*txTable{},
		seqs: map[string]*seqTxState{}}
}
