package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TraceInput is one step an agent took, for trace_store / `cairn trace
// store`.
type TraceInput struct {
	Agent      string         `json:"agent" jsonschema:"who acted: the agent's name, e.g. claude-code"`
	Action     string         `json:"action" jsonschema:"what was done, e.g. ran the test suite"`
	Reasoning  string         `json:"reasoning,omitempty" jsonschema:"why it was done"`
	Result     string         `json:"result" jsonschema:"how it went: success or failure"`
	ToolOutput string         `json:"tool_output,omitempty" jsonschema:"what the tools printed (secrets are redacted)"`
	Tags       []string       `json:"tags,omitempty" jsonschema:"labels to filter by later"`
	Repo       string         `json:"repo,omitempty" jsonschema:"the repository acted on, if any"`
	Metadata   map[string]any `json:"metadata,omitempty" jsonschema:"any JSON object to keep with the trace"`
}

// TraceResult is the id of a stored trace.
type TraceResult struct {
	ID       int64       `json:"id"`
	Redacted []Redaction `json:"redacted,omitempty" jsonschema:"secrets replaced by [REDACTED:<kind>] before storing"`
}

// TraceStore stores a trace. Its text column, which trace search ranks,
// holds the action, the reasoning and the tool output.
func (s *Store) TraceStore(ctx context.Context, in TraceInput) (*TraceResult, error) {
	agent, action := strings.TrimSpace(in.Agent), strings.TrimSpace(in.Action)
	if agent == "" || action == "" {
		return nil, errors.New(`a trace needs an "agent" and an "action"`)
	}
	result := strings.TrimSpace(in.Result)
	if !slices.Contains(Results, result) {
		return nil, fmt.Errorf("invalid result %q: want one of %s", in.Result, strings.Join(Results, ", "))
	}
	meta, err := metadataJSON(in.Metadata)
	if err != nil {
		return nil, err
	}
	reasoning, output := in.Reasoning, in.ToolOutput
	var red []Redaction
	if !s.NoRedact {
		action, red = redact(action, red)
		reasoning, red = redact(reasoning, red)
		output, red = redact(output, red)
	}
	text := strings.Join(slices.DeleteFunc([]string{action, reasoning, output}, func(s string) bool { return strings.TrimSpace(s) == "" }), "\n")
	vec, err := s.embedExpr(ctx, "$6")
	if err != nil {
		return nil, err
	}
	rows, err := s.write(ctx, `INSERT INTO `+s.table("traces")+` (agent, action, reasoning, result, tool_output, text, tags, repo, metadata, embedding)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text[], $8::text, $9::text::jsonb, `+vec+`)
RETURNING id`, agent, action, reasoning, result, output, text, cleanTags(in.Tags), strings.TrimSpace(in.Repo), meta)
	if err != nil {
		return nil, err
	}
	if len(rows.Values) != 1 {
		return nil, fmt.Errorf("insert returned %d rows", len(rows.Values))
	}
	res := &TraceResult{Redacted: red}
	return res, scan(rows.Values[0], &res.ID)
}

// Trace is one stored trace.
type Trace struct {
	ID         int64          `json:"id"`
	Agent      string         `json:"agent"`
	Action     string         `json:"action"`
	Reasoning  string         `json:"reasoning,omitempty"`
	Result     string         `json:"result"`
	ToolOutput string         `json:"tool_output,omitempty"`
	Tags       []string       `json:"tags"`
	Repo       string         `json:"repo,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	CreatedAt  time.Time      `json:"created_at"`
	// Score is the BM25 score of a search with a query (null without).
	Score *float64 `json:"score" jsonschema:"the BM25 keyword score, higher is better; null when no query was given"`
}

// TraceSearchInput searches traces.
type TraceSearchInput struct {
	Query  string   `json:"query,omitempty" jsonschema:"words to rank traces by (their action, reasoning and tool output); without one, the newest traces come first"`
	Agent  string   `json:"agent,omitempty" jsonschema:"only traces of this agent"`
	Result string   `json:"result,omitempty" jsonschema:"only traces with this result: success or failure"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only traces carrying all of these tags"`
	Repo   string   `json:"repo,omitempty" jsonschema:"only traces about this repository"`
	Since  string   `json:"since,omitempty" jsonschema:"only traces created at or after this time: RFC 3339, a date or an age (12h, 7d)"`
	Until  string   `json:"until,omitempty" jsonschema:"only traces created before this time"`
	Limit  int      `json:"limit,omitempty" jsonschema:"how many traces to return, 1 to 50 (default 10)"`
	Offset int      `json:"offset,omitempty" jsonschema:"how many to skip, to page on"`
}

