package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/functions/embedding"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/objstore"
	"github.com/cairn-db/cairn/wire"
	"github.com/cairn-db/cairn/wire/httpauth"
)

// shutdownTimeout is how long in-flight statements get to finish after
// SIGINT/SIGTERM before they are cancelled.
const shutdownTimeout = 3 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// A second signal while shutting down ends the process at once.
		<-ctx.Done()
		stop()
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		<-again
		fmt.Fprintln(os.Stderr, "cairn: second signal, exiting immediately")
		os.Exit(1)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// config is the command line after flags and environment are merged.
type config struct {
	dataDir string
	// storage is the object store the durable state lives in ("": the
	// data directory itself).
	storage  string
	listen   string
	http     string
	password string
	// httpToken is the bootstrap superuser's bearer token on the HTTP API
	// ("" = none); httpTokens is the file mapping more tokens to roles
	// ("" = none). With neither, the API needs no token.
	httpToken, httpTokens string
	// httpMaxConcurrency bounds the HTTP requests served at once ("" =
	// wire's default).
	httpMaxConcurrency string
	// mcpSQL ("on") adds the sql_query tool to the HTTP API's /mcp.
	mcpSQL string
	// flushRows and walCheckpoint tune storage ("" = storage's default).
	flushRows     string
	walCheckpoint string
	// maxStaleness is storage.Options.MaxStaleness ("" = 0).
	maxStaleness string
	// cacheSize is storage.Options.DiskCacheBytes ("" = unbounded).
	cacheSize string
	// memoryLimit is the soft memory limit ("off" = none).
	memoryLimit string
	// authenticationTimeout and writeTimeout bound a PostgreSQL
	// connection's start-up and each blocked write to it, as durations
	// ("" = wire's defaults).
	authenticationTimeout string
	writeTimeout          string
	// tlsCert and tlsKey are the files of the certificate both servers
	// present; tlsSelfSigned (a boolean) makes and keeps one in dataDir
	// instead. tlsRequired refuses PostgreSQL clients that do not ask for
	// TLS, and insecureListen allows a non-loopback address without TLS.
	tlsCert, tlsKey                            string
	tlsSelfSigned, tlsRequired, insecureListen string
	// embedURL, embedModel, embedKey, embedTimeout and embedRate
	// configure embed()'s endpoint ("" URL = none).
	embedURL, embedModel, embedKey, embedTimeout, embedRate string
	// nearDuplicate is the MCP endpoint's --near-duplicate.
	nearDuplicate string
	// maxConnections is max_connections ("" = session's default);
	// logConnections and logDisconnections (booleans) log each
	// connection and each session's end.
	maxConnections, logConnections, logDisconnections string
	// logMinDuration is log_min_duration_statement's server default.
	logMinDuration string
	// statementMem is statement_mem's server default.
	statementMem string
}

// option is one flag with its environment variable. An option whose arg
// is "" is a boolean (see boolFlag).
type option struct {
	name, env, def, arg, usage string
	dst                        *string
}

