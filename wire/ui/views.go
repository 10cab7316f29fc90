package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/wire/mcp"
)

// Bounds on what a page shows.
const (
	tableRows   = 100 // rows on a table's page
	searchHits  = 20  // hits of a search
	traceEvents = 50  // traces on the timeline (mcp's most)
	cellRunes   = 120 // a cell's text in a list
)

// userSchemas leaves the system's schemas out of the listings
// (information_schema and those named pg_*, which PostgreSQL reserves),
// and the workspaces the token's role may not use.
const userSchemas = "n.nspname <> 'information_schema' AND NOT starts_with(n.nspname, 'pg_') AND has_schema_privilege(n.oid, 'USAGE')"

// cell is one value as a page shows it.
type cell struct {
	Text string
	Null bool
}

// value is a result value for display: strings without their quotes,
// other JSON as written, cut to cellRunes runes unless full.
func value(v json.RawMessage, full bool) cell {
	if len(v) == 0 || string(v) == "null" {
		return cell{Null: true}
	}
	text := string(v)
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		text = s
	}
	if r := []rune(text); !full && len(r) > cellRunes {
		text = string(r[:cellRunes]) + "…"
	}
	return cell{Text: text}
}

// number reads a numeric result value, 0 for NULL.
func number(v json.RawMessage) float64 {
	f, _ := strconv.ParseFloat(string(v), 64)
	return f
}

// overviewData is the overview's: every workspace (schema) with its
// tables.
type overviewData struct {
	Workspaces []workspace
}

type workspace struct {
	Name   string
	Tables []tableSummary
}

type tableSummary struct {
	Name, Size, URL string
	Rows, Bytes     int64
}

// overview lists the workspaces and their tables with row counts (live
// tuples as pg_stat_user_tables counts them) and sizes on disk
// (pg_total_relation_size).
func (u *explorer) overview(w http.ResponseWriter, r *http.Request, p *page) {
	ctx := r.Context()
	schemas, err := u.db.Query(ctx, true, `SELECT n.nspname FROM pg_namespace n WHERE `+userSchemas+` ORDER BY 1`)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	tables, err := u.db.Query(ctx, true, `SELECT n.nspname, c.relname, coalesce(s.n_live_tup, 0), pg_total_relation_size(c.oid), pg_size_pretty(pg_total_relation_size(c.oid))
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.relkind = 'r' AND `+userSchemas+` ORDER BY 1, 2`)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	d := overviewData{}
	for _, row := range schemas.Values {
		d.Workspaces = append(d.Workspaces, workspace{Name: value(row[0], true).Text})
	}
	for _, row := range tables.Values {
		ws, name := value(row[0], true).Text, value(row[1], true).Text
		i := slices.IndexFunc(d.Workspaces, func(w workspace) bool { return w.Name == ws })
		if i < 0 {
			continue
		}
		d.Workspaces[i].Tables = append(d.Workspaces[i].Tables, tableSummary{Name: name, URL: tableURL(ws, name),
			Rows: int64(number(row[2])), Bytes: int64(number(row[3])), Size: value(row[4], true).Text})
	}
	p.Title, p.Data = "Workspaces", d
	u.render(w, r, http.StatusOK, "overview", p)
}

func tableURL(schema, table string) string {
	return "/ui/tables/" + url.PathEscape(schema) + "/" + url.PathEscape(table)
}

// column is a table's column and what the explorer can do with it.
type column struct {
	Name, Type string
	Text       bool // text or varchar: BM25 can rank it
	Vector     bool // float4[], float8[] or vector: an embedding
	JSON       bool // json or jsonb: pretty-printed in the row view
}

// tableInfo describes a table.
type tableInfo struct {
	Schema, Name string
	Columns      []column
	Key          []string // the primary key's columns, in column order
}

func (t *tableInfo) qualified() string { return ident.Quote(t.Schema) + "." + ident.Quote(t.Name) }

