package storage

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// ALTER TABLE ... SET SCHEMA moves a table to another schema with what
// PostgreSQL moves with it: its indexes (a key constraint's index is the
// table's own), and the sequences it owns (serial and identity columns').
// A table's files stay in the folder it was created in (recovery finds a
// table's folder by its ID under any schema's). A sequence's state is kept
// by its schema-qualified name and is not transactional: the commit hands
// the state over to the new name with the other sessions' draws held
// off, and logs it under that name (movedSequence).

// movedSequence is a committed sequence the transaction moved: from its
// old schema-qualified key to its new one. While the transaction commits
// it holds st's lock, so that no value is drawn from the old name between
// the state read for the record and the state taking its new name.
type movedSequence struct {
	from, to     string
	schema, name string // the old schema and name
	st           *seqState
}

// MoveTable moves the table def.ID to schema def.Schema: def is the table
// as it is to be (its columns' defaults naming its sequences in their new
// schema), and its indexes and the sequences it owns (OwnedBy) move with
// it. 42P01 if the table is gone, 3F000 for a missing schema, 42P07 when
// the schema has a relation of the name of the table or of one that
// moves, 42710 when it has a type of the table's name (its row type's).
// Other sessions' writes to the table wait for the transaction, as for
// any ALTER TABLE that changes it.
func (tx *Tx) MoveTable(def *catalog.TableDef) error {
	if err := tx.check(); err != nil {
		return err
	}
	old := tx.cat.Tables[def.ID]
	if old == nil {
		return undefinedTableID(def.ID)
	}
	if err := tx.fencedOut(def.ID); err != nil {
		return err
	}
	from, to := old.Schema, def.Schema
	var seqs []*catalog.SequenceDef
	for _, s := range tx.cat.Sequences {
		if s.OwnedBy != nil && s.OwnedBy.Table == def.ID && s.Schema == from {
			seqs = append(seqs, s)
		}
	}
	d := def.Clone()
	if err := tx.apply(func(c *catalog.Catalog) error {
		cur := c.Tables[d.ID]
		switch {
		case cur == nil:
			return pgerr.New(pgerrcode.UndefinedTable, "relation %q does not exist", d.Name)
		case c.Schemas[to] == nil:
			return schemaMissing(to)
		}
		taken := func(name string) error {
			if c.RelationExists(to, name) {
				return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", name, to)
			}
			return nil
		}
		if err := taken(d.Name); err != nil {
			return err
		}
		if c.Types[catalog.Key(to, d.Name)] != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", d.Name, to)
		}
		for _, u := range cur.Uniques {
			if err := taken(u.Name); err != nil {
				return err
			}
		}
		ixs := c.IndexesOf(d.ID)
		for _, ix := range ixs {
			if err := taken(ix.Name); err != nil {
				return err
			}
		}
		for _, s := range seqs {
			if c.Sequences[catalog.Key(from, s.Name)] == nil {
				continue
			}
			if err := taken(s.Name); err != nil {
				return err
			}
		}
		c.Tables[d.ID] = d.Clone()
		for _, ix := range ixs {
			moved := ix.Clone()
			moved.Schema = to
			delete(c.Indexes, catalog.Key(from, ix.Name))
			c.Indexes[catalog.Key(to, ix.Name)] = moved
		}
		for _, s := range seqs {
			cur := c.Sequences[catalog.Key(from, s.Name)]
			if cur == nil {
				continue
			}
			moved := *cur
			moved.Schema = to
			delete(c.Sequences, catalog.Key(from, s.Name))
			c.Sequences[catalog.Key(to, s.Name)] = &moved
		}
		return nil
	}); err != nil {
		return err
	}
	for _, s := range seqs {
		tx.moveSequenceState(from, s.Name, to)
	}
	tx.fenceWrites(d.ID, to)
	return nil
}

