package syscat

import (
	"github.com/cairn-db/cairn/sql/catalog"
)

// domainLayout is what a domain's pg_type row takes from its base type:
// typlen, typbyval, typcategory, typelem (a domain over an array is one
// of its elements), typcollation and the I/O functions.
func domainLayout(d *catalog.DomainDef) (length int64, byVal bool, category string, elem, coll int64, procs typeProcs) {
	base := d.Base
	length, byVal, category = int64(base.TypLen()), base.TypLen() > 0 && base.TypLen() <= 8, "U"
	if base.IsArray() {
		elem = int64(base.Elem.OID())
	}
	for _, bt := range builtinTypes {
		switch int64(base.OID()) {
		case bt.oid:
			category, coll, procs = bt.category, bt.collation, procsOf(bt, false)
		case bt.array:
			category, coll, procs = "A", bt.collation, procsOf(bt, true)
		}
	}
	return
}

// domainConstraintOID is the pg_constraint OID of check i of domain d:
// within the block of OIDs of the domain's type, above any hashed OID
// range of table constraints.
func domainConstraintOID(d *catalog.DomainDef, i int) int64 {
	return int64(d.OID)<<8 | int64(i+1)
}
