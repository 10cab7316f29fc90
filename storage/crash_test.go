package storage

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
)

// kvRows builds rows (id, "v<id>") for ids [from, to).
func kvRows(from, to int) [][]any {
	var rows [][]any
	for i := from; i < to; i++ {
		rows = append(rows, []any{i, "v"})
	}
	return rows
}

func countKV(t *testing.T, db *DB, def *catalog.TableDef) int {
	t.Helper()
	tx := db.Begin()
	defer tx.Rollback()
	return len(scanRows(t, tx, def.ID, false))
}

// TestFlushKeepsCommitsWhole: a commit whose rows span two tail batches,
// the second merged with a later commit that is not durable yet, must not
// be flushed by halves — the manifest's LSN cannot cover half a WAL
// record, and recovery would replay the flushed half again (a primary key
// then appears twice).
func TestFlushKeepsCommitsWhole(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	tx := db.Begin()
	for _, rows := range [][][]any{kvRows(0, 800), kvRows(800, 1600)} {
		if err := tx.Insert(def.ID, makeRecord(t, def, rows...)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	// The next commit merges into the second batch and waits for its
	// fsync, which the test holds back.
	db.syncMu.Lock()
	done := make(chan error, 1)
	go func() {
		tx := db.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{5000, "late"})); err != nil {
			done <- err
			return
		}
		done <- tx.Commit()
	}()
	for {
		db.mu.Lock()
		n := db.head.Load().tables[def.ID].tailRows
		db.mu.Unlock()
		if n == 1601 {
			break
		}
		sleepMS(1)
	}
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
	image := filepath.Join(t.TempDir(), "image")
	copyDir(t, dir, image)
	db.syncMu.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(image, "LOCK"))
	db2 := openDB(t, image, Options{})
	defer db2.Close()
	if n := countKV(t, db2, def); n != 1600 && n != 1601 {
		t.Fatalf("%d rows after recovery, want 1600 or 1601", n)
	}
}

// TestCheckpointKeepsMergedTail: a checkpoint rotates the WAL and deletes
// the old files once every table's manifest covers them; a commit merged
// into a tail batch that holds records of the old files must not leave
// those records covered by neither.
func TestCheckpointKeepsMergedTail(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	for i := 0; i < 50; i++ {
		insert(t, db, def, []any{i, "v"})
	}
	stop := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		for i := 50; ; i++ {
			select {
			case <-stop:
				errc <- nil
				return
			default:
			}
			tx := db.Begin()
			if err := tx.Insert(def.ID, makeRecord(t, def, []any{i, "v"})); err != nil {
				errc <- err
				return
			}
			if err := tx.Commit(); err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := 0; i < 20; i++ {
		if err := db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		image := filepath.Join(t.TempDir(), "image")
		unfreeze := db.freeze()
		copyDir(t, dir, image)
		unfreeze()
		os.Remove(filepath.Join(image, "LOCK"))
		db2 := openDB(t, image, Options{})
		tx := db2.Begin()
		rows := scanRows(t, tx, def.ID, false)
		tx.Rollback()
		db2.Close()
		ids := map[int]bool{}
		for _, r := range rows {
			ids[r[0].(int)] = true
		}
		for k := 0; k < 50; k++ {
			if !ids[k] {
				t.Fatalf("checkpoint %d: row %d lost", i, k)
			}
		}
		for k := 50; k < len(ids); k++ {
			if !ids[k] {
				t.Fatalf("checkpoint %d: row %d lost (rows are committed in order)", i, k)
			}
		}
	}
	close(stop)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func walFrames(t *testing.T, path string) []walRec {
	t.Helper()
	var out []walRec
	off := int64(0)
	_, _, err := readWALFile(path, func(p []byte) error {
		out = append(out, walRec{off: off, size: int64(walHeaderSize + len(p))})
		off += int64(walHeaderSize + len(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type walRec struct{ off, size int64 }

func lastWAL(t *testing.T, dir string) string {
	files, err := listWALFiles(filepath.Join(dir, "wal"))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(files) - 1; i >= 0; i-- {
		if len(walFrames(t, files[i].path)) > 0 {
			return files[i].path
		}
	}
	t.Fatal("no wal records")
	return ""
}

func flipByte(t *testing.T, path string, off int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWALDamage: a torn or corrupt last record is dropped (it was never
// acknowledged); damage followed by intact records, in the same file or a
// later one, stops Open with an error naming the file.
func TestWALDamage(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	for i := 0; i < 10; i++ {
		insert(t, db, def, []any{i, "v"})
	}
	image := crashImage(t, db)
	wal := lastWAL(t, image)
	frames := walFrames(t, wal)
	last := frames[len(frames)-1]

	open := func(dir string) (*DB, error) { return Open(dir, Options{Logger: quietLogger()}) }
	copyOf := func(src string) string {
		dst := filepath.Join(t.TempDir(), "copy")
		copyDir(t, src, dst)
		return dst
	}
	rel := func(base, path, dir string) string {
		r, _ := filepath.Rel(base, path)
		return filepath.Join(dir, r)
	}

	// Torn tail: dropped, the other nine rows remain.
	for _, damage := range []func(string){
		func(f string) { os.Truncate(f, last.off+last.size-3) },
		func(f string) { flipByte(t, f, last.off+last.size-3) },
		func(f string) { os.Truncate(f, last.off+4) },
	} {
		c := copyOf(image)
		damage(rel(image, wal, c))
		db2, err := open(c)
		if err != nil {
			t.Fatalf("torn tail: %v", err)
		}
		if n := countKV(t, db2, def); n != 9 {
			t.Errorf("torn tail: %d rows, want 9", n)
		}
		db2.Close()
	}
	// Damage before intact records: refused, naming the file.
	for _, off := range []int64{frames[5].off + frames[5].size/2, frames[5].off + 1, frames[5].off + 5} {
		c := copyOf(image)
		f := rel(image, wal, c)
		flipByte(t, f, off)
		if _, err := open(c); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("damage at offset %d: Open = %v, want an error naming %s", off, err, f)
		}
	}
	// Damage at the end of a file followed by a later file with records.
	c := copyOf(image)
	db3 := openDB(t, c, Options{})
	insert(t, db3, def, []any{100, "later"})
	image2 := crashImage(t, db3)
	db3.Close()
	files, _ := listWALFiles(filepath.Join(image2, "wal"))
	sort.Slice(files, func(i, j int) bool { return files[i].seq < files[j].seq })
	first := files[0].path
	fr := walFrames(t, first)
	flipByte(t, first, fr[len(fr)-1].off+fr[len(fr)-1].size-2)
	if _, err := open(image2); err == nil || !strings.Contains(err.Error(), first) {
		t.Errorf("damage before a later wal file: Open = %v, want an error naming %s", err, first)
	}
}
