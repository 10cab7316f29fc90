package sql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// deepForms build statements that nest or chain one construct n times:
// brackets the grammar itself limits, chains only the depth guard stops,
// and chains placed where a careless lexer would lose them.
var deepForms = map[string]func(n int) string{
	"parentheses":       func(n int) string { return "SELECT " + wrap(n, "(", "1", ")") },
	"plus chain":        func(n int) string { return "SELECT 1" + strings.Repeat("+1", n) },
	"concat chain":      func(n int) string { return "SELECT 'a'" + strings.Repeat("||'a'", n) },
	"AND chain":         func(n int) string { return "SELECT true" + strings.Repeat(" AND true", n) },
	"unary minus":       func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "1" },
	"NOT":               func(n int) string { return "SELECT " + strings.Repeat("NOT ", n) + "true" },
	"CASE":              func(n int) string { return "SELECT " + wrap(n, "CASE WHEN true THEN ", "1", " END") },
	"subquery":          func(n int) string { return "SELECT " + wrap(n, "(SELECT ", "1", ")") },
	"ARRAY constructor": func(n int) string { return "SELECT " + wrap(n, "ARRAY[", "1", "]") },
	"function call":     func(n int) string { return "SELECT " + wrap(n, "abs(", "1", ")") },
	"cast chain":        func(n int) string { return "SELECT 1" + strings.Repeat("::int", n) },
	"UNION chain":       func(n int) string { return "SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", n) },
	"nested additions":  func(n int) string { return "SELECT " + wrap(n, "(1+", "1", ")") },
	"jsonb arrows":      func(n int) string { return "SELECT '{}'::jsonb" + strings.Repeat("->'a'", n) },
	"JOIN chain":        func(n int) string { return "SELECT 1 FROM t" + strings.Repeat(" JOIN t USING (a)", n) },
	"after quotes": func(n int) string {
		return "SELECT 'it''s (((' || E'\\' (((' || $x$ ((( $x$ || U&'(((' || \"((\"\"(\"" + strings.Repeat("+1", n)
	},
	"after comments": func(n int) string {
		return "SELECT /* (((( /* nested */ ((( */ 1 -- ((((\n" + strings.Repeat("+1", n)
	},
	"operators without spaces": func(n int) string { return "SELECT 1" + strings.Repeat("+-1", n) },
}

func wrap(n int, open, inner, close string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

func sqlstate(err error) string {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return "no SQLSTATE: " + err.Error()
	}
	return ""
}

// TestDepthGuardNeverLetsACrashThrough parses every form at the depths
// around the guard's limits and the grammar's. A depth the guard lets
// through too deep would crash this test's process.
func TestDepthGuardNeverLetsACrashThrough(t *testing.T) {
	depths := []int{3000, 9990, 11990, 12100, 40000}
	for name, build := range deepForms {
		for _, n := range depths {
			_, err := Parse(build(n))
			if code := sqlstate(err); code != "" && code != "42601" && code != "54001" {
				t.Errorf("%s at %d: unexpected %s", name, n, code)
			}
		}
		// At 100,000 every form is refused, by the guard or the grammar.
		if _, err := Parse(build(100_000)); name != "AND chain" && sqlstate(err) == "" {
			t.Errorf("%s at 100000 parsed", name)
		}
	}
	// Mixtures: bracket nesting just under the grammar's limit with a long
	// chain inside, and chains on several levels.
	mixed := []string{
		"SELECT " + strings.Repeat("(", 9000) + "1" + strings.Repeat("+1", 20000) + strings.Repeat(")", 9000),
		"SELECT " + strings.Repeat("(1"+strings.Repeat("+1", 100)+"+", 100) + "1" + strings.Repeat(")", 100),
		"SELECT " + strings.Repeat("- ", 9500) + "1" + strings.Repeat("+1", 30000),
		"SELECT " + strings.Repeat("@@", 10200) + "1" + strings.Repeat("+1", 30000),
		"SELECT " + strings.Repeat("NOT ", 9000) + "(1" + strings.Repeat("+1", 30000) + ") = 1",
	}
	for i, q := range mixed {
		_, err := Parse(q)
		if code := sqlstate(err); code != "" && code != "42601" && code != "54001" {
			t.Errorf("mixture %d: %q (%v)", i, code, err)
		}
	}
}

func TestMeasureNesting(t *testing.T) {
	cases := []struct {
		q          string
		tree, held int
	}{
		{"SELECT 1+1+1", 3, 0},
		{"SELECT ((1))", 3, 2},
		{"SELECT a, b, c", 2, 0},
		{"SELECT 'a+b+c(((' , \"x((\"", 1, 0},
		{"SELECT $$ ((( $$, $t$ ((( $t$, $1", 1, 0},
		{"SELECT - - - 1", 4, 2},
		{"SELECT x WHERE a = 1 AND b = 2 OR c = 3", 5, 0},
		{"SELECT CASE WHEN a THEN b ELSE c END", 4, 1},
		{"SELECT 1e+5 -- (((\n", 1, 0},
	}
	for _, c := range cases {
		d := measureNesting(c.q)
		if d.tree != c.tree || d.held != c.held {
			t.Errorf("%q: tree %d held %d, want %d %d", c.q, d.tree, d.held, c.tree, c.held)
		}
	}
}

func BenchmarkMeasureNesting(b *testing.B) {
	var q strings.Builder
	q.WriteString("INSERT INTO memory VALUES ")
	for r := 0; r < 100; r++ {
		if r > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "(%d, 'task %d', '{\"repo\": \"x\"}', '{", r, r)
		for i := 0; i < 384; i++ {
			if i > 0 {
				q.WriteByte(',')
			}
			fmt.Fprintf(&q, "%.6f", float64(i)*0.001)
		}
		q.WriteString("}')")
	}
	s := q.String()
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		measureNesting(s)
	}
}

// TestDepthGuardCoversNestedText binds statements whose deep chain lies
// inside a string the guard reads as one literal (a function's body, a DO
// block): that text is parsed later, and must be checked then too. Each
// of these crashed the process with SIGSEGV in pg_query.
func TestDepthGuardCoversNestedText(t *testing.T) {
	chain := "1" + strings.Repeat("+1", 50000)
	stmts := map[string]string{
		"SQL function":          "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT " + chain + " $$",
		"PL/pgSQL PERFORM":      "DO $$ BEGIN PERFORM " + chain + "; END $$",
		"PL/pgSQL assignment":   "DO $$ DECLARE x int; BEGIN x := " + chain + "; END $$",
		"PL/pgSQL IF":           "DO $$ BEGIN IF " + chain + " = 1 THEN NULL; END IF; END $$",
		"PL/pgSQL RETURN QUERY": "CREATE FUNCTION g() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT " + chain + "; END $$",
	}
	for name, q := range stmts {
		parsed, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b := &Binder{Catalog: testCatalog(), SearchPath: []string{"public"}}
		if _, err := b.Bind(parsed[0]); sqlstate(err) != "54001" {
			t.Errorf("%s: got %v (%s), want 54001", name, err, sqlstate(err))
		}
	}
	if _, _, _, _, ok := PlainInsert("INSERT INTO mem (id) VALUES (" + chain + ")"); ok {
		t.Error("PlainInsert took a statement too deep to parse")
	}
}
