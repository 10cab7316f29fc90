package main

// hivemind_test.go replays what Hivemind (Activeloop's memory plugin for
// Claude Code, Codex and Cursor, 0.7.x) sends to its backend, against a
// cairn server over a real socket, and reads the answers the way the
// plugin does: SQL text with no parameters through POST
// /workspaces/{ws}/tables/query with its headers, rows zipped with
// columns into records, errors matched on their message. The statements
// are written from what the plugin sends (its table layouts, its
// session-capture INSERT, its grep and virtual-filesystem queries, its
// summary upsert, its skills flows), so that a change to cairn cannot
// break the plugin silently.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/wire"
)

// hivemindClient sends SQL as Hivemind does: the bearer token, its org
// and client headers, {"query": sql} and nothing else.
type hivemindClient struct {
	*httpAPI
	ws string
}

func startHivemind(t *testing.T, token string) hivemindClient {
	t.Helper()
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{Token: token})
	c.header = http.Header{
		"Content-Type":        {"application/json"},
		"X-Activeloop-Org-Id": {"cairn"},
		"X-Deeplake-Client":   {"hivemind"},
	}
	return hivemindClient{httpAPI: c, ws: "default"}
}

// sql runs query and returns its rows as Hivemind's client builds them
// (one record per row, keyed by column name); anything but a 200 fails
// the test.
func (h hivemindClient) sql(query string) []map[string]any {
	h.t.Helper()
	status, body := h.sqlStatus(query)
	if status != http.StatusOK {
		h.t.Fatalf("%s\n-> %d %s", query, status, body)
	}
	var raw struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		h.t.Fatalf("%s: %v in %s", query, err, body)
	}
	out := []map[string]any{}
	for _, row := range raw.Rows {
		rec := map[string]any{}
		for i, col := range raw.Columns {
			rec[col] = row[i]
		}
		out = append(out, rec)
	}
	return out
}

// sqlStatus runs query and returns the status and the body as text, as
// Hivemind's error path reads them ("Query failed: <status>: <body>").
func (h hivemindClient) sqlStatus(query string) (int, string) {
	h.t.Helper()
	status, _, out := h.do("POST", "/workspaces/"+h.ws+"/tables/query", map[string]string{"query": query})
	return status, string(out)
}

// column returns the values of col in rows, as text.
func column(rows []map[string]any, col string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r[col]))
	}
	return out
}

// The tables Hivemind creates on SessionStart (memory, sessions) and on
// its first skill (skills), as it writes them: USING deeplake, text
// columns NOT NULL DEFAULT ”, embeddings as FLOAT4[].
const (
	hmMemoryTable = `CREATE TABLE IF NOT EXISTS "memory" (id TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '', ` +
		`filename TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', summary_embedding FLOAT4[], ` +
		`author TEXT NOT NULL DEFAULT '', mime_type TEXT NOT NULL DEFAULT 'text/plain', size_bytes BIGINT NOT NULL DEFAULT 0, ` +
		`project TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', agent TEXT NOT NULL DEFAULT '', ` +
		`plugin_version TEXT NOT NULL DEFAULT '', creation_date TEXT NOT NULL DEFAULT '', last_update_date TEXT NOT NULL DEFAULT '') USING deeplake`
	hmSessionsTable = `CREATE TABLE IF NOT EXISTS "sessions" (id TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '', ` +
		`filename TEXT NOT NULL DEFAULT '', message JSONB, message_embedding FLOAT4[], author TEXT NOT NULL DEFAULT '', ` +
		`mime_type TEXT NOT NULL DEFAULT 'application/json', size_bytes BIGINT NOT NULL DEFAULT 0, project TEXT NOT NULL DEFAULT '', ` +
		`description TEXT NOT NULL DEFAULT '', agent TEXT NOT NULL DEFAULT '', plugin_version TEXT NOT NULL DEFAULT '', ` +
		`creation_date TEXT NOT NULL DEFAULT '', last_update_date TEXT NOT NULL DEFAULT '') USING deeplake`
	hmSkillsColumns = `id TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', project TEXT NOT NULL DEFAULT '', ` +
		`project_key TEXT NOT NULL DEFAULT '', local_path TEXT NOT NULL DEFAULT '', install TEXT NOT NULL DEFAULT 'project', ` +
		`source_sessions TEXT NOT NULL DEFAULT '[]', source_agent TEXT NOT NULL DEFAULT '', scope TEXT NOT NULL DEFAULT 'me', ` +
		`author TEXT NOT NULL DEFAULT '', %sdescription TEXT NOT NULL DEFAULT '', trigger_text TEXT NOT NULL DEFAULT '', ` +
		`body TEXT NOT NULL DEFAULT '', version BIGINT NOT NULL DEFAULT 1, created_at TEXT NOT NULL DEFAULT '', ` +
		`updated_at TEXT NOT NULL DEFAULT ''`
)

