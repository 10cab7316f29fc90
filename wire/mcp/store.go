package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// DefaultWorkspace is the schema memories live in when none is named:
// where psql's unqualified names go, so the tables are one SELECT away.
const DefaultWorkspace = "public"

// Scopes are the scopes a memory may have: whose memory it is.
var Scopes = []string{"user", "agent", "project", "team"}

// Results are the outcomes a trace may record.
var Results = []string{"success", "failure"}

// Limits on what one call returns.
const (
	// HybridVectorWeight is the embedding's weight in a hybrid recall
	// (BM25's is the rest).
	HybridVectorWeight = 0.5
	defaultRecallLimit = 10
	maxRecallLimit     = 50
	defaultListLimit   = 50
	maxListLimit       = 200
	maxSQLRows         = 1000
	snippetRunes       = 200
)

// DefaultNearDuplicate is Store.NearDuplicate's default: the cosine
// similarity of two embeddings at or above which remember takes the new
// text for a restatement of a memory it has.
const DefaultNearDuplicate = 0.95

// KeywordNote is what recall and trace search say about their ranking
// while no embedding endpoint is configured.
const KeywordNote = "no embedding endpoint is configured: ranked by BM25 keyword score alone (vector_score is null)"

// ErrNotFound is returned when the memory asked for does not exist.
var ErrNotFound = errors.New("no such memory")

// badRefError is Read's error for a reference that cannot name a memory
// of this workspace (no id in it, or another workspace's URI): a resource
// read of such a URI is answered as not found, like a missing memory.
type badRefError struct{ msg string }

func (e *badRefError) Error() string { return e.msg }

// ConfirmError refuses a forget whose filter matches more than one
// memory without a confirmation.
type ConfirmError struct{ Matched int }

func (e *ConfirmError) Error() string {
	return fmt.Sprintf("the filter matches %d memories: nothing was deleted; repeat with confirm (--yes on the command line) to delete them all", e.Matched)
}

// Store is the memory of one workspace, a schema holding the tables
// memories and traces (created on the first write; see schemaObjects). It is
// safe for concurrent use when its DB is.
type Store struct {
	DB DB
	// Workspace is the schema ("" = DefaultWorkspace).
	Workspace string
	// NoRedact keeps secrets in what is stored; by default they are
	// replaced (redact) before anything is stored.
	NoRedact bool
	// NearDuplicate is the cosine similarity at or above which, when the
	// server embeds text, a memory whose embedding is that close to one
	// in the same scope and repo is a near-duplicate of it: Remember
	// returns the existing id and bumps its updated_at instead of adding
	// a copy. 0 means DefaultNearDuplicate; above 1 nothing is that
	// close, and only the same normalised text is a duplicate.
	NearDuplicate float64

	ready atomic.Bool // the tables exist
	// embeds is whether the server embeds text (embed() has an
	// endpoint): 0 not asked yet, embedsYes, embedsNo.
	embeds atomic.Int32
}

const (
	embedsYes = 1
	embedsNo  = 2
)

func (s *Store) workspace() string {
	if s.Workspace == "" {
		return DefaultWorkspace
	}
	return s.Workspace
}

func (s *Store) table(name string) string { return ident.Quote(s.workspace()) + "." + name }

// schemaObject is one object of a workspace's memory tables: its name in
// pg_class ("" for the schema itself) and the DDL that creates it.
type schemaObject struct {
	name, ddl string
}

