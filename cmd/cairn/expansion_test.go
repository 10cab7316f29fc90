package main

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestExpansionTower builds towers of views and of SQL functions in which
// each level reads the one below twice, so that binding a level expands
// twice as many as the last. Before the bound on expansions, creating the
// twentieth view took minutes and 2.4 GB, and neither statement_timeout
// nor a cancel stopped it; now a statement that would expand more than
// 10,000 fails with 54001 in about a second, and the levels below still
// answer what PostgreSQL answers.
func TestExpansionTower(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	exec := func(q string) error {
		_, err := conn.Exec(ctx, q)
		return err
	}
	if err := exec("CREATE VIEW w0 AS SELECT 1 AS x"); err != nil {
		t.Fatal(err)
	}
	if err := exec("CREATE FUNCTION e0(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT x + 1 $$"); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 10; k++ {
		if err := exec(fmt.Sprintf("CREATE VIEW w%d AS SELECT a.x + b.x AS x FROM w%d a, w%d b", k, k-1, k-1)); err != nil {
			t.Fatalf("view w%d: %v", k, err)
		}
		if err := exec(fmt.Sprintf("CREATE FUNCTION e%d(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT e%d(x) + e%d(x) $$", k, k-1, k-1)); err != nil {
			t.Fatalf("function e%d: %v", k, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT x FROM w10").Scan(&n); err != nil || n != 1024 {
		t.Fatalf("SELECT x FROM w10: %d, %v", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT e10(1)").Scan(&n); err != nil || n != 2048 {
		t.Fatalf("SELECT e10(1): %d, %v", n, err)
	}
	for _, q := range []string{
		"SELECT count(*) FROM w10 a, w10 b, w10 c, w10 d, w10 e",
		"CREATE VIEW w14 AS SELECT a.x + b.x + c.x + d.x + e.x AS x FROM w10 a, w10 b, w10 c, w10 d, w10 e",
		"SELECT e10(1) + e10(2) + e10(3) + e10(4) + e10(5)",
		"CREATE FUNCTION e14(x int) RETURNS int LANGUAGE sql AS $$ SELECT e10(x) + e10(x) + e10(x) + e10(x) + e10(x) $$",
	} {
		start := time.Now()
		if err := exec(q); sqlState(err) != "54001" {
			t.Errorf("%s: %v, want 54001", q, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: refused after %v", q, d)
		}
	}
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
}