// describe reads a table's columns and primary key from the catalog; a
// table that does not exist is a 404.
func (u *explorer) describe(ctx context.Context, schema, table string) (*tableInfo, error) {
	cols, err := u.db.Query(ctx, true, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid
WHERE n.nspname = $1::text AND c.relname = $2::text AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, schema, table)
	if err != nil {
		return nil, err
	}
	if len(cols.Values) == 0 {
		return nil, errNotFound("relation %s does not exist", ident.Quote(schema)+"."+ident.Quote(table))
	}
	t := &tableInfo{Schema: schema, Name: table}
	for _, row := range cols.Values {
		typ := value(row[2], true).Text
		t.Columns = append(t.Columns, column{Name: value(row[0], true).Text, Type: value(row[1], true).Text,
			Text:   typ == "text" || typ == "varchar",
			Vector: typ == "_float4" || typ == "_float8" || typ == "vector",
			JSON:   typ == "json" || typ == "jsonb"})
	}
	keys, err := u.db.Query(ctx, true, `SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
WHERE i.indisprimary AND n.nspname = $1::text AND c.relname = $2::text ORDER BY a.attnum`, schema, table)
	if err != nil {
		return nil, err
	}
	for _, row := range keys.Values {
		t.Key = append(t.Key, value(row[0], true).Text)
	}
	return t, nil
}

// rowURL is the row view's address of a row of t whose values are vals
// (in t's column order); "" when t has no primary key to name it by.
func (t *tableInfo) rowURL(vals []json.RawMessage) string {
	if len(t.Key) == 0 {
		return ""
	}
	q := url.Values{}
	for i, c := range t.Columns {
		if slices.Contains(t.Key, c.Name) {
			q.Set(c.Name, value(vals[i], true).Text)
		}
	}
	return tableURL(t.Schema, t.Name) + "/row?" + q.Encode()
}

// tableData is a table page's: its columns, a search form, and either
// its first rows or the hits of a search.
type tableData struct {
	Table         *tableInfo
	URL           string
	TextColumns   []string
	VectorColumns []string
	Query         string
	TextColumn    string
	VectorColumn  string // "" = BM25 alone
	Rows          []listedRow
	Searched      bool
	Mode, Note    string
	Hits          []hit
}

// listedRow is a row in a list: its cells and its row view's address.
type listedRow struct {
	URL   string
	Cells []cell
}

// hit is a row a search found, with its score and the parts of it.
type hit struct {
	listedRow
	Text                   cell
	Score, Keyword, Vector float64
	NoVector               bool // a keyword search, or a row without an embedding
}

// noVector is the search form's choice of no embedding column.
const noVector = "-"

// table shows a table: its columns and first rows, or with ?q= the
// hits of a recall over it. The text column BM25 ranks (?text=) and the
// embedding column (?vector=) default to the columns named text and
// embedding, or else the first of their types.
func (u *explorer) table(w http.ResponseWriter, r *http.Request, p *page) {
	ctx := r.Context()
	t, err := u.describe(ctx, r.PathValue("schema"), r.PathValue("table"))
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	d := tableData{Table: t, URL: tableURL(t.Schema, t.Name), Query: strings.TrimSpace(r.FormValue("q"))}
	for _, c := range t.Columns {
		if c.Text {
			d.TextColumns = append(d.TextColumns, c.Name)
		}
		if c.Vector {
			d.VectorColumns = append(d.VectorColumns, c.Name)
		}
	}
	text, vector := r.FormValue("text"), r.FormValue("vector")
	if text != "" && !slices.Contains(d.TextColumns, text) || vector != "" && vector != noVector && !slices.Contains(d.VectorColumns, vector) {
		u.fail(w, r, badRequest("table %s has no text column %q or embedding column %q to search", t.qualified(), text, vector), 0)
		return
	}
	d.TextColumn = pick(text, "text", d.TextColumns)
	if vector != noVector {
		d.VectorColumn = pick(vector, "embedding", d.VectorColumns)
	}
	p.Title = t.Schema + "." + t.Name
	if d.Query == "" {
		rows, err := u.db.Query(ctx, true, `SELECT * FROM `+t.qualified()+orderByKey(t)+fmt.Sprintf(` LIMIT %d`, tableRows))
		if err != nil {
			u.fail(w, r, err, 0)
			return
		}
		for _, row := range rows.Values {
			lr := listedRow{URL: t.rowURL(row)}
			for _, v := range row {
				lr.Cells = append(lr.Cells, value(v, false))
			}
			d.Rows = append(d.Rows, lr)
		}
		p.Data = d
		u.render(w, r, http.StatusOK, "table", p)
		return
	}
	if err := u.search(ctx, t, &d); err != nil {
		u.fail(w, r, err, 0)
		return
	}
	p.Data = d
	u.render(w, r, http.StatusOK, "table", p)
}

