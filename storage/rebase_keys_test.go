package storage

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// keyRow is a row of the table of TestRebaseKeysStayUnique: a bigint
// primary key, a unique text column, a value.
type keyRow struct {
	id   int
	name string
	v    string
}

// keyTx is a transaction of TestRebaseKeysStayUnique with the rows it
// deleted (as it saw them) and inserted.
type keyTx struct {
	tx        *Tx
	del, ins  []keyRow
	committed error
}

// TestRebaseKeysStayUnique: transactions on two servers of one bucket
// insert, delete and update rows of a table with an integer primary key
// and a unique text column — values, either key, a key deleted by one
// server and inserted again by the other — the second server's
// transactions committing at once after the first's, so that their group
// commits lose the log and are rebased; the leader flushes, compacts and
// checkpoints meanwhile, the other server adopts its checkpoints. After
// each round both servers hold exactly the rows of the commits that
// succeeded (a model: no key twice, no deleted row back), and each
// server's unique indexes map every key of a live row to that row and no
// key to a row that is not deleted and not live: what a rebuild from its
// state gives.
func TestRebaseKeysStayUnique(t *testing.T) {
	store := fakeS3(t)
	opts := Options{Store: store, FlushRows: 16, WALCheckpointBytes: 8 << 10}
	a := openDB(t, t.TempDir(), opts)
	defer a.crash()
	b := openDB(t, t.TempDir(), opts)
	defer b.crash()
	def := createTable(t, a, "k", []catalog.ColumnDef{col("id", types.Int8T), col("name", types.TextT), col("v", types.TextT)}, 0)
	def.Uniques = []catalog.UniqueDef{{Name: "k_name_key", Columns: []int{def.Columns[1].ID}}}
	alter := a.Begin()
	if err := alter.AlterTable(def); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, alter)

	const keys = 24
	rng := rand.New(rand.NewPCG(14, 1))
	model := map[int]keyRow{}
	version := 0
	newV := func() string { version++; return fmt.Sprintf("v%d", version) }
	tx := a.Begin()
	for id := 0; id < keys/2; id++ {
		r := keyRow{id, fmt.Sprintf("n%d", id), newV()}
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{r.id, r.name, r.v})); err != nil {
			t.Fatal(err)
		}
		model[id] = r
	}
	mustCommit(t, tx)

	lost, outcomes := 0, map[string]int{}
	for round := 0; round < 60; round++ {
		for _, db := range []*DB{a, b} {
			if err := db.CatchUp(); err != nil {
				t.Fatal(err)
			}
		}
		first, second := a, b
		if rng.IntN(2) == 0 {
			first, second = b, a
		}
		var groups [2][]*keyTx
		for g, db := range []*DB{first, second} {
			// The transactions of one server touch different keys: they
			// would wait for each other's key and row locks.
			claimed := map[string]bool{}
			for range 1 + rng.IntN(3) {
				groups[g] = append(groups[g], randomKeyTx(t, rng, db, def, model, claimed, keys, newV))
			}
		}
		losses := lostRaces(second)
		for _, g := range groups {
			var wg sync.WaitGroup
			for _, kt := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					kt.committed = kt.tx.Commit()
				}()
			}
			wg.Wait()
		}
		lost += int(lostRaces(second) - losses)
		for _, g := range groups {
			for _, kt := range g {
				code := sqlstate(kt.committed)
				outcomes[code]++
				switch code {
				case "":
				case "23505", "40001":
					continue
				default:
					t.Fatalf("round %d: commit: %v", round, kt.committed)
				}
				for _, r := range kt.del {
					if model[r.id] != r {
						t.Fatalf("round %d: a commit deleted %v, which the model holds as %v", round, r, model[r.id])
					}
					delete(model, r.id)
				}
				for _, r := range kt.ins {
					if o, ok := model[r.id]; ok {
						t.Fatalf("round %d: a commit inserted %v beside %v", round, r, o)
					}
					for _, o := range model {
						if o.name == r.name {
							t.Fatalf("round %d: a commit inserted %v beside %v", round, r, o)
						}
					}
					model[r.id] = r
				}
			}
		}
		want := make([][]any, 0, len(model))
		for _, id := range slices.Sorted(maps.Keys(model)) {
			r := model[id]
			want = append(want, []any{r.id, r.name, r.v})
		}
		for _, db := range []*DB{a, b} {
			if err := db.CatchUp(); err != nil {
				t.Fatal(err)
			}
			tx := db.Begin()
			got := scanRows(t, tx, def.ID, false)
			tx.Rollback()
			slices.SortFunc(got, func(x, y []any) int { return x[0].(int) - y[0].(int) })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d: rows %v, want %v", round, got, want)
			}
			checkKeyIndexes(t, db, def.ID)
		}
	}
	t.Logf("lost races %d, outcomes %v", lost, outcomes)
	if lost == 0 || outcomes[""] == 0 || outcomes["23505"] == 0 || outcomes["40001"] == 0 {
		t.Fatalf("lost races %d, outcomes %v: the rounds did not race", lost, outcomes)
	}
}