// schemaObjects is the DDL of a workspace's memory tables, run on the
// first write for the objects missing (see ensure). They are plain tables
// anyone may query: text is what BM25 (text <#> 'query') ranks,
// embedding is filled once an embedding endpoint is configured,
// content_hash is the hash of the normalised text that keeps
// near-duplicates out, per scope and repo.
func schemaObjects(workspace string) []schemaObject {
	ws := ident.Quote(workspace)
	return []schemaObject{
		{"", "CREATE SCHEMA IF NOT EXISTS " + ws},
		{"memories", `CREATE TABLE IF NOT EXISTS ` + ws + `.memories (
  id           BIGSERIAL PRIMARY KEY,
  text         TEXT NOT NULL,
  kind         TEXT NOT NULL DEFAULT 'note',
  scope        TEXT NOT NULL DEFAULT 'project',
  tags         TEXT[] NOT NULL DEFAULT '{}',
  repo         TEXT NOT NULL DEFAULT '',
  metadata     JSONB NOT NULL DEFAULT '{}',
  embedding    FLOAT4[],
  content_hash TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
)`},
		{"memories_dedup", "CREATE UNIQUE INDEX IF NOT EXISTS memories_dedup ON " + ws + ".memories (scope, repo, content_hash)"},
		{"traces", `CREATE TABLE IF NOT EXISTS ` + ws + `.traces (
  id          BIGSERIAL PRIMARY KEY,
  agent       TEXT NOT NULL,
  action      TEXT NOT NULL,
  reasoning   TEXT NOT NULL DEFAULT '',
  result      TEXT NOT NULL,
  tool_output TEXT NOT NULL DEFAULT '',
  text        TEXT NOT NULL,
  tags        TEXT[] NOT NULL DEFAULT '{}',
  repo        TEXT NOT NULL DEFAULT '',
  metadata    JSONB NOT NULL DEFAULT '{}',
  embedding   FLOAT4[],
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
)`},
	}
}

// ensure creates the objects of the tables that do not exist, unless
// this store has seen them all. Only the missing ones: their DDL, IF NOT
// EXISTS or not, needs what PostgreSQL's does even when the object
// exists (CREATE on the database for the schema, CREATE on the schema for
// a table, the table's ownership for its index), so a role that may only
// write the rows of another role's tables could not write them at all.
func (s *Store) ensure(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	rows, err := s.DB.Query(ctx, true, `SELECT '' FROM pg_catalog.pg_namespace WHERE nspname = $1
UNION ALL SELECT c.relname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`, s.workspace())
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, row := range rows.Values {
		var name string
		if err := scan(row, &name); err != nil {
			return err
		}
		exists[name] = true
	}
	for _, o := range schemaObjects(s.workspace()) {
		if exists[o.name] {
			continue
		}
		if _, err := s.DB.Query(ctx, false, o.ddl); err != nil {
			return err
		}
	}
	s.ready.Store(true)
	return nil
}

// write runs a statement that needs the tables, creating them first (and
// again, should they have been dropped since).
func (s *Store) write(ctx context.Context, sql string, args ...any) (*Rows, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	rows, err := s.DB.Query(ctx, false, sql, args...)
	if missingTable(err) {
		s.ready.Store(false)
		if err := s.ensure(ctx); err != nil {
			return nil, err
		}
		rows, err = s.DB.Query(ctx, false, sql, args...)
	}
	return rows, err
}

// read runs a statement over the tables; before the first write there
// are none, which reads as no rows.
func (s *Store) read(ctx context.Context, sql string, args ...any) (*Rows, error) {
	rows, err := s.DB.Query(ctx, false, sql, args...)
	if missingTable(err) {
		return &Rows{}, nil
	}
	return rows, err
}

// missingTable reports whether err says a table or schema does not exist.
func missingTable(err error) bool {
	code := sqlState(err)
	return code == pgerrcode.UndefinedTable || code == pgerrcode.InvalidSchemaName
}

// sqlState is the SQLSTATE of an error from either DB: a server error
// over pgx or a session's error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return pgerr.Code(err)
}