// pick is the column asked for if any, else the one of cols named
// preferred, else the first of cols; "" when cols is empty.
func pick(asked, preferred string, cols []string) string {
	switch {
	case asked != "":
		return asked
	case slices.Contains(cols, preferred):
		return preferred
	case len(cols) > 0:
		return cols[0]
	}
	return ""
}

func orderByKey(t *tableInfo) string {
	if len(t.Key) == 0 {
		return ""
	}
	keys := make([]string, len(t.Key))
	for i, k := range t.Key {
		keys[i] = ident.Quote(k)
	}
	return " ORDER BY " + strings.Join(keys, ", ")
}

// search runs d.Query as a recall over t, as memory_recall does
// (mcp.Store.Recall) but over any table: hybrid, the fusion of the
// embedding's cosine to the query's and BM25 (cairn's hybrid <#>), when
// an embedding column is chosen and the server embeds text; BM25 over
// the text column alone otherwise. Each hit reports both parts.
func (u *explorer) search(ctx context.Context, t *tableInfo, d *tableData) error {
	if d.TextColumn == "" {
		return pgerr.New(pgerrcode.FeatureNotSupported, "table %s has no text column to search", t.qualified())
	}
	d.Searched = true
	embeds := false
	if d.VectorColumn != "" {
		rows, err := u.db.Query(ctx, true, "SELECT cairn_embedding_enabled()")
		if err != nil {
			return err
		}
		embeds = len(rows.Values) == 1 && string(rows.Values[0][0]) == "true"
	}
	text := ident.Quote(d.TextColumn)
	keyword := text + " <#> $1::text"
	score, vector, match := keyword, "NULL::float8", keyword+" > 0"
	d.Mode = "keyword"
	switch {
	case d.VectorColumn == "" && len(d.VectorColumns) == 0:
		d.Note = "the table has no embedding column: ranked by BM25 keyword score alone"
	case d.VectorColumn == "":
		d.Note = "no embedding column chosen: ranked by BM25 keyword score alone"
	case !embeds:
		d.Note = mcp.KeywordNote
	default:
		vec := ident.Quote(d.VectorColumn)
		score = fmt.Sprintf("(%s, %s) <#> deeplake_hybrid_record(embed($1::text), $1::text, %g, %g)", vec, text, mcp.HybridVectorWeight, 1-mcp.HybridVectorWeight)
		vector, match = vec+" <#> embed($1::text)", "true"
		d.Mode = "hybrid"
		d.Note = fmt.Sprintf("the cosine similarity of %s to the query's embedding (weight %g) fused with the BM25 score of %s (weight %g)",
			d.VectorColumn, mcp.HybridVectorWeight, d.TextColumn, 1-mcp.HybridVectorWeight)
	}
	n := len(t.Columns)
	rows, err := u.db.Query(ctx, true, fmt.Sprintf(`SELECT *, %s, %s, %s FROM %s WHERE %s ORDER BY %d DESC NULLS LAST LIMIT %d`,
		score, keyword, vector, t.qualified(), match, n+1, searchHits), d.Query)
	if err != nil {
		return err
	}
	ti := slices.IndexFunc(t.Columns, func(c column) bool { return c.Name == d.TextColumn })
	for _, row := range rows.Values {
		h := hit{listedRow: listedRow{URL: t.rowURL(row[:n])}, Text: value(row[ti], false),
			Score: number(row[n]), Keyword: number(row[n+1]), Vector: number(row[n+2]), NoVector: value(row[n+2], false).Null}
		for _, v := range row[:n] {
			h.Cells = append(h.Cells, value(v, false))
		}
		d.Hits = append(d.Hits, h)
	}
	return nil
}

