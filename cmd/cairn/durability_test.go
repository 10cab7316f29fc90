package main

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestKill9Durability writes through the real binary, SIGKILLs it with no
// warning, restarts it over the same data directory and checks that every
// acknowledged INSERT, UPDATE and DELETE survived and nothing else exists.
func TestKill9Durability(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	dir := t.TempDir()
	kill9Durability(t, func() *process { return startProcess(t, dir) }, nil)
}

// kill9Durability writes through a server that start starts, SIGKILLs it,
// starts another and checks every acknowledged change, stops that one
// cleanly (after settle, when set) and checks again with a third.
func kill9Durability(t *testing.T, start func() *process, settle func()) {
	ctx := context.Background()
	p := start()
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE mem (id bigserial PRIMARY KEY, task text, n int, embedding float4[])`)

	want := map[int64]row{}
	for batch := 0; batch < 20; batch++ {
		b := &pgx.Batch{}
		for i := 0; i < 50; i++ {
			n := batch*50 + i
			b.Queue(`INSERT INTO mem (task, n, embedding) VALUES ($1, $2, $3) RETURNING id`,
				fmt.Sprintf("task %d", n), n, vector(n))
		}
		res := conn.SendBatch(ctx, b)
		for i := 0; i < 50; i++ {
			var id int64
			if err := res.QueryRow().Scan(&id); err != nil {
				t.Fatal(err)
			}
			n := batch*50 + i
			want[id] = row{task: fmt.Sprintf("task %d", n), n: n, emb: vector(n)}
		}
		if err := res.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Acknowledged updates and deletes.
	tag, err := conn.Exec(ctx, `UPDATE mem SET task = 'updated' WHERE n % 7 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range want {
		if r.n%7 == 0 {
			r.task = "updated"
			want[id] = r
		}
	}
	if tag.RowsAffected() == 0 {
		t.Fatal("update touched nothing")
	}
	if _, err := conn.Exec(ctx, `DELETE FROM mem WHERE n % 5 = 0`); err != nil {
		t.Fatal(err)
	}
	for id, r := range want {
		if r.n%5 == 0 {
			delete(want, id)
		}
	}
	p.kill()

	p2 := start()
	conn2 := p2.connect(t)
	checkRows(t, conn2, want)
	// A commit after the restart.
	var id2 int64
	if err := conn2.QueryRow(ctx, `INSERT INTO mem (task, n, embedding) VALUES ('restarted', -2, $1) RETURNING id`, vector(-2)).Scan(&id2); err != nil {
		t.Fatal(err)
	}
	want[id2] = row{task: "restarted", n: -2, emb: vector(-2)}

	// A clean restart keeps the same rows too.
	if settle != nil {
		settle()
	}
	if err := p2.stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	p3 := start()
	conn3 := p3.connect(t)
	checkRows(t, conn3, want)
	// The sequence never hands out an id twice.
	var id int64
	if err := conn3.QueryRow(ctx, `INSERT INTO mem (task, n) VALUES ('after', -1) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, dup := want[id]; dup || id <= 1000 {
		t.Fatalf("new id %d reuses or precedes acknowledged ids", id)
	}
}

type row struct {
	task string
	n    int
	emb  []float32
}

func vector(n int) []float32 {
	v := make([]float32, 384)
	for i := range v {
		v[i] = float32(math.Sin(float64(n*384 + i)))
	}
	return v
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func checkRows(t *testing.T, conn *pgx.Conn, want map[int64]row) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT id, task, n, embedding FROM mem ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rows.Next() {
		var id int64
		var r row
		if err := rows.Scan(&id, &r.task, &r.n, &r.emb); err != nil {
			t.Fatal(err)
		}
		got++
		w, ok := want[id]
		if !ok {
			t.Fatalf("row %d exists but was deleted or never acknowledged", id)
		}
		if w.task != r.task || w.n != r.n || len(w.emb) != len(r.emb) {
			t.Fatalf("row %d = %+v, want %+v", id, r.task, w.task)
		}
		for i := range w.emb {
			if math.Float32bits(w.emb[i]) != math.Float32bits(r.emb[i]) {
				t.Fatalf("row %d embedding[%d] = %v, want %v", id, i, r.emb[i], w.emb[i])
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != len(want) {
		t.Fatalf("got %d rows, want %d", got, len(want))
	}
}
