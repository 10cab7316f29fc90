package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures NewServer.
type Options struct {
	// AllowSQL adds the sql_query tool (read-only statements); off by
	// default, since it shows every table the connection can read.
	AllowSQL bool
	// Version is the server's version in the MCP handshake.
	Version string
	// SchemaCache, when set, keeps the tools' JSON schemas between
	// servers (the HTTP endpoint makes one server per request).
	SchemaCache *sdk.SchemaCache
}

// instructions tell the agent what the server is for.
const instructions = `cairn is long-term memory for coding agents, kept in SQL tables (memories, traces) of a cairn server.
Before starting a task, memory_recall what is known about it; when you learn a fact, decision or preference worth keeping, memory_remember it (one memory per fact, in plain words).
Record notable steps with trace_store and look at earlier attempts with trace_search. Memories are also resources: cairn://<workspace>/<scope>/<kind>/<id>.`

// NewServer returns an MCP server whose tools act on store.
func NewServer(store *Store, opts Options) *sdk.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "cairn", Title: "cairn memory", Version: version},
		&sdk.ServerOptions{Instructions: instructions, SchemaCache: opts.SchemaCache})
	yes, no := true, false

	addTool(srv, &sdk.Tool{Name: "memory_remember",
		Description: "Store a memory (a fact, decision, rule, preference or note) for later sessions. Returns its id. When the same text (ignoring case, spacing and a final full stop) is already stored in the same scope and repo, returns that memory's id with duplicate: true instead of adding a copy. API keys, tokens, private keys and passwords are replaced by [REDACTED:<kind>] before storing, and the answer lists what was redacted.",
		Annotations: &sdk.ToolAnnotations{Title: "Remember", DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}},
		enums(map[string][]string{"scope": Scopes}),
		store.Remember)
	addTool(srv, &sdk.Tool{Name: "memory_recall",
		Description: "Search memories by meaning of the words in query, best match first, with optional filters on scope, kind, tags, repo and creation time. Each hit has its score and the keyword (BM25) and vector parts of it. Use it before starting work to learn what is already known.",
		Annotations: &sdk.ToolAnnotations{Title: "Recall", ReadOnlyHint: true, OpenWorldHint: &no}},
		limits(enums(map[string][]string{"scope": Scopes}), maxRecallLimit),
		store.Recall)
	addTool(srv, &sdk.Tool{Name: "memory_read",
		Description: "Read one memory whole, by its id (42), its path (project/note/42) or its URI (cairn://<workspace>/project/note/42).",
		Annotations: &sdk.ToolAnnotations{Title: "Read memory", ReadOnlyHint: true, OpenWorldHint: &no}},
		nil,
		func(ctx context.Context, in ReadInput) (*Memory, error) { return store.Read(ctx, in.Ref) })
	addTool(srv, &sdk.Tool{Name: "memory_list",
		Description: "List memories, most recently updated first, with their text cut to 200 characters: an index of what is stored. Filter by path prefix (scope/kind/), scope, kind, tags or repo.",
		Annotations: &sdk.ToolAnnotations{Title: "List memories", ReadOnlyHint: true, OpenWorldHint: &no}},
		limits(enums(map[string][]string{"scope": Scopes}), maxListLimit),
		store.List)
	addTool(srv, &sdk.Tool{Name: "memory_forget",
		Description: "Delete memories for good: one by id, or those a filter (scope, kind, tags, repo, since, before) matches. A filter that matches more than one memory deletes nothing unless confirm is true; the error says how many match. A call with neither an id nor a filter is an error, never \"delete everything\".",
		Annotations: &sdk.ToolAnnotations{Title: "Forget", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}},
		enums(map[string][]string{"scope": Scopes}),
		store.Forget)
	addTool(srv, &sdk.Tool{Name: "trace_store",
		Description: "Record one step an agent took: who (agent), what (action), why (reasoning), how it went (result: success or failure) and what the tools printed. Secrets are redacted before storing.",
		Annotations: &sdk.ToolAnnotations{Title: "Store trace", DestructiveHint: &no, OpenWorldHint: &no}},
		enums(map[string][]string{"result": Results}),
		store.TraceStore)
	addTool(srv, &sdk.Tool{Name: "trace_search",
		Description: "Search recorded traces by words in their action, reasoning and tool output (best match first), or list the newest without a query; filter by agent, result, tags, repo and time. Use it to see how a similar task went before.",
		Annotations: &sdk.ToolAnnotations{Title: "Search traces", ReadOnlyHint: true, OpenWorldHint: &no}},
		limits(enums(map[string][]string{"result": Results}), maxRecallLimit),
		store.TraceSearch)
	if opts.AllowSQL {
		addTool(srv, &sdk.Tool{Name: "sql_query",
			Description: "Run one read-only SQL statement (PostgreSQL dialect) in a read-only transaction and get its columns and rows (at most 1000). The tables memories(id, text, kind, scope, tags, repo, metadata, embedding, created_at, updated_at) and traces(id, agent, action, reasoning, result, tool_output, text, tags, ...) are in the workspace; text <#> 'words' is a BM25 score.",
			Annotations: &sdk.ToolAnnotations{Title: "SQL (read-only)", ReadOnlyHint: true, OpenWorldHint: &no}},
			nil,
			store.SQL)
	}
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "memory",
		Title:       "A cairn memory",
		Description: "One memory, by workspace, scope, kind and id, as memory_read returns it (JSON).",
		URITemplate: "cairn://{workspace}/{scope}/{kind}/{id}",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		m, err := store.Read(ctx, req.Params.URI)
		var bad *badRefError
		if errors.Is(err, ErrNotFound) || errors.As(err, &bad) {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		if err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return nil, err
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: m.URI, MIMEType: "application/json", Text: string(b)}}}, nil
	})
	return srv
}

// ReadInput names the memory memory_read returns.
type ReadInput struct {
	Ref string `json:"ref" jsonschema:"the memory's id (42), path (project/note/42) or URI (cairn://<workspace>/project/note/42)"`
}

// addTool adds a tool whose input schema is inferred from In and then
// adjusted by fix (nil: as inferred); fn's error becomes a tool error the
// agent reads.
func addTool[In, Out any](srv *sdk.Server, tool *sdk.Tool, fix func(*jsonschema.Schema), fn func(context.Context, In) (*Out, error)) {
	if fix != nil {
		s, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("schema of %s: %v", tool.Name, err))
		}
		fix(s)
		tool.InputSchema = s
	}
	sdk.AddTool(srv, tool, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, *Out, error) {
		out, err := fn(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return nil, out, nil
	})
}

// enums restricts string properties to the values given.
func enums(values map[string][]string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for name, vs := range values {
			p := s.Properties[name]
			for _, v := range vs {
				p.Enum = append(p.Enum, v)
			}
		}
	}
}

// limits bounds the limit and offset properties after fix.
func limits(fix func(*jsonschema.Schema), most int) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		fix(s)
		s.Properties["limit"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["limit"].Maximum = jsonschema.Ptr(float64(most))
		s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
	}
}