// rowData is the row view's.
type rowData struct {
	Table  *tableInfo
	URL    string
	Fields []field
}

type field struct {
	Column column
	Value  cell
}

// row shows one row of a table with a primary key, named by its key
// columns' values (?col=value, compared as text); JSON values are
// pretty-printed.
func (u *explorer) row(w http.ResponseWriter, r *http.Request, p *page) {
	ctx := r.Context()
	t, err := u.describe(ctx, r.PathValue("schema"), r.PathValue("table"))
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	if len(t.Key) == 0 {
		u.fail(w, r, pgerr.New(pgerrcode.FeatureNotSupported, "table %s has no primary key to name a row by", t.qualified()), 0)
		return
	}
	var conds []string
	var args []any
	q := r.URL.Query()
	for _, k := range t.Key {
		if !q.Has(k) {
			u.fail(w, r, badRequest("the row's key column %s has no value: want ?%s=...", ident.Quote(k), url.QueryEscape(k)), 0)
			return
		}
		args = append(args, q.Get(k))
		conds = append(conds, fmt.Sprintf("%s::text = $%d::text", ident.Quote(k), len(args)))
	}
	rows, err := u.db.Query(ctx, true, `SELECT * FROM `+t.qualified()+` WHERE `+strings.Join(conds, " AND "), args...)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	if len(rows.Values) == 0 {
		u.fail(w, r, pgerr.New(pgerrcode.NoDataFound, "table %s has no row %s", t.qualified(), r.URL.RawQuery), http.StatusNotFound)
		return
	}
	d := rowData{Table: t, URL: tableURL(t.Schema, t.Name)}
	for i, c := range t.Columns {
		v := rows.Values[0][i]
		f := field{Column: c, Value: value(v, true)}
		var b bytes.Buffer
		if c.JSON && !f.Value.Null && json.Indent(&b, v, "", "  ") == nil {
			f.Value.Text = b.String()
		}
		d.Fields = append(d.Fields, f)
	}
	p.Title, p.Data = t.Schema+"."+t.Name+" row", d
	u.render(w, r, http.StatusOK, "row", p)
}

// tracesData is the timeline's.
type tracesData struct {
	Workspaces []string // those with a traces table
	Workspace  string
	Agents     []agentSummary
	Agent      string
	Traces     []mcp.Trace
}

type agentSummary struct {
	Name, Last string
	Count      int64
}