func options(cfg *config) []option {
	return []option{
		{"data-dir", "CAIRN_DATA_DIR", "./cairn-data", "dir", "data directory (with --storage: its local cache)", &cfg.dataDir},
		{"storage", "CAIRN_STORAGE", "", "s3://bucket/prefix", "keep the durable state (log, checkpoints, segments, indexes) in this object store, configured by the standard AWS_* environment (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, ...; path-style addressing with an endpoint); the data directory becomes a cache that may start empty", &cfg.storage},
		{"listen", "CAIRN_LISTEN", "127.0.0.1:5432", "host:port", "PostgreSQL protocol address (port 0 picks a free port)", &cfg.listen},
		{"http", "CAIRN_HTTP", "127.0.0.1:8080", "host:port|off", "HTTP API address, or off", &cfg.http},
		{"http-token", "CAIRN_HTTP_TOKEN", "", "token", "require Authorization: Bearer <token> on the HTTP API (all but /health and /ready); this token acts as the bootstrap superuser", &cfg.httpToken},
		{"http-tokens", "CAIRN_HTTP_TOKENS", "", "file", "file of more HTTP API tokens, a line \"role token\" (or \"role sha256:<hex>\") each: a request with one runs its SQL as that role, with its privileges", &cfg.httpTokens},
		{"http-max-concurrency", "CAIRN_HTTP_MAX_CONCURRENCY", "", "n", fmt.Sprintf("HTTP requests served at once; more get 503 with Retry-After (default %d)", wire.DefaultMaxConcurrency), &cfg.httpMaxConcurrency},
		{"mcp-sql", "CAIRN_MCP_SQL", "", "on|off", "add the read-only sql_query tool to the MCP endpoint /mcp (default off)", &cfg.mcpSQL},
		{"password", "CAIRN_PASSWORD", "", "secret", "the bootstrap superuser's (cairn's) password, stored as a SCRAM-SHA-256 verifier; with it every client must authenticate by SCRAM-SHA-256", &cfg.password},
		{"flush-rows", "CAIRN_FLUSH_ROWS", "", "n", fmt.Sprintf("rows a table buffers in memory before a background flush writes them to a Parquet segment (default %d)", storage.DefaultFlushRows), &cfg.flushRows},
		{"memory-limit", "CAIRN_MEMORY_LIMIT", "2.25GiB", "size|off", "soft limit on the server's memory besides its loaded vector indexes (Go's GOMEMLIMIT; the indexes are kept outside it); the cache of decoded columns gets 75% of it (off: no limit, storage's default cache)", &cfg.memoryLimit},
		{"wal-checkpoint-bytes", "CAIRN_WAL_CHECKPOINT_BYTES", "", "n", fmt.Sprintf("write-ahead log size that triggers a checkpoint (default %d)", storage.DefaultWALCheckpointBytes), &cfg.walCheckpoint},
		{"max-staleness", "CAIRN_MAX_STALENESS", "", "duration", "with --storage: how old the last catch-up with the commits of other servers on the storage may be for a transaction to begin without one, e.g. 200ms (default 0: every transaction first asks the store for the next log object, one round trip, and sees every commit acknowledged before it began on any server)", &cfg.maxStaleness},
		{"cache-size", "CAIRN_CACHE_SIZE", "", "size", "with --storage: the most disk the data directory may use as a cache of segment and index files, e.g. 20GiB; the least recently read go beyond it and are fetched again when read (default: unbounded, every file fetched stays)", &cfg.cacheSize},
		{"authentication-timeout", "CAIRN_AUTHENTICATION_TIMEOUT", "", "duration", fmt.Sprintf("time a PostgreSQL connection has from its accept to its first ReadyForQuery, start-up packet and password included, before it is dropped (default %s)", wire.DefaultAuthenticationTimeout), &cfg.authenticationTimeout},
		{"tls-cert", "CAIRN_TLS_CERT", "", "file", "PEM certificate (chain) the PostgreSQL port (on SSLRequest) and the HTTP API (HTTPS) present; needs --tls-key", &cfg.tlsCert},
		{"tls-key", "CAIRN_TLS_KEY", "", "file", "PEM private key of --tls-cert", &cfg.tlsKey},
		{"tls-self-signed", "CAIRN_TLS_SELF_SIGNED", "", "", "serve TLS with a self-signed certificate kept in the data directory (server.crt, server.key), made on the first start for localhost and the listen hosts", &cfg.tlsSelfSigned},
		{"tls-required", "CAIRN_TLS_REQUIRED", "", "", "refuse PostgreSQL clients that do not ask for TLS (28000, as pg_hba.conf's hostssl); the HTTP API speaks only HTTPS whenever TLS is on", &cfg.tlsRequired},
		{"insecure-listen", "CAIRN_INSECURE_LISTEN", "", "", "allow a non-loopback --listen or --http without TLS, passwords and data crossing the network in the clear", &cfg.insecureListen},
		{"embed-url", "CAIRN_EMBED_URL", "", "url", "OpenAI-compatible embeddings endpoint for the SQL function embed() and the memory tools, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1 (/embeddings is added)", &cfg.embedURL},
		{"embed-model", "CAIRN_EMBED_MODEL", "", "name", "embedding model sent to --embed-url (required with it), e.g. nomic-embed-text or text-embedding-3-small", &cfg.embedModel},
		{"embed-key", "CAIRN_EMBED_KEY", "", "key", "API key sent to --embed-url as Authorization: Bearer <key>", &cfg.embedKey},
		{"embed-timeout", "CAIRN_EMBED_TIMEOUT", "", "duration", fmt.Sprintf("time one request to --embed-url may take (default %s)", embedding.DefaultTimeout), &cfg.embedTimeout},
		{"near-duplicate", "CAIRN_NEAR_DUPLICATE", "", "similarity|off", nearDuplicateUsage + " (for the MCP endpoint /mcp; cairn remember and cairn mcp take their own)", &cfg.nearDuplicate},
		{"embed-rate", "CAIRN_EMBED_RATE", "", "n", fmt.Sprintf("most requests per second sent to --embed-url, over all statements, e.g. 0.5 for a plan allowing 30 a minute (default: no limit; at most %d requests are in flight either way)", embedding.DefaultMaxConcurrent), &cfg.embedRate},
		{"max-connections", "CAIRN_MAX_CONNECTIONS", "", "n", fmt.Sprintf("PostgreSQL connections served at once, %d of them kept for superusers; more are refused with 53300 (default %d)", session.DefaultSuperuserReservedConnections, session.DefaultMaxConnections), &cfg.maxConnections},
		{"log-connections", "CAIRN_LOG_CONNECTIONS", "", "", "log each PostgreSQL connection attempt and authorization (log_connections); failed authentications are always logged", &cfg.logConnections},
		{"log-disconnections", "CAIRN_LOG_DISCONNECTIONS", "", "", "log the end of each PostgreSQL session with its duration (log_disconnections)", &cfg.logDisconnections},
		{"log-min-duration-statement", "CAIRN_LOG_MIN_DURATION_STATEMENT", "-1", "ms|duration", "log every statement that runs at least this long, with its duration, text and plan (0: all, -1: none); sessions may SET log_min_duration_statement", &cfg.logMinDuration},
		{"statement-mem", "CAIRN_STATEMENT_MEM", session.DefaultStatementMem, "size", "memory one statement's sorts, hash tables and buffered rows may hold before it fails with 53200 (PostgreSQL units: 512MB, 2GB; 0: no limit); sessions and roles may SET statement_mem", &cfg.statementMem},
		{"write-timeout", "CAIRN_WRITE_TIMEOUT", "", "duration", fmt.Sprintf("time one write to a PostgreSQL or HTTP client may stay blocked (a client that stopped reading its results) before its connection is dropped and its statement ends (default %s)", wire.DefaultWriteTimeout), &cfg.writeTimeout},
	}
}