// moveSequenceState makes the state of the sequence schema.name, which
// the transaction moved to schema to, follow it: the transaction's own
// for a sequence it created, else the committed one's at commit.
func (tx *Tx) moveSequenceState(schema, name, to string) {
	fromKey, toKey := catalog.Key(schema, name), catalog.Key(to, name)
	if st := tx.seqs[fromKey]; st != nil {
		tx.seqs[toKey] = st
		delete(tx.seqs, fromKey)
		return
	}
	m := &movedSequence{from: fromKey, to: toKey, schema: schema, name: name}
	if orig := tx.seqMoves[fromKey]; orig != nil {
		// Moved before in this transaction: from where it was.
		delete(tx.seqMoves, fromKey)
		m.from, m.schema, m.name = orig.from, orig.schema, orig.name
	}
	if tx.seqMoves == nil {
		tx.seqMoves = map[string]*movedSequence{}
	}
	tx.seqMoves[toKey] = m
}

// committedSequence is the name the committed sequence schema.name has
// outside the transaction: its old one when the transaction moved it.
func (tx *Tx) committedSequence(schema, name string) (string, string) {
	if m := tx.seqMoves[catalog.Key(schema, name)]; m != nil {
		return m.schema, m.name
	}
	return schema, name
}

// lockMovedSequences takes the state locks of the committed sequences the
// transaction moved (before the commit lock, in the order draws take
// them); the returned function releases them.
func (tx *Tx) lockMovedSequences() func() {
	var locked []*seqState
	for _, m := range tx.seqMoves {
		m.st = nil
		if _, st, err := tx.db.seqFor(m.schema, m.name); err == nil {
			st.mu.Lock()
			m.st = st
			locked = append(locked, st)
		}
	}
	return func() {
		for _, st := range locked {
			st.mu.Unlock()
		}
	}
}

// movedSequenceEntries are the commit record's states of the sequences the
// transaction moved that newCat has under the new name and head under
// the old one (a move a ROLLBACK TO SAVEPOINT undid has none).
func (tx *Tx) movedSequenceEntries(head, newCat *catalog.Catalog) []seqEntry {
	var out []seqEntry
	for _, m := range tx.seqMoves {
		if m.st != nil && newCat.Sequences[m.to] != nil && head.Sequences[m.from] != nil {
			out = append(out, seqEntry{key: m.to, last: m.st.last, called: m.st.called})
		}
	}
	return out
}

// installMovedSequences gives the moved sequences' states their new names
// once the record (at lsn) is in (db.mu held): the same state, so that a
// draw that read it under the old name hands out no value twice, its
// durable state now the one the record logged.
func (db *DB) installMovedSequences(tx *Tx, newCat *catalog.Catalog, lsn uint64) {
	for _, m := range tx.seqMoves {
		if m.st == nil || newCat.Sequences[m.to] == nil {
			continue
		}
		if cur := db.seqs[m.to]; cur == nil || cur == m.st {
			continue // no record entry was made for it
		}
		m.st.durLast, m.st.durCalled, m.st.durLSN = m.st.last, m.st.called, lsn
		db.seqs[m.to] = m.st
	}
}

// MoveSequence moves the sequence schema.name, which no table owns, to
// schema to (ALTER SEQUENCE ... SET SCHEMA): 42P01 if it is gone, 3F000
// for a missing schema, 42P07 when the schema has a relation of its name.
func (tx *Tx) MoveSequence(schema, name, to string) error {
	if err := tx.apply(func(c *catalog.Catalog) error {
		cur := c.Sequences[catalog.Key(schema, name)]
		switch {
		case cur == nil:
			return pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", name)
		case c.Schemas[to] == nil:
			return schemaMissing(to)
		case c.RelationExists(to, name):
			return pgerr.New(pgerrcode.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", name, to)
		}
		moved := *cur
		moved.Schema = to
		delete(c.Sequences, catalog.Key(schema, name))
		c.Sequences[catalog.Key(to, name)] = &moved
		return nil
	}); err != nil {
		return err
	}
	tx.moveSequenceState(schema, name, to)
	return nil
}
