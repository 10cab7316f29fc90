package main

// memory.go is the agent side of the binary: `cairn mcp` (MCP over
// stdio) and the memory commands (remember, recall, forget, memories,
// trace store, trace search). They connect to a running cairn server
// over the PostgreSQL protocol and share their logic with the server's
// /mcp endpoint (package wire/mcp).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/wire/mcp"
)

// Exit codes of the memory commands.
const (
	exitOK      = 0
	exitError   = 1 // the server failed the request, or it could not be reached
	exitUsage   = 2 // bad flags or arguments
	exitConfirm = 3 // forget: the filter matches several memories and --yes was not given
)

// subcommand is one command of the binary besides the server.
type subcommand struct {
	usage    string // first line of --help
	about    string
	examples string
	run      func(ctx context.Context, c *client, args []string) error
	setup    func(fs *flag.FlagSet, c *client) // extra flags
}

// subcommands are looked up by the first argument; anything else (no
// argument, or a flag) starts the server.
var subcommands = map[string]*subcommand{
	"mcp": {
		usage: "cairn mcp [flags]",
		about: "Speak MCP over stdin/stdout (how Claude Code, Cursor and Codex launch a server), with the memory tools acting on a running cairn server.",
		examples: `  claude mcp add cairn -- cairn mcp
  claude mcp add cairn -- cairn mcp --url postgres://cairn@127.0.0.1:5432/cairn --workspace myproject`,
		setup: func(fs *flag.FlagSet, c *client) {
			fs.BoolVar(&c.allowSQL, "allow-sql", false, "add the read-only sql_query tool")
		},
		run: runMCP,
	},
	"remember": {
		usage: `cairn remember "text" [--kind K] [--scope user|agent|project|team] [--tags a,b] [--repo R] [--meta JSON]`,
		about: "Store a memory and print its id. The same text (ignoring case and spacing) in the same scope and repo returns the existing id. Secrets are redacted.",
		examples: `  cairn remember "the integration tests need docker running" --kind fact --tags testing,docker --repo web
  cairn remember "prefer table-driven tests" --kind preference --scope user --json`,
		setup: func(fs *flag.FlagSet, c *client) {
			fs.StringVar(&c.kind, "kind", "", "note (default), fact, decision, rule, preference...")
			fs.StringVar(&c.scope, "scope", "", "user, agent, project (default) or team")
			fs.StringVar(&c.tags, "tags", "", "comma-separated tags")
			fs.StringVar(&c.repo, "repo", "", "the repository the memory is about")
			fs.StringVar(&c.meta, "meta", "", "a JSON object kept with the memory")
		},
		run: runRemember,
	},
	"recall": {
		usage: `cairn recall "query" [--limit N] [--offset N] [--scope S] [--kind K] [--tags T] [--repo R] [--since DATE]`,
		about: "Search memories, best match first (hybrid when the server has --embed-url, BM25 keywords otherwise).",
		examples: `  cairn recall "integration tests docker"
  cairn recall "tests" --tags testing --since 7d --json`,
		setup: func(fs *flag.FlagSet, c *client) {
			fs.IntVar(&c.limit, "limit", 0, "how many, 1 to 50 (default 10)")
			fs.IntVar(&c.offset, "offset", 0, "how many best matches to skip")
			fs.StringVar(&c.scope, "scope", "", "only this scope")
			fs.StringVar(&c.kind, "kind", "", "only this kind")
			fs.StringVar(&c.tags, "tags", "", "only memories with all of these comma-separated tags")
			fs.StringVar(&c.repo, "repo", "", "only this repository")
			fs.StringVar(&c.since, "since", "", "created at or after: 2026-01-02, RFC 3339, or an age such as 12h or 7d")
			fs.StringVar(&c.until, "until", "", "created before (same forms)")
		},
		run: runRecall,
	},
	"memories": {
		usage:    "cairn memories [--prefix P] [--scope S] [--kind K] [--tags T] [--repo R] [--limit N] [--offset N]",
		about:    "List memories, most recently updated first.",
		examples: "  cairn memories\n  cairn memories --prefix project/rule/ --json",
		setup: func(fs *flag.FlagSet, c *client) {
			fs.StringVar(&c.prefix, "prefix", "", "only paths (scope/kind/id) starting with this")
			fs.StringVar(&c.scope, "scope", "", "only this scope")
			fs.StringVar(&c.kind, "kind", "", "only this kind")
			fs.StringVar(&c.tags, "tags", "", "only memories with all of these comma-separated tags")
			fs.StringVar(&c.repo, "repo", "", "only this repository")
			fs.IntVar(&c.limit, "limit", 0, "how many, 1 to 200 (default 50)")
			fs.IntVar(&c.offset, "offset", 0, "how many to skip")
		},
		run: runMemories,
	},
	"forget": {
		usage: "cairn forget ID | cairn forget --where key=value [--where ...] [--yes]",
		about: "Delete a memory by id, or the memories a filter matches (keys: scope, kind, tag, repo, since, before). A filter that matches more than one memory needs --yes; there is no way to delete everything by accident.",
		examples: `  cairn forget 42
  cairn forget --where scope=project --where tag=stale --yes`,
		setup: func(fs *flag.FlagSet, c *client) {
			fs.Func("where", "a filter, key=value (repeatable)", func(s string) error { c.where = append(c.where, s); return nil })
			fs.BoolVar(&c.yes, "yes", false, "delete even when the filter matches several memories")
		},
		run: runForget,
	},
	"trace": {
		usage: `cairn trace store --agent A --action X [--reasoning "..."] --result success|failure [--output "..."] [--tags T] [--repo R]
       cairn trace search ["query"] [--agent A] [--result R] [--tags T] [--since DATE] [--limit N]`,
		about: "Record what an agent did, and search those records.",
		examples: `  cairn trace store --agent claude-code --action "ran go test ./..." --reasoning "check the fix" --result failure --output "FAIL: TestLogin"
  cairn trace search "go test" --result failure`,
		setup: func(fs *flag.FlagSet, c *client) {
			fs.StringVar(&c.agent, "agent", "", "the agent's name")
			fs.StringVar(&c.action, "action", "", "what was done (store)")
			fs.StringVar(&c.reasoning, "reasoning", "", "why (store)")
			fs.StringVar(&c.result, "result", "", "success or failure")
			fs.StringVar(&c.output, "output", "", "what the tools printed (store)")
			fs.StringVar(&c.tags, "tags", "", "comma-separated tags")
			fs.StringVar(&c.repo, "repo", "", "the repository")
			fs.StringVar(&c.since, "since", "", "created at or after (search)")
			fs.IntVar(&c.limit, "limit", 0, "how many, 1 to 50 (search; default 10)")
			fs.IntVar(&c.offset, "offset", 0, "how many to skip (search)")
		},
		run: runTrace,
	},
}