// parseConfig reads flags, falling back to the environment and then to
// the defaults. It returns flag.ErrHelp after printing the usage to stdout
// for --help.
func parseConfig(args []string, getenv func(string) string, stdout, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("cairn", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usageOut := stderr
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			usageOut = stdout // asked for: print to stdout
		}
	}
	opts := options(&cfg)
	for _, o := range opts {
		v := o.def
		if e := getenv(o.env); e != "" {
			v = e
		}
		if o.arg == "" {
			*o.dst = v
			fs.Var(boolFlag{o.dst}, o.name, o.usage)
			continue
		}
		fs.StringVar(o.dst, o.name, v, o.usage)
	}
	fs.Usage = func() {
		fmt.Fprintf(usageOut, "Usage: cairn [flags]\n       cairn COMMAND [flags] (cairn COMMAND --help for its own)\n\ncairn is a PostgreSQL-compatible SQL server for agent memory.\n\nCommands (clients of a running server):\n")
		for _, name := range slices.Sorted(maps.Keys(subcommands)) {
			fmt.Fprintf(usageOut, "  %-9s %s\n", name, subcommands[name].about)
		}
		fmt.Fprintf(usageOut, "\nServer flags (each also read from its environment variable; a flag wins):\n")
		for _, o := range opts {
			def := ""
			if o.def != "" {
				def = fmt.Sprintf(" (default %s)", o.def)
			}
			fmt.Fprintf(usageOut, "  --%s %s\n        %s%s\n        env %s\n", o.name, o.arg, o.usage, def, o.env)
		}
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return cfg, nil
}

