package sql

import pg_query "github.com/pganalyze/pg_query_go/v5"

// Normalize returns query with its constants replaced by $1, $2, ... as
// pg_stat_statements shows it, and its fingerprint, which queries that
// differ only in their constants share (pg_stat_statements.queryid).
func Normalize(query string) (text string, id int64, err error) {
	if text, err = pg_query.Normalize(query); err != nil {
		return "", 0, err
	}
	fp, err := pg_query.FingerprintToUInt64(query)
	return text, int64(fp), err
}
