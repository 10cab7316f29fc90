package sql

import "testing"

// TestPLReadsTables checks which trigger bodies may read a table (their
// rows are then written one at a time) and which only compute with NEW,
// variables and built-in functions (run on a batch).
func TestPLReadsTables(t *testing.T) {
	for _, c := range []struct {
		body  string
		reads bool
	}{
		{`BEGIN NEW.updated_at := now(); RETURN NEW; END`, false},
		{`DECLARE n int := 0; BEGIN IF NEW.name IS NULL THEN RAISE EXCEPTION 'no name %', NEW.id; END IF;
		  FOR i IN 1..3 LOOP n := n + i; END LOOP; NEW.name := upper(NEW.name) || n; RETURN NEW; END`, false},
		{`BEGIN SELECT coalesce(max(n), 0) + 1 INTO NEW.n FROM steps WHERE grp = NEW.grp; RETURN NEW; END`, true},
		{`BEGIN NEW.n := (SELECT count(*) FROM steps); RETURN NEW; END`, true},
		{`BEGIN IF EXISTS (SELECT 1 FROM steps) THEN RETURN NULL; END IF; RETURN NEW; END`, true},
		{`BEGIN NEW.n := next_step(NEW.grp); RETURN NEW; END`, true}, // a user function may read
		{`BEGIN PERFORM pg_sleep(0); RETURN NEW; END`, true},
		{`BEGIN EXECUTE 'SELECT 1'; RETURN NEW; END`, true},
		{`DECLARE r record; BEGIN FOR r IN SELECT 1 AS x LOOP NULL; END LOOP; RETURN NEW; END`, true},
		{`DECLARE c int := (SELECT count(*) FROM steps); BEGIN RETURN NEW; END`, true},
	} {
		b := &Binder{Catalog: testCatalog(), SearchPath: []string{"public"}}
		fn, err := b.CompileTrigger(c.body)
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if got := fn.ReadsTables(); got != c.reads {
			t.Errorf("%s: ReadsTables %v, want %v", c.body, got, c.reads)
		}
	}
}