// randomKeyTx begins a transaction on db and makes one to three random
// changes to the rows of model (which it sees), none to a key or row in
// claimed: an insert of a new row, a delete, or an update of the value,
// the id or the name (a delete and an insert).
func randomKeyTx(t *testing.T, rng *rand.Rand, db *DB, def *catalog.TableDef, model map[int]keyRow,
	claimed map[string]bool, keys int, newV func() string) *keyTx {
	t.Helper()
	kt := &keyTx{tx: db.Begin()}
	rowIDs := map[int]int64{}
	for _, r := range scanRows(t, kt.tx, def.ID, true) {
		rowIDs[r[0].(int)] = r[3].(int64)
	}
	names := map[string]bool{}
	for _, r := range model {
		names[r.name] = true
	}
	// free returns an id and a name that no row has and no transaction
	// of db claimed, or false.
	freeID := func() (int, bool) {
		for range 8 {
			id := rng.IntN(keys)
			if _, ok := model[id]; !ok && !claimed[fmt.Sprint("i", id)] {
				claimed[fmt.Sprint("i", id)] = true
				return id, true
			}
		}
		return 0, false
	}
	freeName := func() (string, bool) {
		for range 8 {
			n := fmt.Sprintf("n%d", rng.IntN(keys))
			if !names[n] && !claimed["n"+n] {
				claimed["n"+n] = true
				return n, true
			}
		}
		return "", false
	}
	// existing returns a row of model that no transaction of db claimed.
	existing := func() (keyRow, bool) {
		ids := slices.Sorted(maps.Keys(model))
		for range 8 {
			if len(ids) == 0 {
				break
			}
			r := model[ids[rng.IntN(len(ids))]]
			if !claimed[fmt.Sprint("i", r.id)] && !claimed["n"+r.name] {
				claimed[fmt.Sprint("i", r.id)], claimed["n"+r.name] = true, true
				return r, true
			}
		}
		return keyRow{}, false
	}
	insert := func(r keyRow) {
		if err := kt.tx.Insert(def.ID, makeRecord(t, def, []any{r.id, r.name, r.v})); err != nil {
			t.Fatalf("insert %v: %v", r, err)
		}
		kt.ins = append(kt.ins, r)
	}
	for range 1 + rng.IntN(3) {
		op := rng.IntN(5)
		if op == 0 {
			id, ok := freeID()
			name, ok2 := freeName()
			if ok && ok2 {
				insert(keyRow{id, name, newV()})
			}
			continue
		}
		r, ok := existing()
		if !ok {
			continue
		}
		if err := kt.tx.Delete(def.ID, []int64{rowIDs[r.id]}); err != nil {
			t.Fatalf("delete %v: %v", r, err)
		}
		kt.del = append(kt.del, r)
		switch op {
		case 2: // the value
			insert(keyRow{r.id, r.name, newV()})
		case 3: // the id
			if id, ok := freeID(); ok {
				insert(keyRow{id, r.name, newV()})
			}
		case 4: // the name
			if name, ok := freeName(); ok {
				insert(keyRow{r.id, name, newV()})
			}
		}
	}
	return kt
}

// keyTaken checks on both servers, caught up, that inserting key k of
// table def (kvTable) fails with 23505, and that their indexes are right.
func keyTaken(t *testing.T, a, b *DB, def *catalog.TableDef, k int) {
	t.Helper()
	for _, db := range []*DB{a, b} {
		if err := db.CatchUp(); err != nil {
			t.Fatal(err)
		}
		tx := db.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{k, "again"})); sqlstate(err) != "23505" {
			t.Fatalf("inserting key %d again: %v, want 23505", k, err)
		}
		tx.Rollback()
		checkKeyIndexes(t, db, def.ID)
	}
}

