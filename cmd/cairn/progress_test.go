package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyProgress is a row of pg_stat_progress_copy.
type copyProgress struct {
	relid                          uint32
	command, kind                  string
	bytes, total, tuples, excluded int64
}

// copyProgressOf returns pid's row of pg_stat_progress_copy, false when
// it has none.
func copyProgressOf(t *testing.T, conn *pgx.Conn, pid uint32) (p copyProgress, ok bool) {
	t.Helper()
	err := conn.QueryRow(context.Background(), `SELECT relid, command, type, bytes_processed, bytes_total, tuples_processed, tuples_excluded
		FROM pg_stat_progress_copy WHERE pid = $1`, int32(pid)).Scan(&p.relid, &p.command, &p.kind, &p.bytes, &p.total, &p.tuples, &p.excluded)
	if err == pgx.ErrNoRows {
		return p, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, true
}

// copyRows is n rows of COPY text data for table cp, ids from first.
func copyRows(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "%d\tnote number %d, long enough to fill the blocks the server reads\n", i, i)
	}
	return b.String()
}

// TestPgStatProgressCopy: while a COPY FROM STDIN is fed in pieces by one
// connection, another sees it in pg_stat_progress_copy with the bytes and
// rows processed so far (and the rows its WHERE excluded) growing; the
// row goes when the COPY ends.
func TestPgStatProgressCopy(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	copier, watcher := ts.connect(t), ts.connect(t)
	pid := copier.PgConn().PID()
	mustExec(t, copier, `CREATE TABLE cp (id int PRIMARY KEY, note text)`)
	var relid uint32
	if err := watcher.QueryRow(ctx, `SELECT 'cp'::regclass::oid`).Scan(&relid); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := copier.PgConn().CopyFrom(ctx, pr, "COPY cp FROM STDIN WHERE id % 4 <> 0")
		done <- err
	}()
	// A failure ends the COPY before the connection closes.
	ended := false
	t.Cleanup(func() {
		if !ended {
			pw.CloseWithError(io.ErrUnexpectedEOF)
			<-done
		}
	})
	const piece = 4000 // rows: ~300 kB, several of the server's read blocks
	var sent int64
	var last copyProgress
	for i := 0; i < 3; i++ {
		data := copyRows(i*piece+1, piece)
		if _, err := pw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		sent += int64(len(data))
		// The server reads ahead of what it has parsed: wait for the rows
		// of earlier pieces, and for this piece's bytes but one block.
		var p copyProgress
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var ok bool
			p, ok = copyProgressOf(t, watcher, pid)
			if ok && p.bytes >= sent-128<<10 && p.tuples > last.tuples {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("piece %d: progress %+v (shown %v) after %d bytes sent", i, p, ok, sent)
			}
		}
		if p.relid != relid || p.command != "COPY FROM" || p.kind != "PIPE" || p.total != 0 || p.bytes > sent ||
			p.tuples > int64((i+1)*piece) || p.excluded < 0 || p.excluded > p.tuples {
			t.Fatalf("piece %d: progress %+v after %d bytes sent", i, p, sent)
		}
		last = p
	}
	if last.excluded == 0 {
		t.Errorf("WHERE id %% 4 <> 0 excluded no row: %+v", last)
	}
	pw.Close()
	ended = true
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if p, ok := copyProgressOf(t, watcher, pid); ok {
		t.Fatalf("the COPY ended but its progress stays: %+v", p)
	}
	var n int64
	if err := watcher.QueryRow(ctx, `SELECT count(*) FROM cp`).Scan(&n); err != nil || n != 3*piece*3/4 {
		t.Fatalf("rows copied: %d %v", n, err)
	}
}

