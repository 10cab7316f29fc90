package main

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestApplicationNameTruncated sets application_name far longer than a
// name, at start-up and with SET and set_config: it is cut to 63 bytes
// with PostgreSQL's NOTICE 42622, and the ParameterStatus that reports
// it is short. A 100,000-byte application_name went back whole in
// ParameterStatus, and libpq (psql, psycopg) dropped the connection:
// "lost synchronization with server: got message type "S"".
func TestApplicationNameTruncated(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, n.Code+" "+n.Message)
	}
	cfg.RuntimeParams["application_name"] = strings.Repeat("a", 5000)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	check := func(what, c string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		want := `42622 identifier "` + strings.Repeat(c, 5) // the original, then the cut one
		if len(notices) != 1 || !strings.HasPrefix(notices[0], want) || !strings.HasSuffix(notices[0], `will be truncated to "`+strings.Repeat(c, 63)+`"`) {
			t.Errorf("%s: notices %.200q", what, notices)
		}
		notices = nil
		if got := conn.PgConn().ParameterStatus("application_name"); got != strings.Repeat(c, 63) {
			t.Errorf("%s: ParameterStatus application_name %q", what, got)
		}
		var shown string
		if err := conn.QueryRow(ctx, "SHOW application_name").Scan(&shown); err != nil || shown != strings.Repeat(c, 63) {
			t.Errorf("%s: SHOW application_name %q, %v", what, shown, err)
		}
	}
	check("start-up", "a")
	if _, err := conn.Exec(ctx, "SET application_name = '"+strings.Repeat("b", 100)+"'"); err != nil {
		t.Fatal(err)
	}
	check("SET", "b")
	if _, err := conn.Exec(ctx, "SELECT set_config('application_name', repeat('c', 100000), false)"); err != nil {
		t.Fatal(err)
	}
	check("set_config", "c")
}
