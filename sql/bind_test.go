package sql

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// testCatalog holds one table public.mem(id, task, repo, embedding).
func testCatalog() *catalog.Catalog {
	def := &catalog.TableDef{ID: 1, Schema: "public", Name: "mem", Columns: []catalog.ColumnDef{
		{ID: 1, Name: "id", Type: types.Int8T},
		{ID: 2, Name: "task", Type: types.TextT},
		{ID: 3, Name: "repo", Type: types.TextT},
		{ID: 4, Name: "embedding", Type: types.Float4ArrayT},
	}}
	return &catalog.Catalog{
		Schemas: map[string]*catalog.SchemaDef{"public": {Name: "public"}},
		Tables:  map[uint64]*catalog.TableDef{1: def},
	}
}

func bindQuery(t *testing.T, sql string) Node {
	t.Helper()
	stmts, err := Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	b := &Binder{Catalog: testCatalog(), SearchPath: []string{"public"}}
	bound, err := b.Bind(stmts[0])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return bound.(*Query).Plan
}

func findScan(n Node) *Scan {
	if s, ok := n.(*Scan); ok {
		return s
	}
	for _, c := range n.Children() {
		if s := findScan(c); s != nil {
			return s
		}
	}
	return nil
}

// TestPruneColumns checks that scans read only the columns a query uses.
func TestPruneColumns(t *testing.T) {
	for _, c := range []struct {
		sql  string
		cols []int
	}{
		{"SELECT id FROM mem", []int{0}},
		{"SELECT id FROM mem WHERE repo = 'x'", []int{0, 2}},
		{"SELECT count(*) FROM mem", []int{0}},
		{"SELECT id, embedding <#> '{1,0}' AS s FROM mem ORDER BY s DESC LIMIT 3", []int{0, 3}},
		{"SELECT task FROM mem ORDER BY id", []int{0, 1}},
		{"SELECT * FROM mem", []int{0, 1, 2, 3}},
		{"SELECT repo, count(*) FROM mem GROUP BY repo HAVING max(id) > 1", []int{0, 2}},
	} {
		scan := findScan(bindQuery(t, c.sql))
		if !reflect.DeepEqual(scan.Cols, c.cols) {
			t.Errorf("%s: scan reads %v, want %v", c.sql, scan.Cols, c.cols)
		}
	}
}

// TestSimilarityOrder checks pg_deeplake's direction rule: a similarity
// key without a direction sorts best first, with unscored rows last.
func TestSimilarityOrder(t *testing.T) {
	for _, c := range []struct {
		sql        string
		desc, nfst bool
	}{
		{"SELECT id, embedding <#> '{1,0}' AS s FROM mem ORDER BY s LIMIT 3", true, false},
		{"SELECT id FROM mem ORDER BY embedding <#> '{1,0}' DESC LIMIT 3", true, false},
		{"SELECT id FROM mem ORDER BY cosine_similarity(embedding, '{1,0}') ASC LIMIT 3", false, false},
		{"SELECT id FROM mem ORDER BY task <#> 'oom' LIMIT 3", true, false},
		{"SELECT id FROM mem ORDER BY id DESC LIMIT 3", true, true},
	} {
		plan := bindQuery(t, c.sql)
		var topk *TopK
		for n := plan; n != nil; {
			if tk, ok := n.(*TopK); ok {
				topk = tk
				break
			}
			ch := n.Children()
			if len(ch) == 0 {
				break
			}
			n = ch[0]
		}
		if topk == nil {
			t.Fatalf("%s: no TopK in %s", c.sql, strings.Join(ExplainLines(plan), " / "))
		}
		k := topk.Keys[0]
		if k.Desc != c.desc || k.NullsFirst != c.nfst {
			t.Errorf("%s: desc=%v nullsFirst=%v, want %v %v", c.sql, k.Desc, k.NullsFirst, c.desc, c.nfst)
		}
	}
}