// TestPgStatProgressCreateIndex: while CREATE INDEX builds a vector index
// over a table's rows, another session sees it in
// pg_stat_progress_create_index with the table, the index, the phase, the
// rows to index and the rows indexed so far (growing segment by segment);
// the row goes when it ends.
func TestPgStatProgressCreateIndex(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	builder, watcher := ts.connect(t), ts.connect(t)
	pid := builder.PgConn().PID()
	mustExec(t, builder, `CREATE TABLE vi (id int PRIMARY KEY, emb real[])`)
	for part := 0; part < 4; part++ { // four segments, which the build indexes one by one
		mustExec(t, builder, fmt.Sprintf(`INSERT INTO vi SELECT g, array_agg(sin(g * d)::real) FROM generate_series(%d, %d) g, generate_series(1, 32) d GROUP BY g`,
			part*5000+1, part*5000+5000))
		if err := ts.db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	var relid uint32
	if err := watcher.QueryRow(ctx, `SELECT 'vi'::regclass::oid`).Scan(&relid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// About 0.5 s on a laptop: the watcher's queries take a millisecond.
		_, err := builder.Exec(ctx, `CREATE INDEX vi_hnsw ON vi USING hnsw (emb vector_l2_ops)`)
		done <- err
	}()
	var seen, ended, between bool
	var rel, index uint32
	var command, phase string
	var total, doneRows, lastDone int64
	for !ended {
		err := watcher.QueryRow(ctx, `SELECT relid, index_relid, command, phase, tuples_total, tuples_done FROM pg_stat_progress_create_index WHERE pid = $1`,
			int32(pid)).Scan(&rel, &index, &command, &phase, &total, &doneRows)
		switch {
		case err == pgx.ErrNoRows:
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				if !seen {
					t.Fatal("CREATE INDEX ended before its progress was seen")
				}
				ended = true
			default:
			}
		case err != nil:
			t.Fatal(err)
		default:
			if doneRows < lastDone || doneRows > total {
				t.Fatalf("tuples_done went from %d to %d of %d", lastDone, doneRows, total)
			}
			seen, lastDone = true, doneRows
			between = between || doneRows > 0 && doneRows < total
		}
	}
	if !between {
		t.Errorf("tuples_done was never seen between 0 and %d (last %d)", total, lastDone)
	}
	var indexOID uint32
	if err := watcher.QueryRow(ctx, `SELECT oid FROM pg_class WHERE relname = 'vi_hnsw'`).Scan(&indexOID); err != nil {
		t.Fatal(err)
	}
	if rel != relid || index != indexOID || command != "CREATE INDEX" || phase != "building index" || total != 20000 {
		t.Fatalf("progress: relid %d index %d (vi_hnsw %d) %s %s %d/%d", rel, index, indexOID, command, phase, doneRows, total)
	}
	var n int
	if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_progress_create_index`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("progress rows after CREATE INDEX: %d %v", n, err)
	}
}

// blockedWriter takes writes until its first, then blocks them until
// release is closed.
type blockedWriter struct {
	first   chan struct{}
	release chan struct{}
	once    bool
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	if !w.once {
		w.once = true
		close(w.first)
		<-w.release
	}
	return len(p), nil
}

// TestPgStatProgressCopyTo: a COPY TO STDOUT whose client stopped reading
// shows in pg_stat_progress_copy with the rows and bytes sent so far
// (the CSV header line is no row).
func TestPgStatProgressCopyTo(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	copier, watcher := ts.connect(t), ts.connect(t)
	pid := copier.PgConn().PID()
	mustExec(t, copier, `CREATE TABLE ct (id int, note text)`)
	mustExec(t, copier, `INSERT INTO ct SELECT g, repeat('x', 100) FROM generate_series(1, 100000) g`)
	var relid uint32
	if err := watcher.QueryRow(ctx, `SELECT 'ct'::regclass::oid`).Scan(&relid); err != nil {
		t.Fatal(err)
	}
	w := &blockedWriter{first: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := copier.PgConn().CopyTo(ctx, w, "COPY ct TO STDOUT WITH (FORMAT csv, HEADER)")
		done <- err
	}()
	<-w.first
	// The server writes until the socket's buffers are full, then waits.
	var p, prev copyProgress
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var ok bool
		p, ok = copyProgressOf(t, watcher, pid)
		if ok && p.tuples > 0 && p == prev {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("COPY TO's progress: %+v (shown %v)", p, ok)
		}
		prev = p
	}
	if p.relid != relid || p.command != "COPY TO" || p.kind != "PIPE" || p.tuples >= 100000 || p.excluded != 0 ||
		p.bytes < p.tuples*100 || p.bytes > p.tuples*120+100 {
		t.Errorf("COPY TO's progress while its client does not read: %+v", p)
	}
	close(w.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if p, ok := copyProgressOf(t, watcher, pid); ok {
		t.Fatalf("the COPY ended but its progress stays: %+v", p)
	}
}
