package storage

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// TestIntKeysMatchModel inserts random batches into a table whose unique
// keys are each one integer column: a bigint primary key and an integer
// and a smallint unique column, which checkUnique checks by value, and a
// timestamp unique column, which it encodes (its keys are kept by value
// too). Batches come in ascending, descending and random order, with
// NULLs and with a key repeated at the first, a middle or the last row —
// of another row of the batch or of a live row, committed or the
// transaction's own — between deletes, savepoints rolled back to,
// rollbacks and commits, with and without spilling. Every insert's
// outcome (which constraint and row a duplicate is reported for) and the
// rows left are checked against a model.
func TestIntKeysMatchModel(t *testing.T) {
	for _, spill := range []int64{0, 2 << 10} {
		t.Run(fmt.Sprintf("spill=%d", spill), func(t *testing.T) {
			db := openDB(t, t.TempDir(), Options{SpillBytes: spill})
			defer db.Close()
			tx := db.Begin()
			def, err := tx.CreateTable(&catalog.TableDef{Schema: catalog.PublicSchema, Name: "k", Columns: []catalog.ColumnDef{
				col("id", types.Int8T), col("u", types.Int4T), col("s", types.Int2T), col("ts", types.TimestampT)},
				PrimaryKey: []int{1},
				Uniques: []catalog.UniqueDef{{Name: "k_u_key", Columns: []int{2}}, {Name: "k_s_key", Columns: []int{3}},
					{Name: "k_ts_key", Columns: []int{4}}}})
			if err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
			cons := constraintsOf(nil, def)
			rng := rand.New(rand.NewSource(7))
			committed := map[int]liveRow{} // the live committed rows by id
			for round := range 60 {
				tx := db.Begin()
				live := maps.Clone(committed) // the rows tx sees
				sp, saved := -1, map[int]liveRow(nil)
				for step := range 8 {
					if step == 3 {
						sp, saved = tx.Savepoint(), maps.Clone(live)
					}
					if rng.Intn(4) == 0 && len(live) > 0 {
						deleteLive(t, tx, def, live, rng)
						continue
					}
					rows := keyBatch(rng, live)
					rec := makeRecord(t, def, rows...)
					want := ""
					if ci, i := modelDuplicate(live, rows); ci >= 0 {
						con := cons[ci]
						pos, _ := keyCols(con, []int{1, 2, 3, 4})
						names, vals := keyText(def, con, rec.Columns(), pos, i)
						want = fmt.Sprintf("23505 %s Key (%s)=(%s) already exists.", con.name, names, vals)
					}
					got := ""
					if err := tx.Insert(def.ID, rec); err != nil {
						pe := pgerr.From(err)
						got = fmt.Sprintf("%s %s", pe.Code, pe.Detail)
						for _, con := range cons {
							if pe.Message == fmt.Sprintf("duplicate key value violates unique constraint %q", con.name) {
								got = fmt.Sprintf("%s %s %s", pe.Code, con.name, pe.Detail)
							}
						}
					}
					if got != want {
						t.Fatalf("round %d step %d: insert of %d rows: got %q, want %q", round, step, len(rows), got, want)
					}
					if got == "" {
						for _, r := range rows {
							live[r[0].(int)] = liveRow{r, true}
						}
					}
				}
				switch rng.Intn(3) {
				case 0:
					tx.Rollback()
				case 1:
					tx.RollbackTo(sp)
					live = saved
					fallthrough
				default:
					mustCommit(t, tx)
					committed = map[int]liveRow{}
					for id, r := range live {
						committed[id] = liveRow{r.vals, false}
					}
				}
			}
			tx = db.Begin()
			defer tx.Rollback()
			var want []string
			for _, r := range committed {
				want = append(want, fmt.Sprint(r.vals[:3]))
			}
			var got []string
			for _, r := range scanRows(t, tx, def.ID, false) {
				got = append(got, fmt.Sprint(r[:3]))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("rows: %d, want %d\n%v\n%v", len(got), len(want), got, want)
			}
		})
	}
}

