package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// spillRows is more than the 64 MiB a transaction keeps in memory per
// table before it writes its rows to files of its own (storage/spill.go):
// 384-d embeddings and a short text, about 1.6 KB a row.
const spillRows = 48000

// spillSource is a pgx.CopyFromSource of rows (id, task, embedding) for ids
// [0, n), with id dup repeated as the last row when dup >= 0.
type spillSource struct {
	i, n, dup int
}

func (c *spillSource) Next() bool { c.i++; return c.i <= c.n || c.i == c.n+1 && c.dup >= 0 }
func (c *spillSource) Err() error { return nil }
func (c *spillSource) Values() ([]any, error) {
	id := c.i - 1
	if c.i == c.n+1 {
		id = c.dup
	}
	return []any{int64(id), fmt.Sprintf("memory %d", id), vector(id)}, nil
}

// TestLargeCopySpillsAndSurvivesKill9: a COPY larger than what a
// transaction keeps in memory is all there after kill -9 right after it
// returns (BM25 over it answers as before, its text indexes built in the
// background or not), and one that fails on its last row leaves no row and no file
// behind.
func TestLargeCopySpillsAndSurvivesKill9(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startProcess(t, dir)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE big (id bigint PRIMARY KEY, task text, embedding real[])`)
	cols := []string{"id", "task", "embedding"}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"big"}, cols, &spillSource{n: spillRows, dup: -1})
	if err != nil || n != spillRows {
		t.Fatalf("COPY: %d rows, %v", n, err)
	}

	// BM25 over the spilled rows right away, while their text indexes are
	// built in the background (the same answer after kill -9 below).
	const bm25 = `SELECT id, round((task <#> 'memory 4711')::numeric, 6)::text FROM big ORDER BY task <#> 'memory 4711' LIMIT 1`
	var topID int64
	var topScore string
	if err := conn.QueryRow(ctx, bm25).Scan(&topID, &topScore); err != nil || topID != 4711 {
		t.Fatalf("BM25 right after the COPY: id %d, %v", topID, err)
	}

	// A COPY of new keys whose last row repeats an old one fails whole,
	// after it spilled most of its rows to files. Fewer rows than a flush
	// takes: only spills write segment files, which the background merges
	// into one; the files are measured once that is done.
	files, before := tableFiles(t, dir)
	for deadline := time.Now().Add(time.Minute); files != 1; files, before = tableFiles(t, dir) {
		if files == 0 || time.Now().After(deadline) {
			t.Fatalf("the COPY left %d segment files, want its spills merged into one", files)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"big"}, cols, &offsetRows{spillSource{n: spillRows, dup: 7}, spillRows})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("COPY repeating a key on its last row: %v, want 23505", err)
	}
	var count int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM big`).Scan(&count); err != nil || count != spillRows {
		t.Fatalf("after the failed COPY: %d rows, %v", count, err)
	}
	if _, after := tableFiles(t, dir); after > before+(1<<20) {
		t.Fatalf("the failed COPY left %d bytes of files", after-before)
	}

	p.kill()
	p2 := startProcess(t, dir)
	conn2 := p2.connect(t)
	var sum int64
	if err := conn2.QueryRow(ctx, `SELECT count(*), sum(id) FROM big`).Scan(&count, &sum); err != nil {
		t.Fatal(err)
	}
	if count != spillRows || sum != spillRows*(spillRows-1)/2 {
		t.Fatalf("after kill -9: %d rows, sum %d", count, sum)
	}
	var task string
	var emb []float32
	if err := conn2.QueryRow(ctx, `SELECT task, embedding FROM big WHERE id = $1`, spillRows-1).Scan(&task, &emb); err != nil {
		t.Fatal(err)
	}
	if want := vector(spillRows - 1); task != fmt.Sprintf("memory %d", spillRows-1) || len(emb) != len(want) || emb[5] != want[5] {
		t.Fatalf("last row after kill -9: %q, %d-d", task, len(emb))
	}
	var id2 int64
	var score2 string
	if err := conn2.QueryRow(ctx, bm25).Scan(&id2, &score2); err != nil || id2 != topID || score2 != topScore {
		t.Fatalf("BM25 after kill -9: id %d score %s, %v; before: id %d score %s", id2, score2, err, topID, topScore)
	}
	if _, err := conn2.Exec(ctx, `INSERT INTO big VALUES (17, 'again', NULL)`); !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("a key of the COPY after kill -9: %v, want 23505", err)
	}
}

// offsetRows shifts the ids of spillSource by off, keeping the repeated one.
type offsetRows struct {
	spillSource
	off int
}

func (o *offsetRows) Values() ([]any, error) {
	v, err := o.spillSource.Values()
	if o.i <= o.n {
		id := int64(o.i - 1 + o.off)
		v = []any{id, fmt.Sprintf("memory %d", id), vector(int(id))}
	}
	return v, err
}
