package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTemporaryTables checks what makes temporary tables private and
// short-lived: another session neither sees nor reaches them (not by
// its pg_temp_N name either), two sessions' temporary tables of one name
// are each their own, and they are gone when their session ends and
// after the server is killed and restarted.
func TestTemporaryTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startProcess(t, dir)
	a, b := p.connect(t), p.connect(t)
	mustExec(t, a, `CREATE TABLE shared (v text)`)
	mustExec(t, a, `INSERT INTO shared VALUES ('permanent')`)
	mustExec(t, a, `CREATE TEMP TABLE shared (v text)`)
	mustExec(t, a, `INSERT INTO shared VALUES ('a''s')`)
	mustExec(t, b, `CREATE TEMP TABLE shared (v text)`)
	mustExec(t, b, `INSERT INTO shared VALUES ('b''s')`)
	for conn, want := range map[string]string{"a": "a's", "b": "b's"} {
		c := a
		if conn == "b" {
			c = b
		}
		var got string
		if err := c.QueryRow(ctx, `SELECT string_agg(v, ',') FROM shared`).Scan(&got); err != nil || got != want {
			t.Errorf("session %s reads %q, %v; want its own %q", conn, got, err, want)
		}
		if err := c.QueryRow(ctx, `SELECT v FROM public.shared`).Scan(&got); err != nil || got != "permanent" {
			t.Errorf("session %s reads public.shared %q, %v", conn, got, err)
		}
	}
	var schemaA string
	if err := a.QueryRow(ctx, `SELECT relnamespace::regnamespace::text FROM pg_class WHERE relname = 'shared' AND relpersistence = 't' AND pg_table_is_visible(oid)`).Scan(&schemaA); err != nil || !strings.HasPrefix(schemaA, "pg_temp_") {
		t.Fatalf("session a's temporary schema: %q, %v", schemaA, err)
	}
	if _, err := b.Exec(ctx, `SELECT * FROM `+schemaA+`.shared`); sqlState(err) != "0A000" {
		t.Errorf("another session's temporary table: %v, want 0A000", err)
	}
	if _, err := b.Exec(ctx, `CREATE TABLE `+schemaA+`.intruder (a int)`); sqlState(err) != "0A000" {
		t.Errorf("creating in another session's temporary schema: %v, want 0A000", err)
	}

	// The session's end drops its schema; the other's stays.
	a.Close(ctx)
	waitFor(t, func() bool {
		var n int
		b.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schemaA).Scan(&n)
		return n == 0
	})
	var n int
	if err := b.QueryRow(ctx, `SELECT count(*) FROM shared`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("session b's temporary table after a left: %d rows, %v", n, err)
	}

	// A server killed with sessions open drops their schemas when it
	// starts again.
	p.kill()
	p = startProcess(t, dir)
	c := p.connect(t)
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp_%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("temporary schemas after a restart: %d, %v", n, err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM shared`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the permanent table after a restart: %d rows, %v", n, err)
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
