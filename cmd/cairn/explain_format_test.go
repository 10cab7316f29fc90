package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestExplainFormatJSON reads EXPLAIN (FORMAT JSON) as the tools that
// draw plans do: one row of one json column "QUERY PLAN" (type OID 114,
// which pgx decodes into Go values) holding [{"Plan": {...}}], each node
// with its "Node Type" and its inputs under "Plans"; with ANALYZE each
// node has "Actual Rows" and "Actual Loops" and the document an
// "Execution Time". Also over the extended protocol with a parameter, and
// for EXPLAIN EXECUTE.
func TestExplainFormatJSON(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE ej (id int PRIMARY KEY, grp int, v text)`)
	mustExec(t, conn, `INSERT INTO ej SELECT g, g % 3, 'v' || g FROM generate_series(1, 30) g`)

	explain := func(sql string, args ...any) map[string]any {
		t.Helper()
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		fields := rows.FieldDescriptions()
		if len(fields) != 1 || fields[0].Name != "QUERY PLAN" || fields[0].DataTypeOID != 114 {
			t.Fatalf("%s: columns %+v, want one json (114) column QUERY PLAN", sql, fields)
		}
		var docs [][]map[string]any
		for rows.Next() {
			var doc []map[string]any
			if err := rows.Scan(&doc); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			docs = append(docs, doc)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if len(docs) != 1 || len(docs[0]) != 1 {
			t.Fatalf("%s: got %v, want one row holding an array of one object", sql, docs)
		}
		return docs[0][0]
	}
	// nodeTypes lists the plan's node types depth first, checking the
	// properties every node has.
	var nodeTypes func(node map[string]any, analyzed bool) []string
	nodeTypes = func(node map[string]any, analyzed bool) []string {
		t.Helper()
		typ, _ := node["Node Type"].(string)
		if typ == "" || node["Parallel Aware"] != false {
			t.Errorf("node %v: no Node Type or Parallel Aware", node)
		}
		if _, ok := node["Actual Rows"].(float64); ok != analyzed {
			t.Errorf("node %v: Actual Rows present %v, want %v", node, ok, analyzed)
		}
		out := []string{typ}
		if plans, ok := node["Plans"]; ok {
			list, _ := plans.([]any)
			if len(list) == 0 {
				t.Errorf("node %v: Plans is not a list of nodes", node)
			}
			for _, c := range list {
				child, _ := c.(map[string]any)
				if child["Parent Relationship"] == nil {
					t.Errorf("child %v has no Parent Relationship", child)
				}
				out = append(out, nodeTypes(child, analyzed)...)
			}
		}
		return out
	}
	plan := func(doc map[string]any) map[string]any {
		t.Helper()
		p, ok := doc["Plan"].(map[string]any)
		if !ok {
			t.Fatalf("document %v has no Plan object", doc)
		}
		return p
	}

	doc := explain(`EXPLAIN (FORMAT JSON) SELECT grp, count(*) FROM ej e WHERE v > 'v1' GROUP BY grp ORDER BY grp`)
	root := plan(doc)
	if got, want := strings.Join(nodeTypes(root, false), ","), "Sort,Aggregate,Filter,Seq Scan"; got != want {
		t.Errorf("node types %s, want %s", got, want)
	}
	if _, ok := doc["Execution Time"]; ok {
		t.Errorf("EXPLAIN without ANALYZE has an Execution Time: %v", doc)
	}
	agg := root["Plans"].([]any)[0].(map[string]any)
	if agg["Strategy"] != "Hashed" || len(agg["Group Key"].([]any)) != 1 {
		t.Errorf("aggregate node %v: want Strategy Hashed and one Group Key", agg)
	}
	scan := agg["Plans"].([]any)[0].(map[string]any)["Plans"].([]any)[0].(map[string]any)
	if scan["Relation Name"] != "ej" || scan["Alias"] != "e" {
		t.Errorf("scan node %v: want Relation Name ej, Alias e", scan)
	}

	doc = explain(`EXPLAIN (ANALYZE, FORMAT JSON) SELECT a.v FROM ej a JOIN ej b ON a.id = b.grp`)
	root = plan(doc)
	if got, want := strings.Join(nodeTypes(root, true), ","), "Hash Join,Seq Scan,Seq Scan"; got != want {
		t.Errorf("node types %s, want %s", got, want)
	}
	if root["Join Type"] != "Inner" || root["Hash Cond"] == nil || root["Actual Rows"] != float64(20) || root["Actual Loops"] != float64(1) {
		t.Errorf("join node %v: want Join Type Inner, a Hash Cond, 20 Actual Rows in 1 loop", root)
	}
	if _, ok := doc["Execution Time"].(float64); !ok {
		t.Errorf("EXPLAIN ANALYZE document %v has no Execution Time", doc)
	}
	if tr, ok := doc["Triggers"].([]any); !ok || len(tr) != 0 {
		t.Errorf("EXPLAIN ANALYZE document %v: Triggers is not an empty list", doc)
	}

	root = plan(explain(`EXPLAIN (FORMAT JSON) SELECT v FROM ej WHERE id = $1`, 7))
	if root["Node Type"] != "Index Scan" || root["Index Name"] != "ej_pkey" || root["Index Cond"] == nil {
		t.Errorf("key lookup node %v: want an Index Scan using ej_pkey with an Index Cond", root)
	}
	mustExec(t, conn, `PREPARE byid(int) AS SELECT v FROM ej WHERE id = $1`)
	root = plan(explain(`EXPLAIN (FORMAT JSON, ANALYZE) EXECUTE byid(3)`))
	if root["Node Type"] != "Index Scan" || root["Actual Rows"] != float64(1) {
		t.Errorf("EXPLAIN EXECUTE node %v: want an Index Scan of 1 actual row", root)
	}

	// The document is valid JSON as text too (a client that reads the
	// column as a string, as psql does).
	var text string
	if err := conn.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT * FROM ej WHERE v = 'a"<b>\'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(text)) || !strings.Contains(text, `"Filter": "(v = 'a\"<b>\\'::text)"`) {
		t.Errorf("EXPLAIN text %s: want valid JSON quoting the filter's \" and \\ only", text)
	}
}