// traces shows the timeline of an agent's traces (the traces table of
// `cairn trace store` and the trace_store tool), newest first: ?ws= the
// workspace, ?agent= the agent (default the one that acted last).
func (u *explorer) traces(w http.ResponseWriter, r *http.Request, p *page) {
	ctx := r.Context()
	wss, err := u.db.Query(ctx, true, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = 'traces' AND c.relkind = 'r' AND `+userSchemas+` ORDER BY 1`)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	d := tracesData{Workspace: r.FormValue("ws"), Agent: r.FormValue("agent")}
	for _, row := range wss.Values {
		d.Workspaces = append(d.Workspaces, value(row[0], true).Text)
	}
	if d.Workspace == "" && len(d.Workspaces) > 0 {
		d.Workspace = d.Workspaces[0]
		if slices.Contains(d.Workspaces, mcp.DefaultWorkspace) {
			d.Workspace = mcp.DefaultWorkspace
		}
	}
	p.Title, p.Data = "Traces", &d
	if d.Workspace == "" {
		u.render(w, r, http.StatusOK, "traces", p)
		return
	}
	if !slices.Contains(d.Workspaces, d.Workspace) {
		u.fail(w, r, errNotFound("workspace %s has no traces table", ident.Quote(d.Workspace)), 0)
		return
	}
	agents, err := u.db.Query(ctx, true, `SELECT agent, count(*), max(created_at)::text FROM `+ident.Quote(d.Workspace)+`.traces GROUP BY agent ORDER BY 3 DESC, 1`)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	for _, row := range agents.Values {
		d.Agents = append(d.Agents, agentSummary{Name: value(row[0], true).Text, Count: int64(number(row[1])), Last: value(row[2], true).Text})
	}
	if d.Agent == "" && len(d.Agents) > 0 {
		d.Agent = d.Agents[0].Name
	}
	if d.Agent != "" {
		store := &mcp.Store{DB: u.db, Workspace: d.Workspace}
		res, err := store.TraceSearch(ctx, mcp.TraceSearchInput{Agent: d.Agent, Limit: traceEvents})
		if err != nil {
			u.fail(w, r, err, 0)
			return
		}
		d.Traces = res.Traces
	}
	u.render(w, r, http.StatusOK, "traces", p)
}

// activityData is the running queries' page.
type activityData struct {
	Sessions []activeSession
	Columns  []string
	Done     string // what the last button did
}

// activeSession is a row of pg_stat_activity.
type activeSession struct {
	PID   string
	Cells []cell
}

// activityColumns are the pg_stat_activity columns the page shows; pid
// first.
var activityColumns = []string{"pid", "usename", "application_name", "client_addr", "backend_start", "query_start", "state", "wait_event_type", "wait_event", "query"}

// activity lists the sessions (pg_stat_activity), each with a cancel
// and a terminate button.
func (u *explorer) activity(w http.ResponseWriter, r *http.Request, p *page) {
	rows, err := u.db.Query(r.Context(), true, `SELECT `+strings.Join(activityColumns, ", ")+` FROM pg_stat_activity ORDER BY query_start NULLS LAST, pid`)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	d := activityData{Columns: activityColumns, Done: r.FormValue("done")}
	for _, row := range rows.Values {
		s := activeSession{PID: value(row[0], true).Text}
		for _, v := range row {
			s.Cells = append(s.Cells, value(v, false))
		}
		d.Sessions = append(d.Sessions, s)
	}
	p.Title, p.Data = "Running queries", d
	u.render(w, r, http.StatusOK, "activity", p)
}

// signal answers the buttons of the activity page: POST
// /ui/activity/{pid}/cancel runs pg_cancel_backend(pid), .../terminate
// pg_terminate_backend(pid); then back to the list, which says whether
// the session was signalled.
func (u *explorer) signal(w http.ResponseWriter, r *http.Request, p *page) {
	fn := map[string]string{"cancel": "pg_cancel_backend", "terminate": "pg_terminate_backend"}[r.PathValue("action")]
	pid, err := strconv.ParseInt(r.PathValue("pid"), 10, 32)
	if fn == "" || err != nil {
		u.fail(w, r, pgerr.New(pgerrcode.UndefinedObject, "no page %s", r.URL.Path), http.StatusNotFound)
		return
	}
	rows, err := u.db.Query(r.Context(), false, `SELECT `+fn+`($1::int4)`, pid)
	if err != nil {
		u.fail(w, r, err, 0)
		return
	}
	done := fmt.Sprintf("%s(%d) returned %s", fn, pid, value(rows.Values[0][0], true).Text)
	http.Redirect(w, r, "/ui/activity?"+url.Values{"done": {done}}.Encode(), http.StatusSeeOther)
}