// Memory is one stored memory.
type Memory struct {
	ID        int64          `json:"id"`
	Path      string         `json:"path" jsonschema:"scope/kind/id: what memory_read takes, and what memory_list's prefix filters"`
	URI       string         `json:"uri" jsonschema:"the memory as an MCP resource: cairn://<workspace>/<path>"`
	Text      string         `json:"text"`
	Kind      string         `json:"kind"`
	Scope     string         `json:"scope"`
	Tags      []string       `json:"tags"`
	Repo      string         `json:"repo,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// memoryColumns are the columns scanMemory reads, in its order.
const memoryColumns = "id, text, kind, scope, tags, repo, metadata::text, created_at, updated_at"

// scanMemory decodes a row of memoryColumns followed by extra columns.
func (s *Store) scanMemory(row []json.RawMessage, extra ...any) (Memory, error) {
	var m Memory
	var meta string
	dst := append([]any{&m.ID, &m.Text, &m.Kind, &m.Scope, &m.Tags, &m.Repo, &meta, &m.CreatedAt, &m.UpdatedAt}, extra...)
	if err := scan(row, dst...); err != nil {
		return m, err
	}
	if meta != "" && meta != "{}" {
		if err := json.Unmarshal([]byte(meta), &m.Metadata); err != nil {
			return m, err
		}
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	m.Path = memoryPath(m.Scope, m.Kind, m.ID)
	m.URI = s.uri(m.Path)
	return m, nil
}

func memoryPath(scope, kind string, id int64) string {
	return scope + "/" + kind + "/" + strconv.FormatInt(id, 10)
}

func (s *Store) uri(path string) string { return "cairn://" + s.workspace() + "/" + path }

// RememberInput is what memory_remember and `cairn remember` store.
type RememberInput struct {
	Text     string         `json:"text" jsonschema:"the memory itself: a fact, decision, rule or note worth keeping across sessions, in plain language"`
	Kind     string         `json:"kind,omitempty" jsonschema:"what sort of memory: note (default), fact, decision, rule, preference... one word"`
	Scope    string         `json:"scope,omitempty" jsonschema:"whose memory it is: user, agent, project (default) or team"`
	Tags     []string       `json:"tags,omitempty" jsonschema:"labels to filter by later"`
	Repo     string         `json:"repo,omitempty" jsonschema:"the repository the memory is about, if any"`
	Metadata map[string]any `json:"metadata,omitempty" jsonschema:"any JSON object to keep with the memory"`
}

// RememberResult is the id of the stored memory.
type RememberResult struct {
	ID        int64       `json:"id"`
	Path      string      `json:"path"`
	URI       string      `json:"uri"`
	Duplicate bool        `json:"duplicate" jsonschema:"true when the same text, or with embeddings a text of nearly the same meaning, was already stored in this scope and repo: its id is returned and its updated_at bumped, nothing is added"`
	Redacted  []Redaction `json:"redacted,omitempty" jsonschema:"secrets replaced by [REDACTED:<kind>] before storing"`
}

// Remember stores a memory, or returns the id of the memory with the same
// normalised text in the same scope and repo, or one whose embedding is
// within NearDuplicate of the text's (bumping its updated_at).
func (s *Store) Remember(ctx context.Context, in RememberInput) (*RememberResult, error) {
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, errors.New(`"text" is empty: there is nothing to remember`)
	}
	kind, err := checkKind(in.Kind)
	if err != nil {
		return nil, err
	}
	scope, err := checkScope(in.Scope, "project")
	if err != nil {
		return nil, err
	}
	meta, err := metadataJSON(in.Metadata)
	if err != nil {
		return nil, err
	}
	var red []Redaction
	if !s.NoRedact {
		text, red = redact(text, nil)
	}
	vec, err := s.embedExpr(ctx, "$1")
	if err != nil {
		return nil, err
	}
	repo := strings.TrimSpace(in.Repo)
	if vec != noEmbedding {
		res, err := s.nearDuplicate(ctx, text, scope, repo)
		if err != nil || res != nil {
			if res != nil {
				res.Redacted = red
			}
			return res, err
		}
	}
	rows, err := s.write(ctx, `INSERT INTO `+s.table("memories")+` (text, kind, scope, tags, repo, metadata, embedding, content_hash)
VALUES ($1::text, $2::text, $3::text, $4::text[], $5::text, $6::text::jsonb, `+vec+`, $7::text)
ON CONFLICT (scope, repo, content_hash) DO UPDATE SET updated_at = now()
RETURNING id, kind, created_at = updated_at`,
		text, kind, scope, cleanTags(in.Tags), repo, meta, contentHash(text))
	if err != nil {
		return nil, err
	}
	if len(rows.Values) != 1 {
		return nil, fmt.Errorf("insert returned %d rows", len(rows.Values))
	}
	res := &RememberResult{Redacted: red}
	var fresh bool
	if err := scan(rows.Values[0], &res.ID, &kind, &fresh); err != nil {
		return nil, err
	}
	res.Duplicate = !fresh
	res.Path = memoryPath(scope, kind, res.ID)
	res.URI = s.uri(res.Path)
	return res, nil
}

// nearDuplicate returns the memory in scope and repo whose embedding is
// the closest to text's if it is within s.NearDuplicate, after bumping
// its updated_at; nil when there is none.
func (s *Store) nearDuplicate(ctx context.Context, text, scope, repo string) (*RememberResult, error) {
	threshold := s.NearDuplicate
	if threshold == 0 {
		threshold = DefaultNearDuplicate
	}
	if threshold > 1 {
		return nil, nil
	}
	rows, err := s.read(ctx, `SELECT id, kind FROM `+s.table("memories")+`
WHERE scope = $2::text AND repo = $3::text AND embedding <#> embed($1::text) >= $4::float8
ORDER BY embedding <#> embed($1::text) DESC, id LIMIT 1`, text, scope, repo, threshold)
	if err != nil || len(rows.Values) == 0 {
		return nil, err
	}
	var id int64
	var kind string
	if err := scan(rows.Values[0], &id, &kind); err != nil {
		return nil, err
	}
	if _, err := s.write(ctx, `UPDATE `+s.table("memories")+` SET updated_at = now() WHERE id = $1::int8`, id); err != nil {
		return nil, err
	}
	path := memoryPath(scope, kind, id)
	return &RememberResult{ID: id, Path: path, URI: s.uri(path), Duplicate: true}, nil
}

