package session

import (
	"slices"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage"
)

// Temporary relations (CREATE TEMP TABLE, CREATE TEMP SEQUENCE) are
// ordinary tables in the session's temporary schema, catalog.TempSchema
// of its pid. The session creates the schema with its first temporary
// relation, its binder searches it first and refuses other sessions'
// (sql/temp.go), and it is dropped with everything in it when the session
// ends or runs DISCARD TEMP / DISCARD ALL. A server that stopped without
// its sessions ending drops their schemas when it starts. They are
// logged like any table (cairn has no unlogged storage), which costs a
// little speed and nothing else. On an object store shared by several
// servers pids are not unique, so temporary relations are 0A000 there.

// tempSchema is the session's temporary schema, "" where it can have
// none.
func (s *Session) tempSchema() string {
	if s.tempName == "" && s.engine.db.LocalOnly() {
		s.tempName = catalog.TempSchema(s.pid)
	}
	return s.tempName
}

// bindSearchPath is the search path the binder resolves names on, as
// PostgreSQL's recomputeNamespacePath makes it: the session's temporary
// schema, once the session made it (one of that name it did not make is
// a dead session's, never searched), where the setting names pg_temp,
// or first when it does not; an explicit pg_temp the session has no
// schema for is left out.
func (s *Session) bindSearchPath(cat *catalog.Catalog) []string {
	path, _ := s.effectiveSearchPath(cat)
	return path
}

// effectiveSearchPath is bindSearchPath, and whether the temporary
// schema leads it implicitly (the setting does not name pg_temp).
func (s *Session) effectiveSearchPath(cat *catalog.Catalog) (path []string, implicitTemp bool) {
	raw := s.searchPath()
	temp := s.tempSchema()
	exists := temp != "" && s.tempMade && cat.Schemas[temp] != nil
	explicit := slices.Contains(raw, "pg_temp")
	if !explicit {
		if exists && !slices.Contains(raw, temp) {
			return append([]string{temp}, raw...), true
		}
		return raw, false
	}
	path = make([]string, 0, len(raw))
	for _, name := range raw {
		if name == "pg_temp" {
			if !exists || slices.Contains(path, temp) {
				continue
			}
			name = temp
		}
		path = append(path, name)
	}
	return path, false
}

// createsInTemp reports whether an unqualified CREATE goes to the
// temporary schema: PostgreSQL creates in the first schema of the search
// path that exists, which is the temporary one when pg_temp comes before
// any other (made on demand if the session has none yet).
func (s *Session) createsInTemp(cat *catalog.Catalog) bool {
	if s.tempSchema() == "" {
		return false
	}
	for _, name := range s.searchPath() {
		if name == "pg_temp" {
			return true
		}
		if cat.Schemas[name] != nil {
			return false
		}
	}
	return false
}

// ensureTempSchema creates the session's temporary schema in tx unless it
// exists. One the session did not make (left by an earlier session with
// the same pid that could not drop it) is dropped first.
func (s *Session) ensureTempSchema(tx *storage.Tx) error {
	temp := s.tempSchema()
	cat := tx.Catalog()
	if cat.Schemas[temp] != nil {
		if s.tempMade {
			return nil
		}
		if err := tx.DropSchema(temp, true); err != nil {
			return err
		}
	}
	owner := s.currentRole(cat).OID
	if err := tx.CreateSchema(temp, owner); err != nil {
		return err
	}
	s.tempMade = true
	return tx.AlterSchema(&catalog.SchemaDef{Name: temp, Owner: owner, ACL: catalog.TempSchemaACL(owner)})
}

// noteOnCommit remembers what each commit does to the temporary table
// schema.name that x created (nothing for ON COMMIT PRESERVE ROWS).
func (s *Session) noteOnCommit(tx *storage.Tx, x *sql.CreateTable) {
	if x.OnCommit == sql.OnCommitPreserveRows {
		return
	}
	def := tx.Catalog().Table(x.Def.Schema, x.Def.Name)
	if def == nil {
		return
	}
	if s.onCommit == nil {
		s.onCommit = map[uint64]sql.OnCommit{}
	}
	s.onCommit[def.ID] = x.OnCommit
}

// applyOnCommit does, in tx about to commit, what the ON COMMIT clauses of
// the session's temporary tables ask: DROP drops the tables the
// transaction created, DELETE ROWS empties those it inserted into (the
// others are empty already). A table gone meanwhile (rolled back,
// dropped) is forgotten.
func (s *Session) applyOnCommit(tx *storage.Tx) error {
	cat := tx.Catalog()
	for id, oc := range s.onCommit {
		def := cat.Tables[id]
		if def == nil {
			delete(s.onCommit, id)
			continue
		}
		switch oc {
		case sql.OnCommitDrop:
			if err := dropTable(tx, def, true); err != nil {
				return err
			}
			delete(s.onCommit, id)
		case sql.OnCommitDeleteRows:
			if tx.Inserted(id) {
				if err := tx.Truncate(id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// dropTempSchema drops the session's temporary schema and everything in
// it, in the session's transaction when one is open (DISCARD TEMP in a
// transaction block), else in one of its own.
func (s *Session) dropTempSchema() error {
	temp := s.tempSchema()
	if temp == "" {
		return nil
	}
	if s.tx != nil {
		if s.tx.Catalog().Schemas[temp] == nil {
			return nil
		}
		s.onCommit = nil
		return s.tx.DropSchema(temp, true)
	}
	if s.engine.db.Catalog().Schemas[temp] == nil {
		return nil
	}
	tx := s.begin()
	if err := tx.DropSchema(temp, true); err != nil {
		tx.Rollback()
		return err
	}
	s.onCommit = nil
	return tx.Commit()
}

// dropLeftTempSchemas drops the temporary schemas that sessions of an
// earlier run of the server left (it stopped without their ending).
func (e *Engine) dropLeftTempSchemas() error {
	if !e.db.LocalOnly() {
		return nil
	}
	tx := e.db.Begin()
	n := 0
	for name := range tx.Catalog().Schemas {
		if catalog.IsTempSchema(name) {
			if err := tx.DropSchema(name, true); err != nil {
				tx.Rollback()
				return err
			}
			n++
		}
	}
	if n == 0 {
		tx.Rollback()
		return nil
	}
	e.logger.Info("dropped temporary schemas of sessions of an earlier run", "schemas", n)
	return tx.Commit()
}
