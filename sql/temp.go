package sql

import (
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// OnCommit is what a temporary table's ON COMMIT clause does at the end
// of each transaction that commits.
type OnCommit uint8

const (
	// OnCommitPreserveRows keeps the rows (the default).
	OnCommitPreserveRows OnCommit = iota
	// OnCommitDeleteRows empties the table.
	OnCommitDeleteRows
	// OnCommitDrop drops the table at the end of the transaction that
	// created it.
	OnCommitDrop
)

// onCommit reads an ON COMMIT clause; 42P16 on a table that is not
// temporary, as PostgreSQL answers.
func onCommit(a pg_query.OnCommitAction, temp bool) (OnCommit, error) {
	var oc OnCommit
	switch a {
	case pg_query.OnCommitAction_ONCOMMIT_DELETE_ROWS:
		oc = OnCommitDeleteRows
	case pg_query.OnCommitAction_ONCOMMIT_DROP:
		oc = OnCommitDrop
	case pg_query.OnCommitAction_ONCOMMIT_PRESERVE_ROWS:
	default:
		return OnCommitPreserveRows, nil
	}
	if !temp {
		return 0, pgerr.New(pgerrcode.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
	}
	return oc, nil
}

// schemaName is the schema a qualified name means: pg_temp is the
// session's temporary schema, as in PostgreSQL, and another session's is
// out of reach (0A000).
func (b *Binder) schemaName(schema string) (string, error) {
	switch {
	case schema == "pg_temp" && b.TempSchema != "":
		return b.TempSchema, nil
	case catalog.IsTempSchema(schema) && schema != b.TempSchema:
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot access temporary tables of other sessions")
	}
	return schema, nil
}

// relationSchema is the schema a CREATE of relation rv puts it in, and
// whether that is the session's temporary schema: for CREATE TEMP (or a
// name qualified by pg_temp) it is, else it is CreationSchema's answer.
func (b *Binder) relationSchema(rv *pg_query.RangeVar) (string, bool, error) {
	named := rv.Schemaname
	if named == "pg_temp" || named != "" && named == b.TempSchema {
		named = "pg_temp"
	}
	switch {
	case rv.Relpersistence == "t" && named != "" && named != "pg_temp":
		return "", false, pgerr.New(pgerrcode.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	case rv.Relpersistence == "t" || named == "pg_temp":
		if b.TempSchema == "" {
			return "", false, pgerr.NotSupported("temporary relations on a server that shares its storage with other servers (--storage)")
		}
		return b.TempSchema, true, nil
	}
	schema, err := b.CreationSchema(rv.Schemaname, rv.Relname)
	return schema, err == nil && schema == b.TempSchema, err
}

// newTableSchema is relationSchema for a new table rv with the ON COMMIT
// clause a, which it reads; a permanent table's schema must exist and
// take the role's CREATE.
func (b *Binder) newTableSchema(rv *pg_query.RangeVar, a pg_query.OnCommitAction) (string, bool, OnCommit, error) {
	schema, temp, err := b.relationSchema(rv)
	if err != nil {
		return "", false, 0, err
	}
	oc, err := onCommit(a, temp)
	if err != nil {
		return "", false, 0, err
	}
	if !temp {
		if _, ok := b.Catalog.Schemas[schema]; !ok {
			return "", false, 0, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
		b.accesses = append(b.accesses, Access{Schema: schema, Privs: catalog.PrivCreate})
	}
	return schema, temp, oc, nil
}

// checkReferencePersistence refuses a foreign key between a temporary
// table and a permanent one, either way (42P16, PostgreSQL's rule): the
// temporary one goes with its session.
func checkReferencePersistence(child, parent *catalog.TableDef) error {
	switch childTemp, parentTemp := catalog.IsTempSchema(child.Schema), catalog.IsTempSchema(parent.Schema); {
	case childTemp && !parentTemp:
		return pgerr.New(pgerrcode.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	case !childTemp && parentTemp:
		return pgerr.New(pgerrcode.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	}
	return nil
}
