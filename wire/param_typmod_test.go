package wire

import (
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestParamTypmodCast: a parameter cast to a type with a modifier
// ($1::varchar(2), $1::numeric(5,2), $1::char(3)) is a parameter of the
// type without it, and the cast applies the modifier to the value bound,
// as in PostgreSQL (the parameter took the modifier itself, so the cast
// did nothing: 'abc' stayed 'abc').
func TestParamTypmodCast(t *testing.T) {
	ts := startServer(t)
	host, port, _ := net.SplitHostPort(ts.addr)
	ctx := testCtx(t)
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@%s:%s/testdb?sslmode=disable", host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v, n, ch, typ string
	if err := conn.QueryRow(ctx, "SELECT $1::varchar(2), ($2::numeric(5,2))::text, $3::char(3) || '|', pg_typeof($1::varchar(2))::text",
		"abc", "1.234", "a").Scan(&v, &n, &ch, &typ); err != nil {
		t.Fatal(err)
	}
	if v != "ab" || n != "1.23" || ch != "a|" || typ != "character varying" {
		t.Errorf("got %q %q %q %q, want \"ab\" \"1.23\" \"a|\" \"character varying\"", v, n, ch, typ)
	}
	var padded string
	if err := conn.QueryRow(ctx, "SELECT $1::char(3)", "a").Scan(&padded); err != nil {
		t.Fatal(err)
	}
	if padded != "a  " {
		t.Errorf("$1::char(3) of 'a' = %q, want \"a  \"", padded)
	}
	sd, err := conn.Prepare(ctx, "typmod", "SELECT $1::varchar(2), $2::numeric(5,2)")
	if err != nil {
		t.Fatal(err)
	}
	// The parameters' types as ParameterDescription gives them: varchar
	// (1043) and numeric (1700).
	if len(sd.ParamOIDs) != 2 || sd.ParamOIDs[0] != 1043 || sd.ParamOIDs[1] != 1700 {
		t.Errorf("parameter types %v, want [1043 1700]", sd.ParamOIDs)
	}
}
