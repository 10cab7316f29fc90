package sql

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// TestShapeOf checks where shapeOf finds literals, and the tokens it
// refuses to model.
func TestShapeOf(t *testing.T) {
	for _, c := range []struct {
		query string
		lits  []string // the literal tokens; nil with ok false: shapeless
		ok    bool
	}{
		{"SELECT 1", []string{"1"}, true},
		{"SELECT id FROM t WHERE s = 'it''s' AND n > 2.5e-3 LIMIT 10", []string{"'it''s'", "2.5e-3", "10"}, true},
		{`SELECT "a'b", t1.x, $1, a$b FROM t1 -- 'not' 5` + "\n" + `WHERE y = /* '7' /* 8 */ */ 9`, []string{"9"}, true},
		{"SELECT 2147483647, 2147483648, .5, 1., 007", []string{"2147483647", "2147483648", ".5", "1.", "007"}, true},
		{"SELECT 'a'\n'b'", nil, false},
		{"SELECT 'a' -- c\n 'b'", nil, false},
		{"SELECT 'a' 'b'", []string{"'a'", "'b'"}, true}, // a syntax error; the parser says so
		{"SELECT E'\\n'", nil, false},
		{"SELECT e'x'", nil, false},
		{"SELECT B'101', 1", nil, false},
		{"SELECT X'1f'", nil, false},
		{"SELECT N'x'", nil, false},
		{"SELECT U&'\\0041'", nil, false},
		{"SELECT $$x$$", nil, false},
		{"SELECT $a$x$a$", nil, false},
		{"SELECT 1..2", nil, false},
		{"SELECT 1e", nil, false},
		{"SELECT 1e+", nil, false},
		{"SELECT 1abc", nil, false},
		{"SELECT $1abc", nil, false},
		{"SELECT 'unclosed", nil, false},
		{"SELECT /* unclosed", nil, false},
		{`SELECT "unclosed`, nil, false},
		{"SELECT be'x'", []string{"'x'"}, true}, // an identifier, then a string
	} {
		shape, lits, ok := shapeOf(c.query, nil)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.query, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var got []string
		for _, l := range lits {
			got = append(got, c.query[l.start:l.end])
		}
		if fmt.Sprint(got) != fmt.Sprint(c.lits) {
			t.Errorf("%q: literals %q, want %q", c.query, got, c.lits)
		}
		if strings.Count(shape, "\x00") != len(c.lits) {
			t.Errorf("%q: shape %q", c.query, shape)
		}
	}
}

// bindExplain binds query's first statement and renders its plan.
func bindExplain(t *testing.T, query string) string {
	t.Helper()
	stmts, err := Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	b := &Binder{Catalog: testCatalog(), SearchPath: []string{"public"}}
	bound, err := b.Bind(stmts[0])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return strings.Join(ExplainLines(bound.(*Query).Plan), "\n")
}

// TestTemplatesBindTheirOwnConstants parses queries of one shape many
// times from several goroutines: once a shape has a template, each query
// must still bind its own constants, and nothing may write to the shared
// tree (go test -race).
func TestTemplatesBindTheirOwnConstants(t *testing.T) {
	shape := "SELECT id, task || %s FROM mem WHERE repo = %s AND id > %d ORDER BY %d LIMIT %d"
	query := func(g, i int) (string, []string) {
		suffix, repo := fmt.Sprintf("'-%d'", i), fmt.Sprintf("'r%d-%d'", g, i)
		key := "TopK: id Count"
		if i%2 == 1 { // ORDER BY 2
			key = fmt.Sprintf("TopK: (task || %s::text) Count", suffix)
		}
		return fmt.Sprintf(shape, suffix, repo, i*7, 1+i%2, 1+i), []string{key, repo, fmt.Sprintf("> %d", i*7), fmt.Sprintf("Count: %d", 1+i)}
	}
	q, _ := query(0, 0)
	for range 2 { // the second parse makes the template
		bindExplain(t, q)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				q, wants := query(g, i)
				stmts, err := Parse(q)
				if err != nil {
					t.Error(err)
					return
				}
				if !stmts[0].Templated() {
					t.Errorf("%s: not templated", q)
					return
				}
				plan := bindExplain(t, q)
				for _, w := range wants {
					if !strings.Contains(plan, w) {
						t.Errorf("%s: plan lacks %q:\n%s", q, w, plan)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestTemplateRefusesConsumedLiterals checks the shapes whose literals the
// grammar uses for more than a constant: they are parsed afresh, and bind
// as their own text says.
func TestTemplateRefusesConsumedLiterals(t *testing.T) {
	for _, pair := range [][2]string{
		{"SELECT 1.5::float(24) FROM mem", "SELECT 1.5::float(53) FROM mem"},
		{"SELECT -5 FROM mem", "SELECT -6 FROM mem"},
		{"SELECT id INTO TEMP x FROM mem WHERE id = 1", "SELECT id INTO TEMP x FROM mem WHERE id = 2"},
	} {
		for range 3 {
			stmts, err := Parse(pair[0])
			if err != nil {
				t.Fatal(err)
			}
			if stmts[0].Templated() && len(stmts[0].consts) > 0 {
				t.Errorf("%s: templated", pair[0])
			}
		}
		stmts, err := Parse(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if stmts[0].Templated() {
			t.Errorf("%s: templated", pair[1])
		}
	}
	if a, b := bindQuery(t, "SELECT 1.5::float(24) FROM mem").Columns()[0].T, bindQuery(t, "SELECT 1.5::float(53) FROM mem").Columns()[0].T; a.Family != types.Float4 || b.Family != types.Float8 {
		t.Errorf("float(24) and float(53) bind as %s and %s", a, b)
	}
}

// TestTemplateErrorPositions checks that an error binding a templated
// query points into the query's own text, not the template's.
func TestTemplateErrorPositions(t *testing.T) {
	for _, c := range []struct{ short, long, culprit string }{
		{"SELECT 'a', nosuch FROM mem", "SELECT 'a much longer constant', nosuch FROM mem", "nosuch"},
		{"SELECT id FROM mem WHERE repo = 'a' AND task = nope", "SELECT id FROM mem WHERE repo = 'a much longer constant' AND task = nope", "nope"},
		{"SELECT 'x'::int FROM mem", "SELECT 'not a number'::int FROM mem", "'not a number'"},
	} {
		for range 2 {
			if _, err := Parse(c.short); err != nil {
				t.Fatal(err)
			}
		}
		stmts, err := Parse(c.long)
		if err != nil || !stmts[0].Templated() {
			t.Fatalf("%s: %v, templated %v", c.long, err, err == nil && stmts[0].Templated())
		}
		_, err = (&Binder{Catalog: testCatalog(), SearchPath: []string{"public"}}).Bind(stmts[0])
		want := int32(strings.Index(c.long, c.culprit) + 1)
		if pe := pgerr.From(err); pe == nil || pe.Position != want {
			t.Errorf("%s: error %v at %d, want one at %d", c.long, err, pgerr.From(err).Position, want)
		}
	}
}