// client is a memory command's flags and, once connected, its store.
type client struct {
	url, workspace             string
	json, noRedact, allowSQL   bool
	kind, scope, tags, repo    string
	meta, since, until, prefix string
	limit, offset              int
	where                      []string
	yes                        bool
	agent, action, reasoning   string
	result, output             string
	nearDuplicate              string
	stdout, stderr             io.Writer
	pool                       *pgxpool.Pool
	store                      *mcp.Store
}

// usageError is a bad command line (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// runSubcommand runs the memory command name with args and returns the
// exit code.
func runSubcommand(ctx context.Context, name string, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	sc := subcommands[name]
	c := &client{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("cairn "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.url, "url", getenv("CAIRN_URL"), "the cairn server, as a PostgreSQL URL or key=value string (env CAIRN_URL; default: the libpq variables PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, or 127.0.0.1:5432)")
	ws := getenv("CAIRN_WORKSPACE")
	if ws == "" {
		ws = mcp.DefaultWorkspace
	}
	fs.StringVar(&c.workspace, "workspace", ws, "the schema the memory tables live in (env CAIRN_WORKSPACE)")
	fs.BoolVar(&c.json, "json", false, "print JSON instead of text")
	fs.BoolVar(&c.noRedact, "no-redact", false, "store secrets as given instead of replacing them with [REDACTED:<kind>]")
	fs.StringVar(&c.nearDuplicate, "near-duplicate", getenv("CAIRN_NEAR_DUPLICATE"), nearDuplicateUsage+" (env CAIRN_NEAR_DUPLICATE)")
	if sc.setup != nil {
		sc.setup(fs, c)
	}
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: %s\n\n%s\n\nExamples:\n%s\n\nFlags:\n", sc.usage, sc.about, sc.examples)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintf(w, "\nExit codes: 0 done, 1 failed (server error, not found, no server), 2 bad usage, 3 forget needs --yes.\n")
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		help(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "cairn %s: %v\n", name, err)
		help(stderr)
		return exitUsage
	}
	err = sc.run(ctx, c, pos)
	if c.pool != nil {
		c.pool.Close()
	}
	var ue usageError
	var ce *mcp.ConfirmError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "cairn %s: %v\n", name, err)
		help(stderr)
		return exitUsage
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "cairn %s: %v\n", name, err)
		return exitConfirm
	default:
		fmt.Fprintf(stderr, "cairn %s: %v\n", name, err)
		return exitError
	}
}