// run is the whole server: it returns the exit code once ctx is cancelled
// (by a signal) and shutdown is complete, or at once on a startup error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && subcommands[args[0]] != nil {
		return runSubcommand(ctx, args[0], args[1:], os.Getenv, stdout, stderr)
	}
	cfg, err := parseConfig(args, os.Getenv, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	if cfg.mcpSQL != "" && !isOff(cfg.mcpSQL) && !strings.EqualFold(cfg.mcpSQL, "on") {
		fmt.Fprintf(stderr, "cairn: --mcp-sql %q: want on or off\n", cfg.mcpSQL)
		return 2
	}
	nearDuplicate, err := parseNearDuplicate(cfg.nearDuplicate)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	if err := checkTLSFlags(cfg); err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := checkAuth(cfg); err != nil {
		log.Error(err.Error())
		return 1
	}

	sopts, err := storageOptions(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	limit, err := parseSize(cfg.memoryLimit)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: --memory-limit: %v\n", err)
		return 2
	}
	authTimeout, err := parseTimeout(cfg.authenticationTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: --authentication-timeout: %v\n", err)
		return 2
	}
	writeTimeout, err := parseTimeout(cfg.writeTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: --write-timeout: %v\n", err)
		return 2
	}
	logMinDuration, err := session.CheckSetting("log_min_duration_statement", cfg.logMinDuration)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: --log-min-duration-statement: %v\n", err)
		return 2
	}
	statementMem, err := session.CheckSetting("statement_mem", cfg.statementMem)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: --statement-mem: %v\n", err)
		return 2
	}
	httpOpts, err := httpOptions(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	httpOpts.NearDuplicate, httpOpts.Logger = nearDuplicate, log
	httpOpts.BodyTimeout, httpOpts.WriteTimeout = defaultHTTPTimeouts.read, writeTimeout
	embedder, err := newEmbedder(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cairn: %v\n", err)
		return 2
	}
	var embed functions.Embedder // nil, not a nil *Client, without one
	if embedder != nil {
		embed = embedder
		log.Info("embedding endpoint", "url", embedder.URL(), "model", cfg.embedModel)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
		sopts.CacheBytes = limit / 4 * 3
	}
	if os.Getenv("GOGC") == "" { // a GOGC the user set is theirs
		startGCPacer(gcHeadroom(limit))
	}
	sopts.Logger = log
	if cfg.storage != "" {
		if sopts.Store, err = objstore.Open(ctx, cfg.storage); err != nil {
			log.Error("opening storage", "storage", cfg.storage, "err", err)
			return 1
		}
	}
	db, err := storage.Open(cfg.dataDir, sopts)
	if err != nil {
		log.Error("opening data directory", "dir", cfg.dataDir, "err", err)
		return 1
	}
	defer func() {
		if err := db.Close(); err != nil {
			log.Error("closing data directory", "err", err)
		}
	}()
	maxConns := 0
	if cfg.maxConnections != "" {
		if maxConns, err = strconv.Atoi(cfg.maxConnections); err != nil || maxConns < 1 {
			fmt.Fprintf(stderr, "cairn: --max-connections %q: want a positive integer\n", cfg.maxConnections)
			return 2
		}
	}
	// The NOTIFY queue lives in memory: an eighth of the memory limit.
	var notifyQueue int64
	if limit > 0 {
		notifyQueue = limit / 8
	}
	engine := session.NewEngine(db, session.Options{Logger: log, Embedder: embed, MaxConnections: maxConns, NotifyQueueBytes: notifyQueue,
		Settings: map[string]string{"log_min_duration_statement": logMinDuration, "statement_mem": statementMem}})
	var httpHost string
	if !isOff(cfg.http) {
		httpHost = cfg.http
	}
	tlsCfg, err := loadTLS(cfg, listenHosts(cfg.listen, httpHost), log)
	if err != nil {
		log.Error(err.Error())
		return 1
	}

	pgl, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		log.Error("listening for postgres", "addr", cfg.listen, "err", err)
		return 1
	}
	var httpl net.Listener
	httpAddr := "off"
	if !isOff(cfg.http) {
		if httpl, err = net.Listen("tcp", cfg.http); err != nil {
			pgl.Close()
			log.Error("listening for http", "addr", cfg.http, "err", err)
			return 1
		}
		httpAddr = httpl.Addr().String()
	}

	if cfg.password != "" {
		if err := engine.SetBootstrapPassword(cfg.password); err != nil {
			log.Error("setting the bootstrap superuser's password", "err", err)
			return 1
		}
		if httpl != nil && cfg.httpToken == "" && cfg.httpTokens == "" {
			log.Warn("the HTTP API asks no token: any local user can run SQL there as cairn, past --password; give --http-token (or --http off)", "http", httpAddr)
		}
	}
	srv := &wire.Server{Engine: engine, Logger: log, AuthenticationTimeout: authTimeout, WriteTimeout: writeTimeout,
		TLSConfig: tlsCfg, TLSRequired: isTrue(cfg.tlsRequired), Auth: wire.NewRoleAuth(engine, log),
		LogConnections: isTrue(cfg.logConnections), LogDisconnections: isTrue(cfg.logDisconnections)}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(pgl) }()
	var hs *http.Server
	// Requests still running when the HTTP server's shutdown gives up are
	// cancelled, so no statement outlives the storage it runs on.
	httpCtx, cancelHTTP := context.WithCancel(context.Background())
	defer cancelHTTP()
	if httpl != nil {
		hs = newHTTPServer(httpCtx, wire.HTTPHandler(engine, httpOpts), log, defaultHTTPTimeouts)
		if tlsCfg != nil {
			hs.TLSConfig = tlsCfg.Clone()
			go func() { errc <- hs.ServeTLS(httpl, "", "") }()
		} else {
			go func() { errc <- hs.Serve(httpl) }()
		}
	}
	tlsMode := "off"
	switch {
	case isTrue(cfg.tlsRequired):
		tlsMode = "required"
	case tlsCfg != nil:
		tlsMode = "on"
	}
	log.Info("listening", "postgres", pgl.Addr().String(), "http", httpAddr, "tls", tlsMode)

	code := 0
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-errc:
		log.Error("server failed", "err", err)
		code = 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if hs != nil {
		if err := hs.Shutdown(sctx); err != nil {
			log.Warn("http shutdown: requests cancelled", "err", err)
		}
	}
	cancelHTTP()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("postgres shutdown: statements cancelled", "err", err)
	}
	log.Info("stopped")
	return code
}