// liveRow is a row a transaction sees: committed, or its own.
type liveRow struct {
	vals []any
	own  bool
}

// keyBatch returns rows (id, u, s, ts) with fresh keys, mostly, in one of
// three orders, and NULLs in u, s and ts; now and then one column repeats
// at the first, a middle or the last row a key of another row of the
// batch or of a live row.
func keyBatch(rng *rand.Rand, live map[int]liveRow) [][]any {
	n := 1 + rng.Intn(40)
	if rng.Intn(10) == 0 {
		n = 3000
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, 4)
	}
	for c := range 4 {
		vals := make([]int, n)
		for i := range vals {
			vals[i] = rng.Intn(1_000_000)
			if c == 2 {
				vals[i] %= 32000 // smallint
			}
		}
		switch rng.Intn(3) {
		case 0:
			slices.Sort(vals)
		case 1:
			slices.Sort(vals)
			slices.Reverse(vals)
		}
		nulls := 5 // one in
		if c == 2 && n > 100 {
			nulls = 1 // a few keys of a small range in a large batch
		}
		for i, v := range vals {
			switch {
			case c == 0:
				rows[i][c] = v
			case rng.Intn(nulls) == 0 && (nulls > 1 || rng.Intn(50) != 0):
				rows[i][c] = nil
			case c == 1:
				rows[i][c] = v - 500_000
			case c == 2:
				rows[i][c] = v
			default:
				rows[i][c] = v * 1_000_000
			}
		}
		if rng.Intn(3) != 0 {
			continue
		}
		at := []int{0, n / 2, n - 1}[rng.Intn(3)]
		if other := rng.Intn(n); other != at && rng.Intn(2) == 0 {
			rows[at][c] = rows[other][c]
			continue
		}
		own := rng.Intn(2) == 0
		for _, r := range live {
			if r.vals[c] != nil && r.own == own {
				rows[at][c] = r.vals[c]
				break
			}
		}
	}
	return rows
}

// modelDuplicate returns the constraint (by column) and row of the
// duplicate key inserting rows into live reports, or -1, -1. The first
// constraint with a repeated key reports it; the batch's own rows are
// checked first (against each other and the transaction's rows), then
// against the committed rows: the first row whose key an earlier row of
// the batch or the transaction's has, else the first whose key a
// committed row has.
func modelDuplicate(live map[int]liveRow, rows [][]any) (int, int) {
	for c := range 4 {
		own, committed := map[any]bool{}, map[any]bool{}
		for _, r := range live {
			if r.vals[c] != nil {
				if r.own {
					own[r.vals[c]] = true
				} else {
					committed[r.vals[c]] = true
				}
			}
		}
		for i, r := range rows {
			if r[c] == nil {
				continue
			}
			if own[r[c]] {
				return c, i
			}
			own[r[c]] = true
		}
		for i, r := range rows {
			if r[c] != nil && committed[r[c]] {
				return c, i
			}
		}
	}
	return -1, -1
}

// deleteLive deletes a random live row, committed or tx's own.
func deleteLive(t *testing.T, tx *Tx, def *catalog.TableDef, live map[int]liveRow, rng *rand.Rand) {
	t.Helper()
	ids := slices.Sorted(maps.Keys(live))
	id := ids[rng.Intn(len(ids))]
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[0] == id {
			if err := tx.Delete(def.ID, []int64{r[len(r)-1].(int64)}); err != nil {
				t.Fatal(err)
			}
			delete(live, id)
			return
		}
	}
	t.Fatalf("row %d not found", id)
}

