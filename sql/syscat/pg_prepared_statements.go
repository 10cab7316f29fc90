package syscat

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// PreparedStatement is one of the session's named prepared statements as
// pg_prepared_statements lists it: made by SQL PREPARE (FromSQL) or by
// the protocol's Parse.
type PreparedStatement struct {
	Name string
	// Statement is the text the client sent: the whole PREPARE statement
	// for one of SQL, the query of a Parse.
	Statement   string
	PrepareTime time.Time
	// ParamTypes are the parameters' type OIDs.
	ParamTypes []uint32
	FromSQL    bool
	// Runs counts the times the statement was planned and run; cairn
	// plans every run for its parameters (PostgreSQL's custom plans).
	Runs int64
}

func init() {
	regtype, _ := types.Named("regtype")
	register("pg_catalog", "pg_prepared_statements", 0, "name text, statement text, prepare_time timestamptz, parameter_types regtype[], from_sql bool, generic_plans int8, custom_plans int8", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.PreparedStatements))
		for _, p := range v.PreparedStatements {
			params := make([]any, len(p.ParamTypes))
			for i, oid := range p.ParamTypes {
				params[i] = int64(oid)
			}
			rows = append(rows, []any{p.Name, p.Statement, types.TimestampFromTime(p.PrepareTime),
				types.NewArray(regtype, params...), p.FromSQL, int64(0), p.Runs})
		}
		return rows
	})
}