// httpTimeouts bound how long one HTTP client may hold a connection, and
// with it a goroutine and the memory of its request, without finishing.
type httpTimeouts struct {
	// readHeader bounds reading a request's headers.
	readHeader time.Duration
	// read bounds reading a whole request, headers and body: a client
	// that trickles its body is cut off then. The API reads a body under
	// deadlines of its own (wire.HTTPOptions.BodyTimeout, which main
	// sets to this).
	read time.Duration
	// idle bounds the wait for the next request on a kept-alive
	// connection.
	idle time.Duration
}

// defaultHTTPTimeouts are the HTTP API's. Ten minutes to read a request
// is enough for the largest body the API takes (wire.DefaultMaxBodyBytes,
// 64 MiB) over a link of about 1 Mbit/s, and a client that sends a byte
// a second holds its connection for ten minutes, not for ever.
var defaultHTTPTimeouts = httpTimeouts{readHeader: 10 * time.Second, read: 10 * time.Minute, idle: 2 * time.Minute}

// newHTTPServer is the HTTP API's server: requests run under base, whose
// cancellation ends those still running at shutdown, and the server's
// own errors go to log as warnings. The read timeout bounds reading a
// request only (net/http clears the deadline once the body has been
// read), and there is no write timeout: a query runs, and its answer goes
// out, for as long as the query takes (the API bounds each write of an
// answer instead, wire.HTTPOptions.WriteTimeout).
func newHTTPServer(base context.Context, h http.Handler, log *slog.Logger, t httpTimeouts) *http.Server {
	return &http.Server{
		BaseContext:       func(net.Listener) context.Context { return base },
		Handler:           h,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		IdleTimeout:       t.idle,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// parseTimeout reads a timeout flag: a positive Go duration ("90s",
// "2m"), or "" for the default (0).
func parseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (e.g. 30s, 2m)", s)
	}
	return d, nil
}