// intLocks holds what a set of keys would, whatever runs and single keys
// it is given, including runs that overlap, touch or swallow others, and
// keys at the ends of int64, and removeRun takes runs of keys out.
func TestIntLocksAreASet(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, base := range []int64{0, math.MinInt64, math.MaxInt64 - 200} {
		l, want := &intLocks{}, map[int64]bool{}
		// upTo is base+a+d, kept below base+200 (no overflow).
		upTo := func(a, d int64) int64 { return base + min(a+d, 199) }
		key := func() int64 { return base + rng.Int63n(200) }
		for step := range 3000 {
			n := 0
			if rng.Intn(5) == 0 {
				lo := key()
				hi := upTo(lo-base, rng.Int63n(20))
				for v := lo; ; v++ {
					if want[v] {
						n++
					}
					delete(want, v)
					if v == hi {
						break
					}
				}
				if got := l.removeRun(lo, hi); got != n {
					t.Fatalf("step %d: removeRun(%d, %d) removed %d, want %d", step, lo, hi, got, n)
				}
			} else if rng.Intn(3) == 0 {
				lo := key()
				hi := upTo(lo-base, rng.Int63n(20))
				for v := lo; ; v++ {
					if !want[v] {
						n++
					}
					want[v] = true
					if v == hi {
						break
					}
				}
				if got := l.addRun(lo, hi); got != n {
					t.Fatalf("step %d: addRun(%d, %d) added %d, want %d", step, lo, hi, got, n)
				}
			} else {
				v := key()
				if !want[v] {
					n++
				}
				want[v] = true
				if got := l.add(v); got != n {
					t.Fatalf("step %d: add(%d) added %d, want %d", step, v, got, n)
				}
			}
			if l.n != len(want) {
				t.Fatalf("step %d: %d keys, want %d", step, l.n, len(want))
			}
			for k := range 4 {
				v := key()
				if l.has(v) != want[v] {
					t.Fatalf("step %d: has(%d) = %v", step, v, !want[v])
				}
				lo := v
				hi := upTo(lo-base, int64(k*7))
				got, ok := l.within(lo, hi)
				wantOK := false
				for x := lo; ; x++ {
					wantOK = wantOK || want[x]
					if x == hi {
						break
					}
				}
				if ok != wantOK || ok && (!want[got] || got < lo || got > hi) {
					t.Fatalf("step %d: within(%d, %d) = %d, %v", step, lo, hi, got, ok)
				}
			}
			for i := 1; i < len(l.runs); i++ {
				if l.runs[i].lo <= l.runs[i-1].hi+1 {
					t.Fatalf("step %d: runs %v overlap or touch", step, l.runs)
				}
			}
		}
	}
}

// A transaction waiting for a key holds the keys of its batch before it,
// as when each key is locked in turn: a transaction that then wants one
// of those waits for it, and closes a cycle (40P01).
func TestIntKeyLocksInOrder(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	a, b := db.Begin(), db.Begin()
	defer a.Rollback()
	defer b.Rollback()
	if err := a.Insert(def.ID, makeRecord(t, def, []any{5, "a"})); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- b.Insert(def.ID, makeRecord(t, def, []any{3, "b"}, []any{4, "b"}, []any{5, "b"}, []any{6, "b"}))
	}()
	time.Sleep(50 * time.Millisecond)
	if err := a.Insert(def.ID, makeRecord(t, def, []any{4, "a"})); sqlstate(err) != "40P01" {
		t.Fatalf("a wants a key b holds while b waits for a: %v, want 40P01", err)
	}
	a.Rollback()
	if err := <-done; err != nil {
		t.Fatalf("b after a rolled back: %v", err)
	}
	mustCommit(t, b)
	expectRows(t, db, def.ID, "[[3 b] [4 b] [5 b] [6 b]]")
}

// A key of two integer columns is not checked as the first column's.
func TestTwoIntegerKey(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := createTable(t, db, "ab", []catalog.ColumnDef{col("a", types.Int8T), col("b", types.Int4T)}, 0, 1)
	tx := db.Begin()
	defer tx.Rollback()
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, 1}, []any{1, 2}, []any{2, 1})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{3, 1}, []any{2, 2}, []any{3, 1})); sqlstate(err) != "23505" ||
		pgerr.From(err).Detail != "Key (a, b)=(3, 1) already exists." {
		t.Fatalf("repeated in the batch: %v", err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{3, 1}, []any{1, 2})); sqlstate(err) != "23505" ||
		pgerr.From(err).Detail != "Key (a, b)=(1, 2) already exists." {
		t.Fatalf("repeated of an earlier insert: %v", err)
	}
	mustCommit(t, tx)
}