// embedding reports whether the server embeds text: whether it was
// started with an embedding endpoint (cairn_embedding_enabled()). It asks
// once per store; a server too old to know the function embeds nothing.
func (s *Store) embedding(ctx context.Context) (bool, error) {
	switch s.embeds.Load() {
	case embedsYes:
		return true, nil
	case embedsNo:
		return false, nil
	}
	rows, err := s.DB.Query(ctx, false, "SELECT cairn_embedding_enabled()")
	on := false
	switch {
	case sqlState(err) == pgerrcode.UndefinedFunction:
	case err != nil:
		return false, err
	case len(rows.Values) == 1:
		if err := scan(rows.Values[0], &on); err != nil {
			return false, err
		}
	}
	if on {
		s.embeds.Store(embedsYes)
	} else {
		s.embeds.Store(embedsNo)
	}
	return on, nil
}

// noEmbedding is embedExpr's SQL when the server embeds nothing.
const noEmbedding = "NULL::float4[]"

// embedExpr is the SQL of the embedding of the text parameter param: the
// server computes it (embed()) when it has an endpoint, and stores none
// otherwise, so that recall ranks by keywords alone.
func (s *Store) embedExpr(ctx context.Context, param string) (string, error) {
	on, err := s.embedding(ctx)
	if err != nil || !on {
		return noEmbedding, err
	}
	return "embed(" + param + "::text)", nil
}

// normalise is the text near-duplicates are compared by: lower case,
// runs of white space as one space, no trailing full stop.
func normalise(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	return strings.TrimRightFunc(t, func(r rune) bool { return r == '.' || r == '!' || unicode.IsSpace(r) })
}

func contentHash(text string) string {
	h := sha256.Sum256([]byte(normalise(text)))
	return hex.EncodeToString(h[:])
}

// checkKind validates a kind: one word, "note" when empty.
func checkKind(kind string) (string, error) {
	kind = strings.TrimSpace(kind)
	if kind == "" {
		return "note", nil
	}
	if len(kind) > 64 || strings.ContainsFunc(kind, func(r rune) bool { return r == '/' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", fmt.Errorf("invalid kind %q: one word of at most 64 bytes, without / or spaces", kind)
	}
	return kind, nil
}

// checkScope validates a scope, def when empty.
func checkScope(scope, def string) (string, error) {
	scope = strings.TrimSpace(scope)
	if scope == "" {
		return def, nil
	}
	if !slices.Contains(Scopes, scope) {
		return "", fmt.Errorf("invalid scope %q: want one of %s", scope, strings.Join(Scopes, ", "))
	}
	return scope, nil
}

// cleanTags trims tags and drops empty and repeated ones.
func cleanTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func metadataJSON(m map[string]any) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// Filter narrows recall, list, forget and trace search. Empty fields
// filter nothing.
type Filter struct {
	Scope  string
	Kind   string
	Repo   string
	Tags   []string // all of them
	Since  string   // created at or after (parseTime)
	Until  string   // created before
	Prefix string   // path prefix (memories)
	Agent  string   // traces
	Result string   // traces
}

// empty reports whether f filters nothing.
func (f Filter) empty() bool {
	return f.Scope == "" && f.Kind == "" && f.Repo == "" && len(cleanTags(f.Tags)) == 0 && f.Since == "" && f.Until == "" && f.Prefix == "" && f.Agent == "" && f.Result == ""
}

// where appends f's conditions to conds and their values to args.
func (f Filter) where(conds []string, args []any) ([]string, []any, error) {
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if f.Scope != "" {
		scope, err := checkScope(f.Scope, "")
		if err != nil {
			return nil, nil, err
		}
		add("scope = $?::text", scope)
	}
	for _, c := range []struct{ col, v string }{{"kind", f.Kind}, {"repo", f.Repo}, {"agent", f.Agent}, {"result", f.Result}} {
		if v := strings.TrimSpace(c.v); v != "" {
			add(c.col+" = $?::text", v)
		}
	}
	if tags := cleanTags(f.Tags); len(tags) > 0 {
		add("tags @> $?::text[]", tags)
	}
	for _, c := range []struct{ name, v, cond string }{{"since", f.Since, "created_at >= $?::timestamptz"}, {"until", f.Until, "created_at < $?::timestamptz"}} {
		if c.v == "" {
			continue
		}
		t, err := ParseTime(c.v, time.Now())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.name, err)
		}
		add(c.cond, t)
	}
	if f.Prefix != "" {
		add("starts_with(scope || '/' || kind || '/' || id::text, $?::text)", f.Prefix)
	}
	return conds, args, nil
}