// TraceSearchResult is what a trace search found.
type TraceSearchResult struct {
	Mode   string  `json:"mode" jsonschema:"keyword (BM25) with a query, recency without"`
	Traces []Trace `json:"traces"`
}

// TraceSearch finds traces, best match (or newest) first.
func (s *Store) TraceSearch(ctx context.Context, in TraceSearchInput) (*TraceSearchResult, error) {
	limit, offset, err := clamp(in.Limit, in.Offset, defaultRecallLimit, maxRecallLimit)
	if err != nil {
		return nil, err
	}
	if in.Result != "" && !slices.Contains(Results, in.Result) {
		return nil, fmt.Errorf("invalid result %q: want one of %s", in.Result, strings.Join(Results, ", "))
	}
	f := Filter{Agent: in.Agent, Result: in.Result, Tags: in.Tags, Repo: in.Repo, Since: in.Since, Until: in.Until}
	query := strings.TrimSpace(in.Query)
	score, order, mode := "NULL::float8", "created_at DESC, id DESC", "recency"
	var conds []string
	var args []any
	if query != "" {
		score, order, mode = "text <#> $1::text", "score DESC", "keyword"
		conds, args = []string{"text <#> $1::text > 0"}, []any{query}
	}
	conds, args, err = f.where(append(conds, "true"), args)
	if err != nil {
		return nil, err
	}
	rows, err := s.read(ctx, `SELECT id, agent, action, reasoning, result, tool_output, tags, repo, metadata::text, created_at, `+score+` AS score FROM `+
		s.table("traces")+` WHERE `+strings.Join(conds, " AND ")+fmt.Sprintf(` ORDER BY %s LIMIT %d OFFSET %d`, order, limit, offset), args...)
	if err != nil {
		return nil, err
	}
	res := &TraceSearchResult{Mode: mode, Traces: []Trace{}}
	for _, row := range rows.Values {
		var t Trace
		var meta string
		if err := scan(row, &t.ID, &t.Agent, &t.Action, &t.Reasoning, &t.Result, &t.ToolOutput, &t.Tags, &t.Repo, &meta, &t.CreatedAt, &t.Score); err != nil {
			return nil, err
		}
		if meta != "" && meta != "{}" {
			if err := json.Unmarshal([]byte(meta), &t.Metadata); err != nil {
				return nil, err
			}
		}
		if t.Tags == nil {
			t.Tags = []string{}
		}
		res.Traces = append(res.Traces, t)
	}
	return res, nil
}

// SQLInput is a read-only statement for sql_query.
type SQLInput struct {
	SQL string `json:"sql" jsonschema:"one read-only SQL statement (PostgreSQL dialect); the workspace's tables, memories and traces among them, need no schema name"`
}

// SQLResult is a statement's rows, at most maxSQLRows of them.
type SQLResult struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated,omitempty" jsonschema:"true when more rows than the 1000 returned matched"`
}

// SQL runs one statement in a read-only transaction.
func (s *Store) SQL(ctx context.Context, in SQLInput) (*SQLResult, error) {
	if strings.TrimSpace(in.SQL) == "" {
		return nil, errors.New(`"sql" is empty`)
	}
	rows, err := s.DB.Query(ctx, true, in.SQL)
	if err != nil {
		return nil, err
	}
	res := &SQLResult{Columns: rows.Columns, Rows: [][]any{}}
	if res.Columns == nil {
		res.Columns = []string{}
	}
	for i, row := range rows.Values {
		if i == maxSQLRows {
			res.Truncated = true
			break
		}
		vals := make([]any, len(row))
		for j, v := range row {
			if err := json.Unmarshal(v, &vals[j]); err != nil {
				return nil, err
			}
		}
		res.Rows = append(res.Rows, vals)
	}
	return res, nil
}
