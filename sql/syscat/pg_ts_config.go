package syscat

import "github.com/cairn-db/cairn/sql/types/tsearch"

// defaultParserOID is pg_ts_parser's OID of PostgreSQL's default parser,
// the one both configurations use.
const defaultParserOID = 3722

// pg_ts_config lists the text search configurations cairn has (simple
// and english, in pg_catalog, with PostgreSQL 15's OIDs), so psql's \dF
// and regconfig lookups by clients find them.
func init() {
	register("pg_catalog", "pg_ts_config", 3602, "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid", func(*View) [][]any {
		var rows [][]any
		for _, c := range tsearch.Configs {
			rows = append(rows, []any{c.OID, c.Name, int64(PgCatalogOID), int64(BootstrapUserOID), int64(defaultParserOID)})
		}
		return rows
	})
}