// hmColumnCheck is Hivemind's check for a column before it adds one.
func hmColumnCheck(ws, table, col string) string {
	return fmt.Sprintf(`SELECT 1 FROM information_schema.columns WHERE table_name = '%s' AND column_name = '%s' AND table_schema = '%s' LIMIT 1`, table, col, ws)
}

// hmSessionInsert is the capture hook's INSERT of one event.
func hmSessionInsert(id, path, event, embedding, ts string) string {
	return `INSERT INTO "sessions" (id, path, filename, message, message_embedding, author, size_bytes, project, description, agent, plugin_version, creation_date, last_update_date) ` +
		fmt.Sprintf(`VALUES ('%s', '%s', '%s', '%s'::jsonb, %s, 'alice', %d, 'cairn', 'UserPromptSubmit', 'claude_code', '0.7.33', '%s', '%s')`,
			id, path, path[strings.LastIndex(path, "/")+1:], strings.ReplaceAll(event, "'", "''"), embedding, len(event), ts, ts)
}

// TestHivemindReplay runs one Hivemind user's session against cairn:
// SessionStart's schema setup, capture, the summary worker, grep and cat
// over ~/.deeplake/memory, the MCP tools and session pruning.
func TestHivemindReplay(t *testing.T) {
	h := startHivemind(t, "hm-t0ken")

	// SessionStart: list the workspace's tables, create what is missing.
	h.expect("GET", "/workspaces/default/tables", nil, 200, `{"tables": []}`)
	h.sql(hmMemoryTable)
	h.sql(hmSessionsTable)
	h.sql(hmSessionsTable) // a second hook racing the first
	h.expect("GET", "/workspaces/default/tables", nil, 200, `{"tables": [{"table_name": "memory"}, {"table_name": "sessions"}]}`)
	for _, c := range [][2]string{{"memory", "summary_embedding"}, {"memory", "agent"}, {"memory", "plugin_version"}, {"sessions", "message_embedding"}, {"sessions", "agent"}} {
		if rows := h.sql(hmColumnCheck("default", c[0], c[1])); len(rows) != 1 {
			t.Fatalf("column check %v: %v", c, rows)
		}
	}
	// The same table name in another workspace does not answer for this one.
	if rows := h.sql(hmColumnCheck("other", "memory", "agent")); len(rows) != 0 {
		t.Fatalf("column check in another workspace: %v", rows)
	}
	for i := 0; i < 2; i++ {
		h.sql(`CREATE INDEX IF NOT EXISTS "idx_sessions_path_creation_date" ON "sessions" ("path", "creation_date")`)
	}

	// A table from before the agent column: the check finds it missing,
	// ALTER adds it, a second ALTER says "already exists" (which Hivemind
	// takes as another writer having won the race).
	h.sql(`CREATE TABLE "old_memory" (id TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '') USING deeplake`)
	h.sql(`INSERT INTO "old_memory" (id, path, summary) VALUES ('o1', '/summaries/bob/old.md', 'old')`)
	if rows := h.sql(hmColumnCheck("default", "old_memory", "agent")); len(rows) != 0 {
		t.Fatalf("missing column found: %v", rows)
	}
	h.sql(`ALTER TABLE "old_memory" ADD COLUMN agent TEXT NOT NULL DEFAULT ''`)
	h.sql(`ALTER TABLE "old_memory" ADD COLUMN summary_embedding FLOAT4[]`)
	if status, body := h.sqlStatus(`ALTER TABLE "old_memory" ADD COLUMN agent TEXT NOT NULL DEFAULT ''`); status == 200 || !regexp.MustCompile(`(?i)already exists`).MatchString(body) {
		t.Fatalf("second ALTER: %d %s", status, body)
	}
	if rows := h.sql(`SELECT path, agent, summary_embedding FROM "old_memory"`); len(rows) != 1 || rows[0]["agent"] != "" || rows[0]["summary_embedding"] != nil {
		t.Fatalf("old row after ALTER: %v", rows)
	}

	// The placeholder summary SessionStart writes when there is none.
	if rows := h.sql(`SELECT path FROM "memory" WHERE path = '/summaries/alice/s1.md' LIMIT 1`); len(rows) != 0 {
		t.Fatalf("placeholder before insert: %v", rows)
	}
	placeholder := "# Session s1\n- **Source**: /sessions/alice/alice_cairn_default_s1.jsonl\n- **Status**: in-progress\n"
	h.sql(`INSERT INTO "memory" (id, path, filename, summary, author, mime_type, size_bytes, project, description, agent, plugin_version, creation_date, last_update_date) ` +
		`VALUES ('3b0c', '/summaries/alice/s1.md', 's1.md', E'` + strings.ReplaceAll(placeholder, "\n", `\n`) + `', 'alice', 'text/markdown', ` +
		fmt.Sprint(len(placeholder)) + `, 'cairn', 'in progress', 'claude_code', '0.7.33', '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z')`)
	if rows := h.sql(`SELECT summary FROM "memory" WHERE path = '/summaries/alice/s1.md' LIMIT 1`); len(rows) != 1 || rows[0]["summary"] != placeholder {
		t.Fatalf("placeholder: %q", rows)
	}

	// Capture: one INSERT per hook event, the event as JSONB, with an
	// embedding when the plugin's embedding daemon runs and NULL when not.
	sess := "/sessions/alice/alice_cairn_default_s1.jsonl"
	events := []string{
		`{"type":"user_message","content":"why does the WAL fsync on COMMIT?","session_id":"s1"}`,
		`{"type":"tool_call","tool_name":"Bash","tool_input":{"command":"grep -rn fsync storage/"},"tool_response":"storage/wal.go:88: f.Sync()","session_id":"s1"}`,
		`{"type":"assistant_message","content":"Durability: it's the user's guarantee — ünïcode too","session_id":"s1"}`,
	}
	embeddings := []string{"ARRAY[0.6,0.8,0]::float4[]", "NULL", "ARRAY[1,0,0]::float4[]"}
	for i, ev := range events {
		h.sql(hmSessionInsert(fmt.Sprintf("e%d", i), sess, ev, embeddings[i], fmt.Sprintf("2026-11-26T10:00:0%d.000Z", i+1)))
	}
	// The offline queue flushes several events in one INSERT.
	h.sql(`INSERT INTO "sessions" (id, path, filename, message, author, size_bytes, project, description, agent, plugin_version, creation_date, last_update_date) VALUES ` +
		`('q1', '/sessions/bob/bob_cairn_default_s2.jsonl', 'bob_cairn_default_s2.jsonl', '{"type":"user_message","content":"hnsw ef_search tuning"}'::jsonb, 'bob', 40, 'cairn', 'UserPromptSubmit', 'codex', '', '2026-11-25T09:00:00.000Z', '2026-11-25T09:00:00.000Z'), ` +
		`('q2', '/sessions/bob/bob_cairn_default_s2.jsonl', 'bob_cairn_default_s2.jsonl', '{"type":"raw_message","content":"not json"}'::jsonb, 'bob', 30, 'cairn', 'Stop', 'codex', '', '2026-11-25T09:00:05.000Z', '2026-11-25T09:00:05.000Z')`)

	// The summary worker reads the session back in order; message comes
	// back as JSON the worker re-serialises.
	rows := h.sql(`SELECT message, creation_date FROM "sessions" WHERE path LIKE '/sessions/%s1%' ORDER BY creation_date ASC`)
	if len(rows) != 3 {
		t.Fatalf("session events: %v", rows)
	}
	for i, r := range rows {
		m, ok := r["message"].(map[string]any)
		if !ok {
			t.Fatalf("message %d is %T, not a JSON object", i, r["message"])
		}
		var want map[string]any
		dec := json.NewDecoder(strings.NewReader(events[i]))
		dec.UseNumber()
		dec.Decode(&want)
		got, _ := json.Marshal(m)
		exp, _ := json.Marshal(want)
		if !bytes.Equal(got, exp) {
			t.Fatalf("event %d: got %s want %s", i, got, exp)
		}
	}
	if rows := h.sql(`SELECT DISTINCT path FROM "sessions" WHERE path LIKE '/sessions/%s1%' LIMIT 1`); len(rows) != 1 || rows[0]["path"] != sess {
		t.Fatalf("session path: %v", rows)
	}
	// It uploads the summary: the row exists, so an UPDATE with E'' text.
	summary := "# Session s1\n**JSONL offset**: 3\nThe WAL fsyncs on COMMIT for durability; it's why writes survive a crash.\n"
	esc := strings.NewReplacer(`\`, `\\`, "'", "''", "\n", `\n`).Replace
	if rows := h.sql(`SELECT path FROM "memory" WHERE path = '/summaries/alice/s1.md' LIMIT 1`); len(rows) != 1 {
		t.Fatalf("summary row: %v", rows)
	}
	h.sql(`UPDATE "memory" SET summary = E'` + esc(summary) + `', summary_embedding = ARRAY[0.6,0.8,0]::float4[], size_bytes = ` + fmt.Sprint(len(summary)) +
		`, description = E'WAL durability: fsync on commit', plugin_version = '0.7.33', last_update_date = '2026-11-26T10:05:00.000Z' WHERE path = '/summaries/alice/s1.md'`)
	// Bob's summary is new: INSERT.
	h.sql(`INSERT INTO "memory" (id, path, filename, summary, summary_embedding, author, mime_type, size_bytes, project, description, agent, plugin_version, creation_date, last_update_date) ` +
		`VALUES ('9f1e', '/summaries/bob/s2.md', 's2.md', E'# Session s2\nTuned hnsw ef_search to 100 \\ recall 0.98', ARRAY[0,0.6,0.8]::float4[], 'bob', 'text/markdown', 50, 'cairn', E'hnsw tuning', 'codex', '', '2026-11-25T09:10:00.000Z', '2026-11-25T09:10:00.000Z')`)
	if rows := h.sql(`SELECT summary FROM "memory" WHERE path = '/summaries/alice/s1.md' LIMIT 1`); len(rows) != 1 || rows[0]["summary"] != summary {
		t.Fatalf("summary after update: %v", rows)
	}
	if rows := h.sql(`SELECT summary FROM "memory" WHERE path = '/summaries/bob/s2.md' LIMIT 1`); len(rows) != 1 || rows[0]["summary"] != "# Session s2\nTuned hnsw ef_search to 100 \\ recall 0.98" {
		t.Fatalf("bob's summary: %q", rows)
	}

	// grep -ri "fsync" ~/.deeplake/memory/: the lexical union, both tables.
	rows = h.sql(`SELECT path, content, source_order, creation_date FROM (` +
		`(SELECT path, summary::text AS content, 0 AS source_order, '' AS creation_date FROM "memory" WHERE 1=1 AND summary::text ILIKE '%FSYNC%' LIMIT 100) UNION ALL ` +
		`(SELECT path, message::text AS content, 1 AS source_order, COALESCE(creation_date::text, '') AS creation_date FROM "sessions" WHERE 1=1 AND message::text ILIKE '%FSYNC%' LIMIT 100)` +
		`) AS combined ORDER BY path, source_order, creation_date`)
	if got := column(rows, "path"); !slices.Equal(got, []string{sess, sess, "/summaries/alice/s1.md"}) {
		t.Fatalf("grep paths: %v", got)
	}
	if c := rows[0]["content"].(string); !strings.Contains(c, `"why does the WAL fsync on COMMIT?"`) {
		t.Fatalf("grep content is not the event's JSON text: %s", c)
	}
	// grep under a directory, with the plugin's LIKE escapes: '_' in a
	// path is a literal, not a wildcard.
	rows = h.sql(`SELECT path, content, source_order, creation_date FROM (` +
		`(SELECT path, summary::text AS content, 0 AS source_order, '' AS creation_date FROM "memory" WHERE 1=1 AND (path = '/summaries/bob' OR path LIKE '/summaries/bob/%' ESCAPE '\') AND (summary::text ILIKE '%hnsw%' OR summary::text ILIKE '%ef\_search%') LIMIT 100) UNION ALL ` +
		`(SELECT path, message::text AS content, 1 AS source_order, COALESCE(creation_date::text, '') AS creation_date FROM "sessions" WHERE 1=1 AND (path = '/summaries/bob' OR path LIKE '/summaries/bob/%' ESCAPE '\') AND (message::text ILIKE '%hnsw%' OR message::text ILIKE '%ef\_search%') LIMIT 100)` +
		`) AS combined ORDER BY path, source_order, creation_date`)
	if got := column(rows, "path"); !slices.Equal(got, []string{"/summaries/bob/s2.md"}) {
		t.Fatalf("grep under /summaries/bob: %v", got)
	}
	// The hybrid grep when the embedding daemon runs: cosine via <#> on
	// rows with a non-empty embedding, unioned with the lexical hits at
	// a 1.0 sentinel.
	vec := "ARRAY[0.6,0.8,0]::float4[]"
	rows = h.sql(`SELECT path, content, source_order, creation_date, score FROM (` +
		`(SELECT path, summary::text AS content, 0 AS source_order, '' AS creation_date, (summary_embedding <#> ` + vec + `) AS score FROM "memory" WHERE ARRAY_LENGTH(summary_embedding, 1) > 0 ORDER BY score DESC LIMIT 10) UNION ALL ` +
		`(SELECT path, message::text AS content, 1 AS source_order, COALESCE(creation_date::text, '') AS creation_date, (message_embedding <#> ` + vec + `) AS score FROM "sessions" WHERE ARRAY_LENGTH(message_embedding, 1) > 0 ORDER BY score DESC LIMIT 10) UNION ALL ` +
		`(SELECT path, summary::text AS content, 0 AS source_order, '' AS creation_date, 1.0 AS score FROM "memory" WHERE 1=1 AND summary::text ILIKE '%durability%' LIMIT 10) UNION ALL ` +
		`(SELECT path, message::text AS content, 1 AS source_order, COALESCE(creation_date::text, '') AS creation_date, 1.0 AS score FROM "sessions" WHERE 1=1 AND message::text ILIKE '%durability%' LIMIT 10)` +
		`) AS combined ORDER BY score DESC LIMIT 20`)
	if len(rows) != 6 {
		t.Fatalf("hybrid grep: %v", rows)
	}
	scores := []float64{}
	for _, r := range rows {
		scores = append(scores, num(t, r["score"]))
	}
	if !slices.IsSortedFunc(scores, func(a, b float64) int { return -cmpFloat(a, b) }) || scores[0] < 0.999 || scores[len(scores)-1] > 0.49 {
		t.Fatalf("hybrid scores: %v (%v)", scores, column(rows, "path"))
	}

	// cat ~/.deeplake/memory/<paths>: both tables, one union.
	rows = h.sql(`SELECT path, content, size_bytes, creation_date, source_order FROM (` +
		`(SELECT path, summary::text AS content, NULL::bigint AS size_bytes, '' AS creation_date, 0 AS source_order FROM "memory" WHERE path IN ('/summaries/bob/s2.md', '` + sess + `')) UNION ALL ` +
		`(SELECT path, message::text AS content, NULL::bigint AS size_bytes, COALESCE(creation_date::text, '') AS creation_date, 1 AS source_order FROM "sessions" WHERE path IN ('/summaries/bob/s2.md', '` + sess + `'))` +
		`) AS combined ORDER BY path, source_order, creation_date`)
	if got := column(rows, "path"); !slices.Equal(got, []string{sess, sess, sess, "/summaries/bob/s2.md"}) || rows[0]["size_bytes"] != nil {
		t.Fatalf("cat: %v", rows)
	}
	// ls: paths and sizes under directories.
	rows = h.sql(`SELECT path, content, size_bytes, creation_date, source_order FROM (` +
		`(SELECT path, NULL::text AS content, size_bytes, '' AS creation_date, 0 AS source_order FROM "memory" WHERE path LIKE '/summaries/%' ESCAPE '\' OR path LIKE '/sessions/%' ESCAPE '\') UNION ALL ` +
		`(SELECT path, NULL::text AS content, size_bytes, '' AS creation_date, 1 AS source_order FROM "sessions" WHERE path LIKE '/summaries/%' ESCAPE '\' OR path LIKE '/sessions/%' ESCAPE '\')` +
		`) AS combined ORDER BY path, source_order, creation_date`)
	if len(rows) != 7 || rows[0]["content"] != nil {
		t.Fatalf("ls: %v", rows)
	}
	// find -name '*.md': path and filename patterns.
	rows = h.sql(`SELECT path, NULL::text AS content, NULL::bigint AS size_bytes, '' AS creation_date, 0 AS source_order FROM "memory" WHERE path LIKE '/summaries/%' ESCAPE '\' AND filename LIKE '%.md' ESCAPE '\'`)
	if got := column(rows, "path"); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"/summaries/alice/s1.md", "/summaries/bob/s2.md"}) {
		t.Fatalf("find: %v", got)
	}
	// cat index.md: summaries by recency, sessions one line per path.
	rows = h.sql(`SELECT path, project, description, creation_date, last_update_date FROM "memory" WHERE path LIKE '/summaries/%' ORDER BY last_update_date DESC LIMIT 51`)
	if got := column(rows, "path"); !slices.Equal(got, []string{"/summaries/alice/s1.md", "/summaries/bob/s2.md"}) {
		t.Fatalf("index summaries: %v", got)
	}
	rows = h.sql(`SELECT path, MAX(description) AS description, MIN(creation_date) AS creation_date, MAX(last_update_date) AS last_update_date ` +
		`FROM "sessions" WHERE path LIKE '/sessions/%' GROUP BY path ORDER BY MAX(last_update_date) DESC LIMIT 51`)
	if got := column(rows, "path"); !slices.Equal(got, []string{sess, "/sessions/bob/bob_cairn_default_s2.jsonl"}) || rows[1]["description"] != "UserPromptSubmit" || rows[0]["creation_date"] != "2026-11-26T10:00:01.000Z" {
		t.Fatalf("index sessions: %v", rows)
	}
	// The virtual filesystem's bootstrap and its reads.
	if rows := h.sql(`SELECT path, size_bytes, mime_type FROM "memory" ORDER BY path`); len(rows) != 2 || rows[0]["mime_type"] != "text/markdown" {
		t.Fatalf("fs bootstrap: %v", rows)
	}
	rows = h.sql(`SELECT path, MAX(size_bytes) as total_size FROM "sessions" GROUP BY path ORDER BY path`)
	if len(rows) != 2 || num(t, rows[1]["total_size"]) != 40 {
		t.Fatalf("fs sessions bootstrap: %v", rows)
	}
	if rows := h.sql(`SELECT message FROM "sessions" WHERE path = '` + sess + `' ORDER BY creation_date ASC`); len(rows) != 3 {
		t.Fatalf("fs read session: %v", rows)
	}
	if rows := h.sql(`SELECT path, message, creation_date FROM "sessions" WHERE path IN ('` + sess + `') ORDER BY path, creation_date ASC`); len(rows) != 3 {
		t.Fatalf("fs prefetch: %v", rows)
	}
	// echo >> and rm on a memory file.
	h.sql(`INSERT INTO "memory" (id, path, filename, summary, summary_embedding, mime_type, size_bytes, creation_date, last_update_date, project, description) ` +
		`VALUES ('n1', '/notes/todo.md', 'todo.md', E'- fix grep\n', NULL, 'text/markdown', 11, '2026-11-26T11:00:00.000Z', '2026-11-26T11:00:00.000Z', 'cairn', 'todo')`)
	h.sql(`UPDATE "memory" SET summary = summary || E'- ship it\n', size_bytes = size_bytes + 10, last_update_date = '2026-11-26T11:01:00.000Z' WHERE path = '/notes/todo.md'`)
	if rows := h.sql(`SELECT summary, size_bytes FROM "memory" WHERE path = '/notes/todo.md' LIMIT 1`); len(rows) != 1 || rows[0]["summary"] != "- fix grep\n- ship it\n" || num(t, rows[0]["size_bytes"]) != 21 {
		t.Fatalf("append: %v", rows)
	}
	h.sql(`DELETE FROM "memory" WHERE path IN ('/notes/todo.md')`)
	if rows := h.sql(`SELECT summary FROM "memory" WHERE path = '/notes/todo.md' LIMIT 1`); len(rows) != 0 {
		t.Fatalf("rm: %v", rows)
	}

	// The MCP server's tools: hivemind_read and hivemind_index.
	rows = h.sql(`SELECT path, message::text AS content FROM "sessions" WHERE path = '` + sess + `' LIMIT 200`)
	if len(rows) != 3 {
		t.Fatalf("hivemind_read session: %v", rows)
	}
	rows = h.sql(`SELECT path, summary::text AS content FROM "memory" WHERE path = '/summaries/bob/s2.md' LIMIT 200`)
	if len(rows) != 1 || !strings.Contains(rows[0]["content"].(string), "ef_search") {
		t.Fatalf("hivemind_read summary: %v", rows)
	}
	rows = h.sql(`SELECT path, description, project, last_update_date FROM "memory" WHERE path LIKE '/summaries/bob/%' ESCAPE '\' ORDER BY last_update_date DESC LIMIT 50`)
	if got := column(rows, "description"); !slices.Equal(got, []string{"hnsw tuning"}) {
		t.Fatalf("hivemind_index prefix: %v", rows)
	}
	// A prefix of '%' is escaped by the plugin: it matches nothing.
	if rows := h.sql(`SELECT path, description, project, last_update_date FROM "memory" WHERE path LIKE '\%%' ESCAPE '\' ORDER BY last_update_date DESC LIMIT 50`); len(rows) != 0 {
		t.Fatalf("escaped prefix matched: %v", rows)
	}
	// Codex's summary listing.
	if rows := h.sql(`SELECT path, project, description, creation_date FROM "memory" WHERE path LIKE '/summaries/%' ORDER BY creation_date DESC`); len(rows) != 2 {
		t.Fatalf("codex listing: %v", rows)
	}

	// hivemind session prune: list a user's sessions, delete one.
	rows = h.sql(`SELECT path, COUNT(*) as cnt, MIN(creation_date) as first_event, MAX(creation_date) as last_event, MAX(project) as project ` +
		`FROM "sessions" WHERE author = 'bob' GROUP BY path ORDER BY first_event DESC`)
	if len(rows) != 1 || num(t, rows[0]["cnt"]) != 2 || rows[0]["last_event"] != "2026-11-25T09:00:05.000Z" {
		t.Fatalf("prune listing: %v", rows)
	}
	h.sql(`DELETE FROM "sessions" WHERE path = '/sessions/bob/bob_cairn_default_s2.jsonl'`)
	h.sql(`DELETE FROM "memory" WHERE path = '/summaries/bob/s2.md'`)
	if rows := h.sql(`SELECT path FROM "sessions" WHERE author = 'bob'`); len(rows) != 0 {
		t.Fatalf("after prune: %v", rows)
	}
}

// cmpFloat orders a and b.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestHivemindSkills replays the skills flows: a pull before any skill
// exists (the missing table is an empty pull), the first skill's INSERT
// creating the table, a table from before the contributors column (the
// INSERT's error names the column, the plugin adds it and retries), new
// versions, and the pull and mining queries.
func TestHivemindSkills(t *testing.T) {
	h := startHivemind(t, "hm-t0ken")
	h.sql(hmSessionsTable)

	pull := `SELECT name, project, project_key, body, version, source_agent, scope, author, contributors, description, trigger_text, source_sessions, install, created_at, updated_at ` +
		`FROM "skills" WHERE author IN ('alice', 'bob') ORDER BY project_key ASC, name ASC, version DESC`
	status, body := h.sqlStatus(pull)
	if status == 200 || !regexp.MustCompile(`relation .* does not exist`).MatchString(body) || regexp.MustCompile(`(?i)\bcolumn\b`).MatchString(body) {
		t.Fatalf("pull before the table exists: %d %s", status, body)
	}

	insert := func(id, name, author, contributors string, version int) string {
		return `INSERT INTO "skills" (id, name, project, project_key, local_path, install, source_sessions, source_agent, scope, author, contributors, description, trigger_text, body, version, created_at, updated_at) VALUES (` +
			fmt.Sprintf(`'%s', '%s', 'cairn', 'github.com/cairn-db/cairn', '.claude/skills/%s', 'project', '["s1"]', 'claude_code', 'me', '%s', '%s', 'Run the logic tests', 'when a .test file changes', E'---\nname: %s\n---\nRun go test ./cmd/cairn -run TestLogic\n', %d, '2026-11-26T12:00:00.000Z', '2026-11-26T12:0%d:00.000Z')`,
				id, name, name, author, contributors, name, version, version)
	}
	first := insert("k1", "logic-tests", "alice", `["alice"]`, 1)
	status, body = h.sqlStatus(first)
	if status == 200 || !regexp.MustCompile(`relation .* does not exist`).MatchString(body) {
		t.Fatalf("insert before the table exists: %d %s", status, body)
	}
	h.sql(`CREATE TABLE IF NOT EXISTS "skills" (` + fmt.Sprintf(hmSkillsColumns, `contributors TEXT NOT NULL DEFAULT '[]', `) + `) USING deeplake`)
	h.sql(first)
	for i := 0; i < 2; i++ {
		h.sql(`CREATE INDEX IF NOT EXISTS "idx_skills_project_key_name" ON "skills" ("project_key", "name")`)
	}
	h.sql(insert("k2", "logic-tests", "alice", `["alice","bob"]`, 2))
	h.sql(insert("k3", "bench-notes", "bob", `["bob"]`, 1))

	rows := h.sql(pull)
	if got := column(rows, "name"); !slices.Equal(got, []string{"bench-notes", "logic-tests", "logic-tests"}) {
		t.Fatalf("pull: %v", rows)
	}
	if num(t, rows[1]["version"]) != 2 || rows[1]["contributors"] != `["alice","bob"]` || !strings.HasPrefix(rows[1]["body"].(string), "---\nname: logic-tests\n") {
		t.Fatalf("pull's newest version: %v", rows[1])
	}
	rows = h.sql(`SELECT name, project, project_key, body, version, source_agent, scope, author, contributors, description, trigger_text, source_sessions, install, created_at, updated_at ` +
		`FROM "skills" WHERE author IN ('alice') AND name = 'logic-tests' ORDER BY project_key ASC, name ASC, version DESC`)
	if len(rows) != 2 {
		t.Fatalf("pull one skill: %v", rows)
	}

	// A skills table from before the contributors column.
	h.ws = "legacy"
	h.sql(`CREATE TABLE IF NOT EXISTS "skills" (` + fmt.Sprintf(hmSkillsColumns, "") + `) USING deeplake`)
	legacy := insert("k9", "old-skill", "carol", `["carol"]`, 1)
	status, body = h.sqlStatus(legacy)
	if status == 200 || !regexp.MustCompile(`(?i)contributors.*(does not exist|not found|unknown)`).MatchString(body) {
		t.Fatalf("insert into a legacy table: %d %s", status, body)
	}
	status, body = h.sqlStatus(pull)
	if status == 200 || !regexp.MustCompile(`(?i)contributors.*(does not exist|not found|unknown)`).MatchString(body) {
		t.Fatalf("pull from a legacy table: %d %s", status, body)
	}
	h.sql(`ALTER TABLE "skills" ADD COLUMN IF NOT EXISTS contributors TEXT NOT NULL DEFAULT '[]'`)
	h.sql(`ALTER TABLE "skills" ADD COLUMN IF NOT EXISTS contributors TEXT NOT NULL DEFAULT '[]'`)
	h.sql(legacy)
	if rows := h.sql(pull); len(rows) != 0 {
		t.Fatalf("pull of other authors in the legacy workspace: %v", rows)
	}

	// The skillify worker mines a project's recent sessions.
	h.ws = "default"
	for i, ev := range []string{`{"type":"user_message","content":"run the logic tests"}`, `{"type":"assistant_message","content":"go test ./cmd/cairn -run TestLogic"}`} {
		h.sql(hmSessionInsert(fmt.Sprintf("m%d", i), "/sessions/alice/alice_cairn_default_s7.jsonl", ev, "NULL", fmt.Sprintf("2026-11-26T12:0%d:00.000Z", i)))
	}
	rows = h.sql(`SELECT path, MAX(creation_date) AS last_msg FROM "sessions" WHERE project = 'cairn' AND author = 'alice' AND creation_date > '2026-11-01T00:00:00.000Z' GROUP BY path ORDER BY last_msg DESC LIMIT 20`)
	if len(rows) != 1 || rows[0]["last_msg"] != "2026-11-26T12:01:00.000Z" {
		t.Fatalf("skillify candidates: %v", rows)
	}
	rows = h.sql(`SELECT message, creation_date, agent FROM "sessions" WHERE path = '/sessions/alice/alice_cairn_default_s7.jsonl' ORDER BY creation_date ASC`)
	if len(rows) != 2 || rows[0]["agent"] != "claude_code" || rows[1]["message"].(map[string]any)["type"] != "assistant_message" {
		t.Fatalf("skillify session rows: %v", rows)
	}
}

// TestHivemindAccount calls the account endpoints as Hivemind does on
// session start (notifications, org stats) and in its org, workspace and
// members commands, with and without the token, and checks what it
// would make of each answer.
func TestHivemindAccount(t *testing.T) {
	h := startHivemind(t, "hm-t0ken")
	unauthorized := `{"error": "missing or invalid bearer token", "code": "UNAUTHORIZED", "sqlstate": "28000"}`
	paths := []string{"/me", "/me/notifications", "/me/hivemind-stats", "/organizations", "/organizations/cairn/members", "/workspaces"}
	for _, tok := range []string{"", "wrong", "hm-t0ken2"} {
		h.token = tok
		for _, p := range paths {
			h.expect("GET", p, nil, 401, unauthorized)
		}
		h.expect("POST", "/users/me/tokens", `{"name": "x", "duration": 10, "organization_id": "cairn"}`, 401, unauthorized)
	}
	h.token = "hm-t0ken"

	// SessionStart: no pushed notifications, an org with no usage yet
	// (Hivemind shows its welcome banner for that).
	h.expect("GET", "/me/notifications", nil, 200, `{"notifications": []}`)
	h.expect("GET", "/me/hivemind-stats", nil, 200, `{"org": {"sessions_count": 0, "memory_recall_count": 0, "memory_search_bytes": 0},
		"user": {"sessions_count": 0, "memory_recall_count": 0, "memory_search_bytes": 0}}`)
	h.expect("GET", "/me", nil, 200, `{"id": "cairn", "name": "cairn"}`)
	h.expect("GET", "/organizations", nil, 200, `[{"id": "cairn", "name": "cairn"}]`)
	h.expect("GET", "/organizations/cairn/members", nil, 200, `{"members": [{"user_id": "cairn", "name": "cairn", "role": "ADMIN"}]}`)
	h.expect("GET", "/organizations/acme/members", nil, 404, `{"error": "organization \"acme\" does not exist", "code": "NOT_FOUND", "sqlstate": "42704", "hint": "cairn has one organization, \"cairn\"."}`)

	// Workspaces: "default" before it has a table, then every schema.
	h.expect("GET", "/workspaces", nil, 200, `{"data": [{"id": "default", "name": "default"}, {"id": "public", "name": "public"}]}`)
	h.ws = "team_b"
	h.sql(hmMemoryTable)
	h.ws = "default"
	h.sql(hmSessionsTable)
	h.expect("GET", "/workspaces", nil, 200, `{"data": [{"id": "default", "name": "default"}, {"id": "public", "name": "public"}, {"id": "team_b", "name": "team_b"}]}`)
	// An unknown workspace has no tables, and its queries fail as
	// Hivemind's missing-table check expects.
	h.expect("GET", "/workspaces/nowhere/tables", nil, 200, `{"tables": []}`)
	h.ws = "nowhere"
	if status, body := h.sqlStatus(`SELECT path FROM "memory" WHERE path = '/index.md' LIMIT 1`); status != 400 || !regexp.MustCompile(`relation .* does not exist`).MatchString(body) {
		t.Fatalf("query in an unknown workspace: %d %s", status, body)
	}
	h.ws = "default"

	// What cairn cannot do fails with 501 and says what to do instead.
	for _, req := range [][3]string{
		{"POST", "/auth/device/code", ""},
		{"POST", "/auth/device/token", `{"device_code": "abc"}`},
		{"POST", "/users/me/tokens", `{"name": "deeplake-plugin", "duration": 31536000, "organization_id": "cairn"}`},
		{"POST", "/organizations/cairn/members/invite", `{"username": "bob", "access_mode": "WRITE"}`},
		{"DELETE", "/organizations/cairn/members/bob", ""},
	} {
		var body any
		if req[2] != "" {
			body = req[2]
		}
		status, _, out := h.do(req[0], req[1], body)
		var e struct{ Error, Code, SQLState, Hint string }
		if status != 501 || json.Unmarshal(out, &e) != nil || e.SQLState != "0A000" || e.Code != "NOT_SUPPORTED" || !strings.Contains(e.Hint, "--http-token") {
			t.Errorf("%s %s: %d %s", req[0], req[1], status, out)
		}
	}
	// The device flow needs no token.
	h.token = ""
	if status, _, out := h.do("POST", "/auth/device/code", nil); status != 501 {
		t.Errorf("device code without a token: %d %s", status, out)
	}
	h.token = "hm-t0ken"

	// Wrong methods, bad JSON and wrong types, as Hivemind's error path
	// reads them.
	for _, req := range [][2]string{{"POST", "/me/notifications"}, {"DELETE", "/workspaces"}, {"PUT", "/me/hivemind-stats"}} {
		if status, _, out := h.do(req[0], req[1], nil); status != 405 {
			t.Errorf("%s %s: %d %s", req[0], req[1], status, out)
		}
	}
	for _, body := range []string{`{"query": `, `{"query": 5}`, `{"query": ["SELECT 1"]}`, `[]`, ``} {
		status, _, out := h.do("POST", "/workspaces/default/tables/query", body)
		var e struct{ Error, Code, SQLState string }
		if status != 400 || json.Unmarshal(out, &e) != nil || e.Code != "BAD_REQUEST" || e.Error == "" {
			t.Errorf("body %q: %d %s", body, status, out)
		}
	}
}