// newEmbedder is the client of --embed-url, nil (no embedder) without one.
func newEmbedder(cfg config) (*embedding.Client, error) {
	if cfg.embedURL == "" {
		return nil, nil
	}
	timeout, err := parseTimeout(cfg.embedTimeout)
	if err != nil {
		return nil, fmt.Errorf("--embed-timeout: %w", err)
	}
	var rps float64
	if cfg.embedRate != "" {
		rps, err = strconv.ParseFloat(cfg.embedRate, 64)
		if err != nil || !(rps > 0) || math.IsInf(rps, 0) {
			return nil, fmt.Errorf("--embed-rate %q: want a positive number of requests per second", cfg.embedRate)
		}
	}
	c, err := embedding.New(embedding.Config{URL: cfg.embedURL, Model: cfg.embedModel, Key: cfg.embedKey, Timeout: timeout, RequestsPerSecond: rps})
	if err != nil {
		return nil, fmt.Errorf("--embed-url: %w", err)
	}
	return c, nil
}

// storageOptions turns the storage tuning flags into storage.Options.
func storageOptions(cfg config) (storage.Options, error) {
	var o storage.Options
	if cfg.flushRows != "" {
		n, err := strconv.Atoi(cfg.flushRows)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("--flush-rows %q: want a positive integer", cfg.flushRows)
		}
		o.FlushRows = n
	}
	if cfg.walCheckpoint != "" {
		n, err := strconv.ParseInt(cfg.walCheckpoint, 10, 64)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("--wal-checkpoint-bytes %q: want a positive integer", cfg.walCheckpoint)
		}
		o.WALCheckpointBytes = n
	}
	if cfg.maxStaleness != "" {
		if cfg.storage == "" {
			return o, fmt.Errorf("--max-staleness needs --storage: a local data directory has one server, always up to date")
		}
		d, err := parseTimeout(cfg.maxStaleness)
		if err != nil {
			return o, fmt.Errorf("--max-staleness: %w", err)
		}
		o.MaxStaleness = d
	}
	if cfg.cacheSize != "" {
		if cfg.storage == "" {
			return o, fmt.Errorf("--cache-size needs --storage: without it the data directory holds the database itself, not a cache")
		}
		n, err := parseSize(cfg.cacheSize)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("--cache-size %q: want a positive size such as 20GiB", cfg.cacheSize)
		}
		o.DiskCacheBytes = n
	}
	return o, nil
}