// ParseTime reads a point in time: RFC 3339, a date (2006-01-02, UTC),
// or an age before now such as 30m, 12h or 7d.
// A time outside years 1 to 9999 (an age of 99999999d) is refused: RFC
// 3339, which the tools' statements carry times in, cannot write it.
func ParseTime(s string, now time.Time) (time.Time, error) {
	t, err := parseTime(strings.TrimSpace(s), now)
	if err == nil && (t.Year() < 1 || t.Year() > 9999) {
		return time.Time{}, fmt.Errorf("%q is out of range: a time from year 1 to 9999", s)
	}
	return t, err
}

func parseTime(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2026-01-02T15:04:05Z), a date (2026-01-02) or an age (30m, 12h, 7d)", s)
}

// clamp checks a limit and an offset: def when limit is 0.
func clamp(limit, offset, def, most int) (int, int, error) {
	if limit == 0 {
		limit = def
	}
	if limit < 1 || limit > most {
		return 0, 0, fmt.Errorf("limit %d is out of range: want 1 to %d", limit, most)
	}
	if offset < 0 {
		return 0, 0, fmt.Errorf("offset %d is negative", offset)
	}
	return limit, offset, nil
}

// RecallInput is a memory_recall / `cairn recall` search.
type RecallInput struct {
	Query  string   `json:"query" jsonschema:"what to look for, in words; memories are ranked by how well they match"`
	Limit  int      `json:"limit,omitempty" jsonschema:"how many memories to return, 1 to 50 (default 10)"`
	Offset int      `json:"offset,omitempty" jsonschema:"how many of the best matches to skip, to page on"`
	Scope  string   `json:"scope,omitempty" jsonschema:"only memories of this scope: user, agent, project or team"`
	Kind   string   `json:"kind,omitempty" jsonschema:"only memories of this kind"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only memories carrying all of these tags"`
	Repo   string   `json:"repo,omitempty" jsonschema:"only memories about this repository"`
	Since  string   `json:"since,omitempty" jsonschema:"only memories created at or after this time: RFC 3339, a date (2026-01-02) or an age (12h, 7d)"`
	Until  string   `json:"until,omitempty" jsonschema:"only memories created before this time (same forms as since)"`
}

// Hit is a memory that matched a recall, with its score.
type Hit struct {
	Memory
	Score        float64  `json:"score" jsonschema:"the rank, higher is better"`
	KeywordScore float64  `json:"keyword_score" jsonschema:"the BM25 part of the score"`
	VectorScore  *float64 `json:"vector_score" jsonschema:"the embedding similarity part of the score; null without embeddings"`
}

// RecallResult is what a recall found, best first.
type RecallResult struct {
	Mode string `json:"mode" jsonschema:"how the memories were ranked: hybrid (embedding similarity fused with BM25) when the server has an embedding endpoint, keyword (BM25) otherwise"`
	Note string `json:"note,omitempty"`
	Hits []Hit  `json:"hits"`
}