// checkKeyIndexes fails the test unless table id on db has an index for
// each of its unique rules and no other, and each maps every key of a
// live row of the head to that row, and no key to a row that is not
// deleted and not live.
func checkKeyIndexes(t *testing.T, db *DB, id uint64) {
	t.Helper()
	db.mu.Lock()
	defer db.mu.Unlock()
	db.idxMu.RLock()
	defer db.idxMu.RUnlock()
	head := db.head.Load()
	def, rt := head.cat.Tables[id], db.lookupRT(id)
	deleted := head.tables[id].deleted
	cons := constraintsOf(head.cat, def)
	for sig := range rt.uniq {
		if !slices.ContainsFunc(cons, func(c constraint) bool { return c.sig() == sig }) {
			t.Fatalf("an index over columns %s, which no rule of the table has", sig)
		}
	}
	for _, con := range cons {
		want, err := db.buildIndex(head, id, def, con, nil)
		if err != nil {
			t.Fatal(err)
		}
		ix := rt.uniq[con.sig()]
		if ix == nil {
			t.Fatalf("no index %s", con.name)
		}
		for k, r := range ix.m.ints {
			if w, ok := want.m.ints[k]; !deleted.Contains(uint64(r)) && (!ok || w != r) {
				t.Fatalf("%s maps %d to row %d, which is neither deleted nor live with that key (live: %d %v)", con.name, k, r, w, ok)
			}
		}
		for k, r := range ix.m.strs {
			if w, ok := want.m.strs[k]; !deleted.Contains(uint64(r)) && (!ok || w != r) {
				t.Fatalf("%s maps %q to row %d, which is neither deleted nor live with that key (live: %d %v)", con.name, k, r, w, ok)
			}
		}
		for k, r := range want.m.ints {
			if got, ok := ix.m.ints[k]; !ok || got != r {
				t.Fatalf("%s maps %d to row %d (%v), the live row is %d", con.name, k, got, ok, r)
			}
		}
		for k, r := range want.m.strs {
			if got, ok := ix.m.strs[k]; !ok || got != r {
				t.Fatalf("%s maps %q to row %d (%v), the live row is %d", con.name, k, got, ok, r)
			}
		}
	}
}

// TestRebaseKeysTakenBack: a commit that lost the log and then failed
// leaves the keys as they were: a key it updated still names the old
// row (inserting it again is 23505 on both servers), a key it inserted
// is free again; a key the other server deleted and this one inserted
// again, rebased, is taken by the new row.
func TestRebaseKeysTakenBack(t *testing.T) {
	a, b, def, _ := twoServers(t, 4)
	tx := b.Begin()
	updateRow(t, tx, def, 3, "b") // key 3: a new row, the old one deleted
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{7, "b"}, []any{9, "b"})); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, []any{9, "a"})
	lost := lostRaces(b)
	if err := tx.Commit(); sqlstate(err) != "23505" {
		t.Fatalf("a commit of key 9, which the other server inserted: %v, want 23505", err)
	}
	if lostRaces(b) == lost {
		t.Fatal("b's commit did not lose the log to a's")
	}
	keyTaken(t, a, b, def, 3)
	insert(t, b, def, []any{7, "b"})

	// a deletes key 1; b inserts it again, losing the log to a's next
	// commit: rebased, the key is the new row's.
	tx = a.Begin()
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 1)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	tx = b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "b"})); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, []any{10, "a"})
	lost = lostRaces(b)
	mustCommit(t, tx)
	if lostRaces(b) == lost {
		t.Fatal("b's commit did not lose the log to a's")
	}
	keyTaken(t, a, b, def, 1)
	sameRows(t, a, b, def.ID, "[[0 v] [1 b] [10 a] [2 v] [3 v] [7 b] [9 a]]")

	// Commits that empty the index (a truncate) or add one (a unique
	// constraint), losing the log and failing: the indexes are rebuilt.
	tx = b.Begin()
	if err := tx.Truncate(def.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{2, "b"})); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, []any{11, "a"})
	lost = lostRaces(b)
	if err := tx.Commit(); sqlstate(err) != "40001" || lostRaces(b) == lost {
		t.Fatalf("a truncate of a table the other server inserted into: %v (lost races %d, %d), want 40001 after a lost race", err, lost, lostRaces(b))
	}
	keyTaken(t, a, b, def, 2)
	tx = b.Begin()
	withV := def.Clone()
	withV.Uniques = []catalog.UniqueDef{{Name: "t_v_id_key", Columns: []int{def.Columns[1].ID, def.Columns[0].ID}}}
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 0), rowID(t, tx, def, 2), rowID(t, tx, def, 3)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.AlterTable(withV); err != nil {
		t.Fatal(err)
	}
	alter := a.Begin() // a schema change of the same table: b's is not rebased onto it
	withIDV := def.Clone()
	withIDV.Uniques = []catalog.UniqueDef{{Name: "t_id_v_key", Columns: []int{def.Columns[0].ID, def.Columns[1].ID}}}
	if err := alter.AlterTable(withIDV); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, alter)
	lost = lostRaces(b)
	if err := tx.Commit(); sqlstate(err) != "40001" || lostRaces(b) == lost {
		t.Fatalf("a schema change that lost the log to one of the same table: %v (lost races %d, %d), want 40001 after a lost race", err, lost, lostRaces(b))
	}
	keyTaken(t, a, b, def, 2)
	sameRows(t, a, b, def.ID, "[[0 v] [1 b] [10 a] [11 a] [2 v] [3 v] [7 b] [9 a]]")
}
