package syscat

import "github.com/cairn-db/cairn/sql/catalog"

// RelationStorage names what stores relation oid: a table (by storage
// ID, index ""), an index (its table's ID and its name; the index behind
// a key constraint lives in memory), or neither (kind 'v', 'S' or a
// system relation: nothing on disk). ok is false for an OID no relation
// has.
func (v *View) RelationStorage(oid int64) (table uint64, indexName string, kind byte, ok bool) {
	switch x := v.byOID[oid].(type) {
	case *catalog.TableDef:
		return x.ID, "", 'r', true
	case *index:
		return x.table.ID, x.name, 'i', true
	}
	_, _, kind, ok = v.Relation(oid)
	return 0, "", kind, ok
}