// Recall ranks the memories that match in.Query, best first.
func (s *Store) Recall(ctx context.Context, in RecallInput) (*RecallResult, error) {
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, errors.New(`"query" is empty: say what to look for (memory_list / cairn memories list memories without a query)`)
	}
	limit, offset, err := clamp(in.Limit, in.Offset, defaultRecallLimit, maxRecallLimit)
	if err != nil {
		return nil, err
	}
	hybrid, err := s.embedding(ctx)
	if err != nil {
		return nil, err
	}
	// Keywords alone: the memories with a BM25 match. Hybrid: every
	// memory, ranked by the fusion of its cosine to the query's
	// embedding and its BM25 score (cairn's hybrid <#>), both reported.
	match, score, vector := "text <#> $1::text > 0", "text <#> $1::text", "NULL::float8"
	res := &RecallResult{Mode: "keyword", Note: KeywordNote, Hits: []Hit{}}
	if hybrid {
		match = "true"
		score = fmt.Sprintf("(embedding, text) <#> deeplake_hybrid_record(embed($1::text), $1::text, %g, %g)", HybridVectorWeight, 1-HybridVectorWeight)
		vector = "embedding <#> embed($1::text)"
		res.Mode, res.Note = "hybrid", ""
	}
	f := Filter{Scope: in.Scope, Kind: in.Kind, Tags: in.Tags, Repo: in.Repo, Since: in.Since, Until: in.Until}
	conds, args, err := f.where([]string{match}, []any{query})
	if err != nil {
		return nil, err
	}
	rows, err := s.read(ctx, `SELECT `+memoryColumns+`, `+score+` AS score, text <#> $1::text, `+vector+` FROM `+s.table("memories")+
		` WHERE `+strings.Join(conds, " AND ")+fmt.Sprintf(` ORDER BY score DESC LIMIT %d OFFSET %d`, limit, offset), args...)
	if err != nil {
		return nil, err
	}
	for _, row := range rows.Values {
		var h Hit
		var score *float64
		if h.Memory, err = s.scanMemory(row, &score, &h.KeywordScore, &h.VectorScore); err != nil {
			return nil, err
		}
		if score != nil {
			h.Score = *score
		}
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

// Read returns one memory by its id ("42"), path ("project/note/42") or
// URI ("cairn://public/project/note/42").
func (s *Store) Read(ctx context.Context, ref string) (*Memory, error) {
	ref = strings.TrimSpace(ref)
	path := ref
	if rest, ok := strings.CutPrefix(ref, "cairn://"); ok {
		ws, p, _ := strings.Cut(rest, "/")
		if ws != s.workspace() {
			return nil, &badRefError{fmt.Sprintf("%s is in workspace %q, not in this server's workspace %q", ref, ws, s.workspace())}
		}
		path = p
	}
	idText := path[strings.LastIndexByte(path, '/')+1:]
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return nil, &badRefError{fmt.Sprintf("%q names no memory: want an id (42), a path (project/note/42) or a URI (cairn://%s/project/note/42)", ref, s.workspace())}
	}
	rows, err := s.read(ctx, `SELECT `+memoryColumns+` FROM `+s.table("memories")+` WHERE id = $1::int8`, id)
	if err != nil {
		return nil, err
	}
	if len(rows.Values) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, ref)
	}
	m, err := s.scanMemory(rows.Values[0])
	if err != nil {
		return nil, err
	}
	if path != idText && path != m.Path {
		return nil, fmt.Errorf("%w: %s (memory %d is %s)", ErrNotFound, ref, id, m.Path)
	}
	return &m, nil
}

// ListInput is a memory_list / `cairn memories` listing.
type ListInput struct {
	Prefix string   `json:"prefix,omitempty" jsonschema:"only memories whose path (scope/kind/id) starts with this, e.g. project/ or project/rule/"`
	Scope  string   `json:"scope,omitempty" jsonschema:"only memories of this scope: user, agent, project or team"`
	Kind   string   `json:"kind,omitempty" jsonschema:"only memories of this kind"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only memories carrying all of these tags"`
	Repo   string   `json:"repo,omitempty" jsonschema:"only memories about this repository"`
	Limit  int      `json:"limit,omitempty" jsonschema:"how many memories to return, 1 to 200 (default 50)"`
	Offset int      `json:"offset,omitempty" jsonschema:"how many to skip, to page on"`
}

// ListResult is a page of memories, most recently updated first; their
// text is cut to a snippet (memory_read has it whole).
type ListResult struct {
	Memories []Memory `json:"memories"`
}