// parseSize reads a byte size such as "2.5GiB", "512MiB", "1GB" or a bare
// number of bytes; "off" and "0" mean no limit (0).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "off") {
		return 0, nil
	}
	units := []struct {
		suffix string
		size   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 2.5GiB, 512MiB, off)", s)
	}
	return int64(v * mult), nil
}

// httpOptions reads the HTTP API's token flags and its concurrency limit.
func httpOptions(cfg config) (wire.HTTPOptions, error) {
	opts := wire.HTTPOptions{Token: cfg.httpToken, MCPSQL: strings.EqualFold(cfg.mcpSQL, "on")}
	if cfg.httpTokens != "" {
		opts.Tokens = &httpauth.Tokens{}
		if err := opts.Tokens.Load(cfg.httpTokens); err != nil {
			return opts, fmt.Errorf("--http-tokens: %w", err)
		}
		if role, dup := opts.Tokens.Role(cfg.httpToken); dup {
			return opts, fmt.Errorf("--http-token is also in --http-tokens, for role %q: one token must stand for one role", role)
		}
	}
	if cfg.httpMaxConcurrency != "" {
		n, err := strconv.Atoi(cfg.httpMaxConcurrency)
		if err != nil || n < 1 {
			return opts, fmt.Errorf("--http-max-concurrency %q: want a positive integer", cfg.httpMaxConcurrency)
		}
		opts.MaxConcurrency = n
	}
	return opts, nil
}

// checkAuth enforces the password rules: without a password only loopback
// addresses may be served (every client is trusted then). With one, the
// PostgreSQL port asks for it (SCRAM-SHA-256) and the HTTP API needs
// --http-token or --http-tokens to leave loopback. A non-loopback address also needs TLS,
// or --insecure-listen to say that passwords and data may cross the
// network in the clear.
func checkAuth(cfg config) error {
	type open struct{ flag, addr, secret string }
	var addrs []open
	if cfg.password == "" {
		addrs = append(addrs, open{"--listen", cfg.listen, "--password (CAIRN_PASSWORD)"})
	}
	if !isOff(cfg.http) && cfg.httpToken == "" && cfg.httpTokens == "" {
		addrs = append(addrs, open{"--http", cfg.http, "--http-token (CAIRN_HTTP_TOKEN) or --http-tokens (CAIRN_HTTP_TOKENS)"})
	}
	if !tlsOn(cfg) && !isTrue(cfg.insecureListen) {
		addrs = append(addrs, open{"--listen", cfg.listen, ""})
		if !isOff(cfg.http) {
			addrs = append(addrs, open{"--http", cfg.http, ""})
		}
	}
	for _, a := range addrs {
		ok, err := isLoopback(a.addr)
		if err != nil {
			return fmt.Errorf("%s %s: %v", a.flag, a.addr, err)
		}
		switch {
		case ok:
		case a.secret == "":
			return fmt.Errorf("refusing to listen on non-loopback address %s (%s) without TLS: passwords and data would cross the network in the clear; give --tls-cert and --tls-key or --tls-self-signed, or --insecure-listen to accept that", a.addr, a.flag)
		default:
			return fmt.Errorf("refusing to listen on non-loopback address %s (%s) without %s: every client would be trusted, so only 127.0.0.1, ::1 or localhost are allowed", a.addr, a.flag, a.secret)
		}
	}
	return nil
}

func isOff(addr string) bool { return strings.EqualFold(addr, "off") }

// isLoopback reports whether every address host:port can bind to is a
// loopback one; an empty host (all interfaces) is not.
func isLoopback(hostport string) (bool, error) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false, err
	}
	if host == "" {
		return false, nil
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback(), nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false, err
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false, nil
		}
	}
	return len(ips) > 0, nil
}
