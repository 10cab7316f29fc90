package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage"
)

// TestKeyIndexUnderConcurrentWrites: while writers insert, update and
// delete rows of an indexed table (small flushes, so segments are
// written and compacted all along, each getting key indexes), readers
// look sessions up in a REPEATABLE READ snapshot through the index and,
// in the same snapshot, with the index turned off: the two answers are
// always the same rows.
func TestKeyIndexUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	srv := startServerOpts(t, t.TempDir(), storage.Options{FlushRows: 300})
	setup := srv.connect(t)
	for _, q := range []string{
		`CREATE TABLE ev (id bigserial PRIMARY KEY, session_id text, seq int, body text)`,
		`CREATE INDEX ev_session ON ev (session_id, seq)`,
		`CREATE INDEX ev_body ON ev ((lower(body)))`,
		`INSERT INTO ev (session_id, seq, body) SELECT 's' || (g % 20), g, 'Body ' || (g % 7) FROM generate_series(1, 2000) g`,
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	deadline := time.Now().Add(4 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, srv.connString())
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for time.Now().Before(deadline) {
				s := fmt.Sprintf("s%d", rng.IntN(20))
				var q string
				switch rng.IntN(4) {
				case 0:
					q = fmt.Sprintf(`INSERT INTO ev (session_id, seq, body) SELECT '%s', g, 'Body ' || (g %% 7) FROM generate_series(1, %d) g`, s, 1+rng.IntN(200))
				case 1:
					q = fmt.Sprintf(`DELETE FROM ev WHERE session_id = '%s' AND seq %% 3 = %d`, s, rng.IntN(3))
				case 2:
					q = fmt.Sprintf(`UPDATE ev SET session_id = 's%d', body = upper(body) WHERE session_id = '%s' AND seq < %d`, rng.IntN(20), s, rng.IntN(50))
				default:
					q = fmt.Sprintf(`INSERT INTO ev (session_id, seq, body) VALUES ('%s', 1, 'one row')`, s)
				}
				if _, err := conn.Exec(ctx, q); err != nil {
					errs <- fmt.Errorf("%s: %w", q, err)
					return
				}
			}
		}()
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, srv.connString())
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			rng := rand.New(rand.NewPCG(uint64(r), 9))
			ids := func(q string, arg any) ([]int64, error) {
				rows, err := conn.Query(ctx, q, arg)
				if err != nil {
					return nil, err
				}
				out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				slices.Sort(out)
				return out, err
			}
			checks := 0
			for time.Now().Before(deadline) || checks == 0 {
				where, arg := "session_id = $1", any(fmt.Sprintf("s%d", rng.IntN(20)))
				if rng.IntN(2) == 0 {
					where, arg = "lower(body) = $1", fmt.Sprintf("body %d", rng.IntN(7))
				}
				q := "SELECT id FROM ev WHERE " + where
				if _, err := conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
					errs <- err
					return
				}
				indexed, err := ids(q, arg)
				if err == nil {
					_, err = conn.Exec(ctx, "SET LOCAL enable_bitmapscan = off")
				}
				var scanned []int64
				if err == nil {
					// Other text: a plan of its own, made with the setting.
					scanned, err = ids(q+" -- scanned", arg)
				}
				if _, cerr := conn.Exec(ctx, "COMMIT"); err == nil {
					err = cerr
				}
				if err != nil {
					errs <- fmt.Errorf("%s %v: %w", q, arg, err)
					return
				}
				if !slices.Equal(indexed, scanned) {
					errs <- fmt.Errorf("%s %v: %d rows through the index, %d by a scan of the same snapshot", q, arg, len(indexed), len(scanned))
					return
				}
				checks++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var plan string
	if err := setup.QueryRow(ctx, "EXPLAIN SELECT id FROM ev WHERE lower(body) = 'x'").Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if want := "Bitmap Heap Scan on ev using ev_body"; len(plan) < len(want) || plan[:len(want)] != want {
		t.Fatalf("plan %q", plan)
	}
}