// List returns memories by recency.
func (s *Store) List(ctx context.Context, in ListInput) (*ListResult, error) {
	limit, offset, err := clamp(in.Limit, in.Offset, defaultListLimit, maxListLimit)
	if err != nil {
		return nil, err
	}
	f := Filter{Prefix: in.Prefix, Scope: in.Scope, Kind: in.Kind, Tags: in.Tags, Repo: in.Repo}
	conds, args, err := f.where([]string{"true"}, nil)
	if err != nil {
		return nil, err
	}
	rows, err := s.read(ctx, `SELECT `+memoryColumns+` FROM `+s.table("memories")+` WHERE `+strings.Join(conds, " AND ")+
		fmt.Sprintf(` ORDER BY updated_at DESC, id DESC LIMIT %d OFFSET %d`, limit, offset), args...)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Memories: []Memory{}}
	for _, row := range rows.Values {
		m, err := s.scanMemory(row)
		if err != nil {
			return nil, err
		}
		m.Text = snippet(m.Text)
		res.Memories = append(res.Memories, m)
	}
	return res, nil
}

// snippet cuts text to its first snippetRunes runes.
func snippet(text string) string {
	r := []rune(text)
	if len(r) <= snippetRunes {
		return text
	}
	return string(r[:snippetRunes]) + "…"
}

// ForgetInput deletes one memory by id, or those matching a filter.
type ForgetInput struct {
	ID      int64    `json:"id,omitempty" jsonschema:"the id of the memory to delete; give either id or a filter"`
	Scope   string   `json:"scope,omitempty" jsonschema:"filter: memories of this scope"`
	Kind    string   `json:"kind,omitempty" jsonschema:"filter: memories of this kind"`
	Tags    []string `json:"tags,omitempty" jsonschema:"filter: memories carrying all of these tags"`
	Repo    string   `json:"repo,omitempty" jsonschema:"filter: memories about this repository"`
	Since   string   `json:"since,omitempty" jsonschema:"filter: memories created at or after this time"`
	Before  string   `json:"before,omitempty" jsonschema:"filter: memories created before this time"`
	Confirm bool     `json:"confirm,omitempty" jsonschema:"must be true to delete when the filter matches more than one memory; without it such a call deletes nothing and says how many match"`
}

// ForgetResult says what was deleted.
type ForgetResult struct {
	Deleted int64   `json:"deleted"`
	IDs     []int64 `json:"ids"`
}

// Forget deletes a memory by id, or the memories a non-empty filter
// matches (more than one only with Confirm). A filter never widens: an
// empty one is an error, and exactly the memories counted are deleted.
func (s *Store) Forget(ctx context.Context, in ForgetInput) (*ForgetResult, error) {
	f := Filter{Scope: in.Scope, Kind: in.Kind, Tags: in.Tags, Repo: in.Repo, Since: in.Since, Until: in.Before}
	switch {
	case in.ID < 0:
		return nil, fmt.Errorf("invalid id %d", in.ID)
	case in.ID > 0 && !f.empty():
		return nil, errors.New("give either an id or a filter, not both")
	case in.ID > 0:
		rows, err := s.read(ctx, `DELETE FROM `+s.table("memories")+` WHERE id = $1::int8`, in.ID)
		if err != nil {
			return nil, err
		}
		if rows.Affected == 0 {
			return nil, fmt.Errorf("%w: %d", ErrNotFound, in.ID)
		}
		return &ForgetResult{Deleted: rows.Affected, IDs: []int64{in.ID}}, nil
	case f.empty():
		return nil, errors.New("forget needs an id or a filter (scope, kind, tags, repo, since, before): an empty filter would match every memory")
	}
	conds, args, err := f.where(nil, nil)
	if err != nil {
		return nil, err
	}
	rows, err := s.read(ctx, `SELECT id FROM `+s.table("memories")+` WHERE `+strings.Join(conds, " AND ")+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(rows.Values))
	for i, row := range rows.Values {
		if err := scan(row, &ids[i]); err != nil {
			return nil, err
		}
	}
	if len(ids) > 1 && !in.Confirm {
		return nil, &ConfirmError{Matched: len(ids)}
	}
	res := &ForgetResult{IDs: ids}
	if len(ids) == 0 {
		return res, nil
	}
	del, err := s.read(ctx, `DELETE FROM `+s.table("memories")+` WHERE id = ANY($1::int8[])`, ids)
	if err != nil {
		return nil, err
	}
	res.Deleted = del.Affected
	return res, nil
}