// parseInterspersed parses flags anywhere among the arguments (flag
// stops at the first positional one) and returns the positional ones;
// "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// open connects c to the server and sets c.store; commands call it
// once their arguments are checked, so that a usage error is reported as
// one even without a server.
func (c *client) open(ctx context.Context) error {
	cfg, err := connConfig(c.url, os.Getenv)
	if err != nil {
		return usagef("--url: %v", err)
	}
	near, err := parseNearDuplicate(c.nearDuplicate)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = ident.Quote(c.workspace)
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(cctx); err != nil {
		pool.Close()
		return fmt.Errorf("cannot reach a cairn server at %s:%d (start one with `cairn`, or say where it is with --url or PGHOST/PGPORT): %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	c.pool = pool
	c.store = &mcp.Store{DB: mcp.PgxDB{Conn: pool}, Workspace: c.workspace, NoRedact: c.noRedact, NearDuplicate: near}
	return nil
}

// nearDuplicateUsage describes --near-duplicate, a flag of the server
// and of the memory commands.
var nearDuplicateUsage = fmt.Sprintf("cosine similarity, above 0 and at most 1, at or above which remember takes a memory whose embedding is that close to one in the same scope and repo for a near-duplicate, returning its id and bumping its updated_at; off: only the same normalised text is (default %g; used only with an embedding endpoint)", mcp.DefaultNearDuplicate)

// parseNearDuplicate reads --near-duplicate as mcp.Store.NearDuplicate:
// "" is the default (0), off is above any similarity.
func parseNearDuplicate(s string) (float64, error) {
	switch {
	case s == "":
		return 0, nil
	case isOff(s):
		return math.Inf(1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("--near-duplicate %q: want a cosine similarity above 0 and at most 1, or off", s)
	}
	return f, nil
}

// connConfig is the connection to the server: url when given, else the
// libpq environment, with 127.0.0.1 (cairn's default address) instead of
// libpq's Unix sockets when PGHOST is not set.
func connConfig(url string, getenv func(string) string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if url == "" && getenv("PGHOST") == "" {
		cfg.ConnConfig.Host = "127.0.0.1"
		cfg.ConnConfig.Fallbacks = nil
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "cairn-cli"
	return cfg, nil
}

func runMCP(ctx context.Context, c *client, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	srv := mcp.NewServer(c.store, mcp.Options{AllowSQL: c.allowSQL, Version: version()})
	err := srv.Run(ctx, &sdk.StdioTransport{})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// splitTags reads a comma-separated list.
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// oneArg is the single positional argument of a command.
func oneArg(args []string, what string) (string, error) {
	switch len(args) {
	case 0:
		return "", usagef("missing %s", what)
	case 1:
		return args[0], nil
	}
	return "", usagef("unexpected argument %q (quote the %s)", args[1], what)
}

func runRemember(ctx context.Context, c *client, args []string) error {
	text, err := oneArg(args, "text to remember")
	if err != nil {
		return err
	}
	in := mcp.RememberInput{Text: text, Kind: c.kind, Scope: c.scope, Tags: splitTags(c.tags), Repo: c.repo}
	if c.meta != "" {
		if err := json.Unmarshal([]byte(c.meta), &in.Metadata); err != nil || in.Metadata == nil {
			return usagef("--meta must be a JSON object: %v", err)
		}
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	res, err := c.store.Remember(ctx, in)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	if res.Duplicate {
		fmt.Fprintf(c.stdout, "already remembered as %d (%s)\n", res.ID, res.Path)
	} else {
		fmt.Fprintf(c.stdout, "remembered %d (%s)\n", res.ID, res.Path)
	}
	c.printRedacted(res.Redacted)
	return nil
}

// printRedacted tells stderr which secrets were not stored.
func (c *client) printRedacted(red []mcp.Redaction) {
	for _, r := range red {
		fmt.Fprintf(c.stderr, "redacted %d %s\n", r.Count, r.Kind)
	}
}

func (c *client) printJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runRecall(ctx context.Context, c *client, args []string) error {
	query, err := oneArg(args, "query")
	if err != nil {
		return err
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	res, err := c.store.Recall(ctx, mcp.RecallInput{Query: query, Limit: c.limit, Offset: c.offset, Scope: c.scope, Kind: c.kind,
		Tags: splitTags(c.tags), Repo: c.repo, Since: c.since, Until: c.until})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(c.stdout, "no memories match")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCORE\tPATH\tTAGS\tTEXT")
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%d\t%.3f\t%s\t%s\t%s\n", h.ID, h.Score, h.Path, strings.Join(h.Tags, ","), oneLine(h.Text))
	}
	return tw.Flush()
}

// oneLine is text on one line, cut for a table.
func oneLine(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return t
}

func runMemories(ctx context.Context, c *client, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	res, err := c.store.List(ctx, mcp.ListInput{Prefix: c.prefix, Scope: c.scope, Kind: c.kind, Tags: splitTags(c.tags), Repo: c.repo, Limit: c.limit, Offset: c.offset})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	if len(res.Memories) == 0 {
		fmt.Fprintln(c.stdout, "no memories")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tPATH\tTAGS\tTEXT")
	for _, m := range res.Memories {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", m.ID, m.UpdatedAt.Local().Format("2006-01-02 15:04"), m.Path, strings.Join(m.Tags, ","), oneLine(m.Text))
	}
	return tw.Flush()
}

func runForget(ctx context.Context, c *client, args []string) error {
	in := mcp.ForgetInput{Confirm: c.yes}
	switch {
	case len(args) > 1:
		return usagef("unexpected argument %q", args[1])
	case len(args) == 1 && len(c.where) > 0:
		return usagef("give either an id or --where filters, not both")
	case len(args) == 1:
		id, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || id <= 0 {
			return usagef("%q is not a memory id", args[0])
		}
		in.ID = id
	case len(c.where) == 0:
		return usagef("forget needs an id or at least one --where key=value filter")
	}
	for _, w := range c.where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || strings.TrimSpace(v) == "" {
			return usagef("--where %q: want key=value with a value", w)
		}
		switch strings.TrimSpace(k) {
		case "scope":
			in.Scope = v
		case "kind":
			in.Kind = v
		case "tag", "tags":
			in.Tags = append(in.Tags, splitTags(v)...)
		case "repo":
			in.Repo = v
		case "since":
			in.Since = v
		case "before":
			in.Before = v
		default:
			return usagef("--where %q: unknown key %q (scope, kind, tag, repo, since, before)", w, k)
		}
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	res, err := c.store.Forget(ctx, in)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	fmt.Fprintf(c.stdout, "forgot %d memories\n", res.Deleted)
	return nil
}

func runTrace(ctx context.Context, c *client, args []string) error {
	if len(args) == 0 {
		return usagef("missing store or search")
	}
	switch args[0] {
	case "store":
		if len(args) > 1 {
			return usagef("unexpected argument %q (trace store takes flags only)", args[1])
		}
		if err := c.open(ctx); err != nil {
			return err
		}
		res, err := c.store.TraceStore(ctx, mcp.TraceInput{Agent: c.agent, Action: c.action, Reasoning: c.reasoning, Result: c.result,
			ToolOutput: c.output, Tags: splitTags(c.tags), Repo: c.repo})
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(res)
		}
		fmt.Fprintf(c.stdout, "stored trace %d\n", res.ID)
		c.printRedacted(res.Redacted)
		return nil
	case "search":
		query := ""
		if len(args) > 2 {
			return usagef("unexpected argument %q (quote the query)", args[2])
		}
		if len(args) == 2 {
			query = args[1]
		}
		if err := c.open(ctx); err != nil {
			return err
		}
		res, err := c.store.TraceSearch(ctx, mcp.TraceSearchInput{Query: query, Agent: c.agent, Result: c.result, Tags: splitTags(c.tags),
			Repo: c.repo, Since: c.since, Limit: c.limit, Offset: c.offset})
		if err != nil {
			return err
		}
		if c.json {
			return c.printJSON(res)
		}
		if len(res.Traces) == 0 {
			fmt.Fprintln(c.stdout, "no traces match")
			return nil
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tWHEN\tAGENT\tRESULT\tACTION")
		for _, t := range res.Traces {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", t.ID, t.CreatedAt.Local().Format("2006-01-02 15:04"), t.Agent, t.Result, oneLine(t.Action))
		}
		return tw.Flush()
	}
	return usagef("unknown trace command %q: want store or search", args[0])
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "dev"
}
