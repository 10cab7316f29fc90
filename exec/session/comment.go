package session

import (
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// commentOn sets the comment COMMENT ON sets on target (an index,
// sequence, type, constraint, trigger, role, the database or an
// extension) after PostgreSQL 15's permission checks on those the binder
// leaves to the session: a type's owner; CREATEROLE (superuser for a
// superuser) for a role; the owner (the bootstrap superuser) of the
// database and of a built-in extension. A database of another name than
// the session's is a warning and nothing is set, as in PostgreSQL.
func (s *Session) commentOn(tx *storage.Tx, target *catalog.CommentTarget, text string) error {
	cat := tx.Catalog()
	me := s.currentRole(cat)
	switch target.Kind {
	case catalog.CommentType:
		td := cat.Type(target.Schema, target.Name)
		if td == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", target.Name)
		}
		name := td.Name
		if !slices.Contains(s.bindSearchPath(cat), td.Schema) {
			name = td.Schema + "." + td.Name // as format_type_be names a type off the path
		}
		if err := s.mustOwn(cat, td.Owner, "type", name); err != nil {
			return err
		}
	case catalog.CommentRole:
		r := cat.Role(target.Name)
		switch {
		case r == nil:
			return pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", target.Name)
		case r.Superuser && !me.Superuser:
			return denied("must be superuser")
		case !me.Superuser && !me.CreateRole:
			return denied("must have CREATEROLE privilege")
		}
	case catalog.CommentDatabase:
		if target.Name != s.database {
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: pgerrcode.InvalidCatalogName,
				Message: "database \"" + target.Name + "\" does not exist"})
			return nil
		}
		if err := s.mustOwn(cat, 0, "database", target.Name); err != nil {
			return err
		}
	case catalog.CommentExtension:
		if err := s.mustOwn(cat, 0, "extension", target.Name); err != nil {
			return err
		}
	}
	return tx.SetComment(*target, text)
}
