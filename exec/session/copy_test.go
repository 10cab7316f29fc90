package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// copySession opens a session on a fresh database.
func copySession(t testing.TB) (*Session, *storage.DB) {
	t.Helper()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewEngine(db, Options{}).NewSession("tester", "testdb"), db
}

// run runs one SQL statement that returns no rows and no COPY data.
func run(t testing.TB, s *Session, text string) string {
	t.Helper()
	p := bindOne(t, s, text)
	tag, _, err := s.Execute(context.Background(), p, 0, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return tag.String()
}

func bindOne(t testing.TB, s *Session, text string) *Portal {
	t.Helper()
	stmts, err := s.Prepare(text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	p, err := s.Bind(stmts[0], nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return p
}

// copyOut runs a COPY TO STDOUT and returns its data.
func copyOut(t *testing.T, s *Session, text string) string {
	t.Helper()
	p := bindOne(t, s, text)
	if info := p.Copy(); info.Dir != CopyOut {
		t.Fatalf("%s: %+v", text, info)
	}
	var b strings.Builder
	if _, err := s.CopyTo(context.Background(), p, func(line []byte) error { b.Write(line); return nil }); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return b.String()
}

// TestSessionCopy runs COPY FROM and TO through the session API, which
// knows nothing of the protocol: the data is an io.Reader and a callback.
func TestSessionCopy(t *testing.T) {
	s, _ := copySession(t)
	ctx := context.Background()
	run(t, s, `CREATE TABLE t (id serial PRIMARY KEY, v text, n int DEFAULT 5 CHECK (n > 0))`)
	p := bindOne(t, s, `COPY t (v) FROM STDIN (FORMAT csv) WHERE v <> 'skip'`)
	if info := p.Copy(); info.Dir != CopyIn || info.Columns != 1 || info.Binary {
		t.Fatalf("COPY FROM info: %+v", info)
	}
	tag, err := s.CopyFrom(ctx, p, strings.NewReader("a\nskip\n\"b,c\"\n"))
	if err != nil || tag != (Tag{Command: "COPY", Rows: 2, HasRows: true}) {
		t.Fatalf("CopyFrom: %v, %v", tag, err)
	}
	if got := copyOut(t, s, `COPY t TO STDOUT (FORMAT csv, HEADER)`); got != "id,v,n\n1,a,5\n3,\"b,c\",5\n" {
		t.Errorf("COPY TO: %q", got)
	}
	// A failed COPY leaves nothing behind; its error has a context.
	_, err = s.CopyFrom(ctx, bindOne(t, s, `COPY t (v, n) FROM STDIN`), strings.NewReader("x\t1\ny\t0\n"))
	if pe := pgerr.From(err); pe.Code != "23514" {
		t.Fatalf("CHECK: %v", err)
	}
	_, err = s.CopyFrom(ctx, bindOne(t, s, `COPY t (v, n) FROM STDIN`), strings.NewReader("x\t1\ny\tz\n"))
	if pe := pgerr.From(err); pe.Code != "22P02" || pe.Where != `COPY t, line 2, column n: "z"` {
		t.Fatalf("bad integer: %+v", pe)
	}
	if got := copyOut(t, s, `COPY (SELECT count(*) FROM t) TO STDOUT`); got != "2\n" {
		t.Errorf("rows after the errors: %q", got)
	}
	// A portal runs with the method of its kind only.
	if _, _, err := s.Execute(ctx, bindOne(t, s, `COPY t TO STDOUT`), 0, nil); pgerr.From(err).Code != "XX000" {
		t.Errorf("Execute of a COPY: %v", err)
	}
	if _, err := s.CopyTo(ctx, bindOne(t, s, `COPY t FROM STDIN`), nil); pgerr.From(err).Code != "XX000" {
		t.Errorf("CopyTo of COPY FROM: %v", err)
	}
}

// TestCopyReplay checks that a COPY that runs again (a statement retried
// after a concurrent update) inserts every row of the data, which it
// cannot read a second time: the batches read are replayed. The data
// spans several batches.
func TestCopyReplay(t *testing.T) {
	s, db := copySession(t)
	ctx := context.Background()
	run(t, s, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	const rows = 20000
	var data strings.Builder
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&data, "%d,v%d\n", i, i)
	}
	c := bindOne(t, s, `COPY t FROM STDIN (FORMAT csv)`).bound.(*sql.Copy)
	in := exec.NewCopyIn(c, strings.NewReader(data.String()))
	defer in.Release()
	// The first attempt fails after the data was read, as a conflict at
	// commit would.
	tx := db.Begin()
	if n, err := in.Run(ctx, s.runtime(tx, nil)); err != nil || n != rows {
		t.Fatalf("first attempt: %d rows, %v", n, err)
	}
	tx.Rollback()
	tx = db.Begin()
	if n, err := in.Run(ctx, s.runtime(tx, nil)); err != nil || n != rows {
		t.Fatalf("second attempt: %d rows, %v", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := copyOut(t, s, `COPY (SELECT count(*), sum(id), max(v) FROM t) TO STDOUT`); got != "20000\t200010000\tv9999\n" {
		t.Errorf("rows: %q", got)
	}
}

// TestCopyKeepsBoundedData: a COPY keeps only the first 64 MiB of what
// it read for another attempt, so a load of any size streams through
// bounded memory; one that read more inserts every row but cannot run
// again (its conflict goes to the client instead).
func TestCopyKeepsBoundedData(t *testing.T) {
	s, db := copySession(t)
	ctx := context.Background()
	run(t, s, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	const rows = 20000 // of 4 KiB: 80 MiB
	pad := strings.Repeat("x", 4096)
	var data strings.Builder
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&data, "%d,%s\n", i, pad)
	}
	c := bindOne(t, s, `COPY t FROM STDIN (FORMAT csv)`).bound.(*sql.Copy)
	in := exec.NewCopyIn(c, strings.NewReader(data.String()))
	defer in.Release()
	tx := db.Begin()
	if n, err := in.Run(ctx, s.runtime(tx, nil)); err != nil || n != rows {
		t.Fatalf("first attempt: %d rows, %v", n, err)
	}
	if in.Replayable() {
		t.Fatal("a COPY of 80 MiB kept all of it to run again")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = db.Begin()
	defer tx.Rollback()
	if n, err := in.Run(ctx, s.runtime(tx, nil)); err == nil || n != 0 {
		t.Fatalf("second attempt without the data: %d rows, %v", n, err)
	}
	if got := copyOut(t, s, `COPY (SELECT count(*), sum(id), sum(length(v)) FROM t) TO STDOUT`); got != "20000\t200010000\t81920000\n" {
		t.Errorf("rows: %q", got)
	}
}

// TestCopyFromFormats loads the same rows (bigint, integer, text, real[]
// with NULLs, an empty array, embeddings of 1 and 4096 dimensions and
// values the input functions read in their own way) in text, CSV and
// binary through the parallel parser, over several chunks, and checks
// what reads back; a bad row at the start, the middle or the end fails
// the whole COPY with its line number and leaves nothing behind.
func TestCopyFromFormats(t *testing.T) {
	s, _ := copySession(t)
	ctx := context.Background()
	run(t, s, `CREATE TABLE m (id bigint PRIMARY KEY, n int, task text, emb real[])`)
	const rows = 5000
	embs := func(i int) string {
		switch i % 7 {
		case 0:
			return `\N`
		case 1:
			return "{}"
		case 2:
			return "{0.5}"
		case 3:
			return "{" + strings.TrimSuffix(strings.Repeat("-0.00125,", 4096), ",") + "}"
		case 4:
			return "{ 1 , 2.5 ,NaN, -0, 1e-45}" // spaces, NaN, negative zero, a denormal
		}
		return fmt.Sprintf("{%d.125,-0.049514253,3.4028235e+38}", i)
	}
	var text strings.Builder
	for i := 1; i <= rows; i++ {
		task := fmt.Sprintf("task %d\\twith a tab", i)
		if i%11 == 0 {
			task = `\N`
		}
		fmt.Fprintf(&text, "%d\t%d\t%s\t%s\n", i, -i, task, embs(i))
	}
	if _, err := s.CopyFrom(ctx, bindOne(t, s, `COPY m FROM STDIN`), strings.NewReader(text.String())); err != nil {
		t.Fatal(err)
	}
	want := copyOut(t, s, `COPY m TO STDOUT`)
	if exp := strings.ReplaceAll(text.String(), "{ 1 , 2.5 ,NaN, -0, 1e-45}", "{1,2.5,NaN,-0,1e-45}"); want != exp {
		g, w := strings.Split(want, "\n"), strings.Split(exp, "\n")
		for i := range g {
			if g[i] != w[i] {
				t.Fatalf("text round trip differs at line %d:\n%.300s\n%.300s", i+1, g[i], w[i])
			}
		}
	}
	for _, format := range []string{"csv", "binary"} {
		var data strings.Builder
		if _, err := s.CopyTo(ctx, bindOne(t, s, `COPY m TO STDOUT (FORMAT `+format+`)`), func(line []byte) error {
			data.Write(line)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		run(t, s, `TRUNCATE m`)
		tag, err := s.CopyFrom(ctx, bindOne(t, s, `COPY m FROM STDIN (FORMAT `+format+`)`), strings.NewReader(data.String()))
		if err != nil || tag.Rows != rows {
			t.Fatalf("%s: %v, %v", format, tag, err)
		}
		if got := copyOut(t, s, `COPY m TO STDOUT`); got != want {
			t.Fatalf("%s: the rows read back differ", format)
		}
	}
	for _, bad := range []int{1, rows / 2, rows} {
		run(t, s, `TRUNCATE m`)
		lines := strings.SplitAfter(text.String(), "\n")
		lines[bad-1] = fmt.Sprintf("%d\t1\tx\t{1,zz}\n", bad)
		_, err := s.CopyFrom(ctx, bindOne(t, s, `COPY m FROM STDIN`), strings.NewReader(strings.Join(lines, "")))
		pe := pgerr.From(err)
		if pe.Code != "22P02" || !strings.HasPrefix(pe.Where, fmt.Sprintf("COPY m, line %d, column emb:", bad)) {
			t.Errorf("bad row %d: %+v", bad, pe)
		}
		if got := copyOut(t, s, `COPY (SELECT count(*) FROM m) TO STDOUT`); got != "0\n" {
			t.Errorf("bad row %d: %s rows left", bad, got)
		}
	}
}
