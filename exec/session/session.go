package session

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// Options configures an Engine.
type Options struct {
	Logger *slog.Logger
	// Embedder computes embed()'s vectors (the server's --embed-url); nil
	// when none is configured, and embed() fails with 55000.
	Embedder functions.Embedder
	// MaxConnections and SuperuserReservedConnections bound the sessions
	// Login opens (0: DefaultMaxConnections and
	// DefaultSuperuserReservedConnections).
	MaxConnections, SuperuserReservedConnections int
	// Settings are the server's defaults of run-time parameters (name ->
	// value), as postgresql.conf gives them: a session starts with them
	// and RESET returns to them. Check each with CheckSetting first; a
	// value that fails it is logged and left out.
	Settings map[string]string
	// NotifyQueueBytes bounds the notifications committed and not yet
	// sent to the listening sessions' clients (PostgreSQL's NOTIFY queue,
	// notify.go); 0: DefaultNotifyQueueBytes.
	NotifyQueueBytes int64
}

// Engine runs SQL against one storage.DB; it is safe for concurrent use
// by many sessions.
type Engine struct {
	db       *storage.DB
	logger   *slog.Logger
	exprs    *exec.ExprCache
	advisory advisoryTable
	// listeners are the sessions listening on each channel (notify.go).
	listeners listeners
	embedder  functions.Embedder
	sessions  registry
	metrics   *metrics
	// stats are the activity counters of pg_stat_user_tables and
	// pg_stat_database.
	stats exec.Stats
	// statements are pg_stat_statements' (statements.go).
	statements statementStats
	// lastXid is the transaction ID given last (Session.begin).
	lastXid atomic.Uint32
	limits  connLimits
	// defaults are Options.Settings, checked and normalised.
	defaults map[string]string
	// snapshots are the exported snapshots (snapshots.go).
	snapshots exportedSnapshots
}

// exprCacheBytes bounds the memoised expression results of an engine.
const exprCacheBytes = 256 << 20

// NewEngine returns an engine over db.
func NewEngine(db *storage.DB, opts Options) *Engine {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	e := &Engine{db: db, logger: logger, exprs: exec.NewExprCache(exprCacheBytes), embedder: opts.Embedder, defaults: map[string]string{}}
	for name, v := range opts.Settings {
		name = strings.ToLower(name)
		nv, err := CheckSetting(name, v)
		if err != nil {
			logger.Error("ignoring a setting's default", "setting", name, "value", v, "err", err)
			continue
		}
		e.defaults[name] = nv
	}
	if err := e.dropLeftTempSchemas(); err != nil {
		logger.Error("dropping temporary schemas of an earlier run", "err", err)
	}
	e.listeners.max = opts.NotifyQueueBytes
	if e.listeners.max <= 0 {
		e.listeners.max = DefaultNotifyQueueBytes
	}
	e.metrics = newMetrics(e)
	e.limits = connLimits{max: opts.MaxConnections, reserved: opts.SuperuserReservedConnections, byUser: map[string]int{}}
	if e.limits.max <= 0 {
		e.limits.max = DefaultMaxConnections
	}
	if e.limits.reserved <= 0 {
		e.limits.reserved = min(DefaultSuperuserReservedConnections, e.limits.max-1)
	}
	return e
}

// DB is the storage the engine runs on.
func (e *Engine) DB() *storage.DB { return e.db }

// Session is one client connection's SQL state: settings, the open
// transaction, prepared statements. A session is used by one goroutine at
// a time.
type Session struct {
	// xid is the transaction ID of xidTx, the session's latest storage
	// transaction (exec.Runtime.Xid).
	xid    uint32
	xidTx  *storage.Tx
	engine *Engine
	// authUser is the name the client logged in as (pg_stat_activity's
	// usename, what RESET SESSION AUTHORIZATION returns to); the current
	// and session users are settings (role.go).
	authUser string
	database string
	// login marks a session opened by Login, counted against the
	// connection limits until Close.
	login  bool
	values map[string]string
	// resetValues are the values the session started with, which RESET
	// and DISCARD ALL go back to (resetValue).
	resetValues map[string]string
	// changed holds the reported settings that statements set since the
	// last TakeChangedParameters, and reported the value the client was
	// last told of each (ParameterStatus, TakeChangedParameters): as in
	// PostgreSQL 14 and later, a setting is reported again only when its
	// value differs from that one.
	changed  map[string]string
	reported map[string]string
	notices  []Notice

	// tx is the explicit transaction (BEGIN ... COMMIT), nil in autocommit.
	tx         *storage.Tx
	txFailed   bool
	savepoints []savepoint
	// deferred are the open transaction's deferred foreign key checks
	// (deferred.go).
	deferred exec.DeferredChecks
	// txStart is the transaction timestamp of the open transaction.
	txStart time.Time
	// isolation and readOnly are the open transaction's modes; queried is
	// set once it ran a statement that reads or writes (its snapshot is
	// then taken). implicit marks a transaction the session opened for a
	// block of statements, which commits when the block ends (txn.go).
	isolation string
	readOnly  bool
	queried   bool
	// exported: the transaction exported its snapshot (snapshots.go).
	exported bool
	implicit bool
	// multiStatement is set while a simple query of several statements
	// runs: its implicit block is a transaction block to the statements
	// that refuse one (refuseInBlock), as in PostgreSQL.
	multiStatement bool
	// txValues are the settings as they were before the open transaction
	// first changed one (nil: unchanged); txLocal names those SET LOCAL
	// changed, txKept holds what the transaction's last plain SET (or
	// RESET) of each left. A rollback restores them all; a commit puts
	// each local one back to its txKept value, or to its txValues one
	// when no plain SET changed it, as PostgreSQL's GUC stack does
	// (settings.go).
	txValues map[string]string
	txLocal  map[string]bool
	txKept   map[string]keptValue

	// prepared are the session's prepared statements: one namespace for
	// SQL PREPARE and the protocol's Parse, as in PostgreSQL, so that
	// EXECUTE, DEALLOCATE, DISCARD ALL and Bind each see both kinds.
	prepared map[string]*Statement
	// portals are the named portals: the protocol's (Bind) and the
	// cursors of DECLARE, one namespace as in PostgreSQL.
	portals map[string]*Portal
	seqs    exec.SequenceValues
	// parsed are the settings parsed for use, nil until needed after a
	// change (settings.go).
	parsed *parsedSettings
	// stmtCtx is the running statement's context (an advisory lock wait
	// ends with it); xactAdvisory the transaction's advisory locks.
	stmtCtx      context.Context
	xactAdvisory []heldAdvisory
	// stmtStart is when the running statement's message came: the
	// Execute's, or the simple query's for all its statements
	// (statement_timestamp(), PostgreSQL's time of receipt of the latest
	// command message); queryStart is the simple query's while it runs.
	stmtStart, queryStart time.Time

	// pid is the backend process id the engine assigned (activity.go);
	// started is when the session opened; act is its pg_stat_activity
	// row, which other sessions read.
	pid     int32
	started time.Time
	act     activity

	// tempName is the session's temporary schema ("" before it is
	// known or where it can have none), tempMade set once the session
	// created it; onCommit holds the ON COMMIT DROP / DELETE ROWS clauses
	// of its temporary tables by table ID (temp.go).
	tempName string
	tempMade bool
	onCommit map[uint64]sql.OnCommit

	// listening are the channels the session listens on, notify what its
	// transaction asked of LISTEN/NOTIFY, inbox the notifications that
	// reached it (notify.go).
	listening map[string]bool
	notify    notifyState
	inbox     inbox

	// plDepth is how deeply PL/pgSQL bodies are nested in the running
	// statement; plRows the rows the last statement one of them ran
	// changed or returned (plpgsql.go).
	plDepth int
	plRows  int64
	// evalDepth counts the expression evaluations nested on the
	// session's stack, across the statements it runs inside one another
	// (exec.EvalDepth).
	evalDepth exec.EvalDepth
	// plCache are the trigger functions compiled (trigger.go), plBodies
	// the functions calls compiled.
	plCache  map[string]compiledTrigger
	plBodies sql.PLBodies
	// plStmts are the statements of PL/pgSQL bodies run so far, with
	// their bindings (plStatement).
	plStmts map[*sql.PLExpr]*Statement
	// plCasts are the statements SELECT CAST($1 AS type) of PL/pgSQL
	// assignments, by type (plCast).
	plCasts map[string]*Statement
}

type savepoint struct {
	name string
	mark int
	// notify is how far the transaction's LISTEN/NOTIFY had gone.
	notify notifyMark
	// values, local and kept are the settings, the SET LOCAL names and
	// the plain SETs' values when the savepoint was set: ROLLBACK TO
	// restores them.
	values map[string]string
	local  map[string]bool
	kept   map[string]keptValue
	// deferred is where the deferred foreign key checks stood.
	deferred exec.DeferredMark
}

// Statement is a parsed and analysed statement: its parameter types and
// result columns (nil when it returns no rows).
type Statement struct {
	SQL        string
	ParamTypes []types.T
	Columns    []Column

	// parsed is the statement's parse; nil for an empty query.
	parsed *sql.Parsed
	// simple marks a statement of the simple query protocol, which has no
	// parameters.
	simple bool
	// fixedResult marks a statement whose result columns a client has
	// been told (Columns, set when it was prepared): a later binding must
	// keep them (PostgreSQL's "cached plan must not change result type").
	fixedResult bool
	// What pg_prepared_statements shows of a prepared statement: whether
	// SQL PREPARE made it (and its text), when, and how many times it
	// was bound to run.
	fromSQL     bool
	prepareText string
	prepareTime time.Time
	runs        int64

	// cached is the statement's last binding of a plan (SELECT, INSERT,
	// UPDATE, DELETE), reused by the next Bind when nothing it depends on
	// changed: executing a prepared statement again costs no parse
	// analysis or planning (see bindCached).
	cached *boundPlan
	// paramKeyText is the text of ParamTypes in a bindKey, computed for
	// the slice paramKeyOf (paramKey).
	paramKeyOf   []types.T
	paramKeyText string
}

// boundPlan is a statement bound to a plan, with what the binding
// depended on.
type boundPlan struct {
	key     bindKey
	bound   sql.Statement
	params  []types.T
	columns []Column
	// schemas are the Arrow schemas of a kept plan's operators, made
	// once for all its executions (nil for a binding not kept).
	schemas *exec.PlanSchemas
}

// bindKey is what a binding depends on besides the statement: the
// catalog (immutable: a DDL makes a new one), the parameter types asked
// for, and the settings the binder reads (search_path and the user its
// $user names, and the TimeZone, DateStyle, extra_float_digits,
// bytea_output and IntervalStyle that constant casts follow; the user and row_security also decide which
// row-level security policies filter the plan).
type bindKey struct {
	cat      *catalog.Catalog
	params   string
	settings bindSettings
}

// Empty reports whether st is an empty query (nothing but white space
// and comments), which a Parse may prepare.
func (st *Statement) Empty() bool { return st.parsed == nil }

// Portal is a statement bound to parameter values, ready to run. A portal
// whose Execute was suspended keeps its operator open for the next call.
// A named portal (BindPortal, or a cursor of DECLARE) lives in the
// session until closed; an unnamed one of Bind belongs to its caller.
type Portal struct {
	name   string
	stmt   *Statement
	bound  sql.Statement // nil for an empty query
	params []any
	// paramTypes are the parameter types the portal was bound with: its
	// statement's, but for an array's dimensions (valueDims).
	paramTypes []types.T
	columns    []Column
	// schemas are the prepared schemas of the plan's operators, nil when
	// they are built as it runs (boundPlan.schemas).
	schemas *exec.PlanSchemas
	// cat is the catalog a portal bound outside a transaction block was
	// bound against (nil inside one, whose snapshot the binding used):
	// the statement's own transaction begins later, and planFor binds
	// it again if a DDL committed in between.
	cat *catalog.Catalog
	// ResultFormats are the formats the client chose for the result
	// columns (extended protocol; nil: all text). The session keeps them
	// with the portal and does not read them.
	ResultFormats []int16

	run *portalRun
	// cursor marks a cursor of DECLARE: its run started at the DECLARE;
	// hold is WITH HOLD; inTx is set while the transaction that declared
	// it is open (it ends with it unless held and committed).
	cursor, hold, inTx bool
	// completed is the tag of the Execute that ran the portal to its
	// end (nil before).
	completed *Tag
	// level is the number of savepoints open when the portal was made,
	// lowered as they are released: ROLLBACK TO a savepoint closes the
	// portals made after it, as PostgreSQL drops a subtransaction's.
	level int
	// created is when a named portal was made (pg_cursors).
	created time.Time
}

// portalRun is the state of a portal between Executes of a row-returning
// statement.
type portalRun struct {
	op exec.Operator
	// endTx is readTx's done for the run's transaction (its own read
	// transaction, or a no-op in the session's); failed makes it count
	// the transaction rolled back. Nil for a run that has no
	// transaction of its own (RETURNING rows, a cursor in a block).
	endTx func(committed bool)
	// endErr is what ending the run's transaction failed with: the
	// commit of a query's PL/pgSQL writes (runProcedural).
	endErr  error
	failed  bool
	rows    int64
	pending arrow.Record // rows of a batch left over after a row limit
	done    bool
	// dmlTag is the tag of a data-modifying statement whose RETURNING
	// rows are being streamed.
	dmlTag Tag
	// ctx is the context the operator is pulled under, made at the first
	// pull. Operators keep the context of their first Next (scans and
	// parallel workers they start hold on to it), and a run outlives the
	// Execute or FETCH that started it, so ctx is not the statement's:
	// each pull ties it to the pulling statement's context for its
	// length, and close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
}

// Columns are the portal's result columns (nil: no rows).
func (p *Portal) Columns() []Column { return p.columns }

// Empty reports whether the portal is of an empty query, which Execute
// answers with EmptyQueryResponse.
func (p *Portal) Empty() bool { return p.bound == nil }

// ModifiesData reports whether the portal's statement writes rows (INSERT,
// UPDATE, DELETE, MERGE, or a query headed by data-modifying WITH
// queries): it runs to completion at its first Execute.
func (p *Portal) ModifiesData() bool {
	q, ok := p.bound.(*sql.Query)
	if !ok {
		return false
	}
	switch q.Plan.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge, *sql.ModifyingWith:
		return true
	}
	return false
}

// NewSession opens a session of user with the default settings, without
// Login's checks, and registers it with the engine under a new pid
// (pg_stat_activity) until Close.
func (e *Engine) NewSession(user, database string) *Session {
	s, _ := e.newSession(user, database, nil, nil) // no startup parameters to fail
	return s
}

// newSession is NewSession with the role's defaults (ALTER ROLE ... SET,
// "name=value" each) and then the client's startup parameters
// (applyStartup), whose failure, returned, opens no session.
func (e *Engine) newSession(user, database string, roleConfig []string, startup map[string]string) (*Session, error) {
	s := &Session{engine: e, authUser: user, database: database, values: map[string]string{}, changed: map[string]string{}, prepared: map[string]*Statement{}, portals: map[string]*Portal{}}
	s.values["session_authorization"] = user
	s.values["max_connections"] = strconv.Itoa(e.limits.max)
	s.values["superuser_reserved_connections"] = strconv.Itoa(e.limits.reserved)
	if !roleNamed(e.db.Catalog(), user).Superuser {
		s.values["is_superuser"] = "off"
	}
	s.started = time.Now()
	for _, kv := range roleConfig {
		name, v, _ := strings.Cut(kv, "=")
		if st, ok := lookupSetting(name); ok && !st.readOnly {
			if nv, err := st.validate(v, s.get(name)); err == nil {
				s.values[name] = nv
			}
		}
	}
	if err := s.applyStartup(startup); err != nil {
		return nil, err
	}
	s.resetValues = maps.Clone(s.values)
	s.act.closed = make(chan struct{})
	s.act.rowWait = s.rowLockWait
	s.act.appName, s.act.state, s.act.stateChange = s.get("application_name"), stateIdle, s.started
	e.sessions.add(s)
	return s, nil
}

// Close releases everything the session holds; an open transaction is
// rolled back.
func (s *Session) Close() {
	defer close(s.act.closed)
	defer s.engine.sessions.remove(s)
	if s.login {
		defer s.engine.limits.leave(s.authUser)
	}
	s.closePortals(func(*Portal) bool { return true })
	s.engine.advisory.releaseAll(s, true)
	s.xactAdvisory = nil
	if s.tx != nil {
		s.tx.Rollback()
		s.engine.stats.XactEnded(false)
		s.tx = nil
	}
	s.engine.dropSnapshots(s)
	s.forgetNotify()
	s.unlistenAll()
	if s.tempMade {
		if err := s.dropTempSchema(); err != nil {
			s.engine.logger.Error("dropping a session's temporary schema", "schema", s.tempSchema(), "err", err)
		}
	}
}

// get returns a setting's current value.
func (s *Session) get(name string) string {
	if v, ok := s.values[name]; ok {
		return v
	}
	return s.engine.settingDefault(name)
}

// resetValue is the value RESET gives setting name: the one the session
// started with, from its role's ALTER ROLE ... SET defaults and its
// startup parameters (PostgreSQL's reset value), else the server's
// default.
func (s *Session) resetValue(name string) string {
	if v, ok := s.resetValues[name]; ok {
		return v
	}
	return s.engine.settingDefault(name)
}

// settingDefault is the value setting name has when a session did not
// set it: the server's configured default, or the built-in one.
func (e *Engine) settingDefault(name string) string {
	if v, ok := e.defaults[name]; ok {
		return v
	}
	return settings[name].def
}

// ParameterStatus returns the parameters reported to the client at startup.
func (s *Session) ParameterStatus() map[string]string {
	out := map[string]string{}
	for name, st := range settings {
		if st.report {
			out[showName(name)] = s.get(name)
		}
	}
	s.reported = maps.Clone(out)
	return out
}

// TakeChangedParameters returns (and forgets) the reported parameters
// statements changed since the last call whose values differ from those
// the client was last told: a SET to the value a setting already has, a
// SET rolled back, or a DISCARD ALL that leaves the role as it was is
// not reported.
func (s *Session) TakeChangedParameters() map[string]string {
	if len(s.changed) == 0 {
		return nil
	}
	if s.reported == nil {
		s.reported = map[string]string{}
	}
	var out map[string]string
	for name, v := range s.changed {
		if old, ok := s.reported[name]; ok && old == v {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = v
		s.reported[name] = v
	}
	s.changed = map[string]string{}
	return out
}

// TakeNotices returns (and forgets) notices raised since the last call.
func (s *Session) TakeNotices() []Notice {
	n := s.notices
	s.notices = nil
	return n
}

// notice queues a NOTICE with its SQLSTATE (PostgreSQL sends 42P07 for
// "already exists, skipping", 00000 for "does not exist, skipping").
func (s *Session) notice(code, format string, args ...any) {
	s.notices = append(s.notices, Notice{Severity: "NOTICE", Code: code, Message: fmt.Sprintf(format, args...)})
}

// TxStatus reports the session's transaction state.
func (s *Session) TxStatus() TxStatus {
	switch {
	case s.tx == nil:
		return TxIdle
	case s.txFailed:
		return TxFailed
	}
	return TxActive
}

// IdleTimeout is how long the client may leave the session waiting for
// its next query, and the FATAL error that ends the session when it
// does, as PostgreSQL's timers armed at ReadyForQuery: inside a
// transaction block idle_in_transaction_session_timeout (25P03),
// outside one idle_session_timeout (57P05). 0 means no limit.
func (s *Session) IdleTimeout() (time.Duration, error) {
	p := s.parsedSettings()
	if s.TxStatus() == TxIdle {
		if p.idleSessionTimeout <= 0 {
			return 0, nil
		}
		return p.idleSessionTimeout, pgerr.New(pgerrcode.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	}
	if p.idleInTxTimeout <= 0 {
		return 0, nil
	}
	return p.idleInTxTimeout, pgerr.New(pgerrcode.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout")
}

// Location is the session's TimeZone.
func (s *Session) Location() *time.Location { return s.parsedSettings().loc }

// searchPath resolves the search_path setting to schema names. The slice
// is shared: callers do not change it.
func (s *Session) searchPath() []string { return s.parsedSettings().searchPath }

// CurrentSchema is current_schema(): the first schema of the search path
// that exists, a system schema (pg_catalog) included.
func (s *Session) CurrentSchema() string {
	cat := s.catalog()
	p := s.parsedSettings()
	if p.currentSchemaOf == cat {
		return p.currentSchema
	}
	p.currentSchema, p.currentSchemaOf = "", cat
	path, implicitTemp := s.effectiveSearchPath(cat)
	if implicitTemp {
		path = path[1:]
	}
	for _, name := range path {
		if _, ok := cat.Schemas[name]; ok || syscat.IsSystemSchema(name) {
			p.currentSchema = name
			break
		}
	}
	return p.currentSchema
}

// Setting is current_setting(name) in the session.
func (s *Session) Setting(name string) (string, bool) { return s.env().Setting(name) }

// catchUp, outside a transaction block, brings in the commits of other
// servers on the same object store (storage.DB.CatchUp) before a statement
// binds, so that it sees every commit acknowledged before it began.
func (s *Session) catchUp() error {
	if s.tx != nil {
		return nil
	}
	return s.engine.db.CatchUp()
}

// catalog is the catalog the session's next statement sees.
func (s *Session) catalog() *catalog.Catalog {
	if s.tx != nil {
		return s.tx.Catalog()
	}
	return s.engine.db.Catalog()
}

// Prepare parses and analyses text for the extended query protocol (and
// the HTTP API): paramTypes gives the known parameter types, Unknown ones
// are inferred, and a single statement is bound now so that its parameter
// and result types are known. Text may hold several statements or none
// (an empty query); those of a simple query run through Query instead.
//
// A panic while parsing or binding fails the message with XX000 and
// leaves the session running (see guard).
func (s *Session) Prepare(text string, paramTypes []types.T) (stmts []*Statement, err error) {
	err = s.guard("preparing statement", text, func() error {
		if err := s.catchUp(); err != nil {
			return err
		}
		stmts, err = s.prepare(text, paramTypes)
		return err
	})
	return stmts, err
}

// Query runs a simple-protocol query: the statements of text in turn,
// each bound once (without parameters) when its turn comes, since earlier
// ones may create what it uses, and handed to run, which executes it
// (Execute, or CopyFrom/CopyTo as its Copy says); the portal is closed
// after. Several statements run as one implicit transaction, as in
// PostgreSQL: the first error (from binding or from run) ends the query
// and rolls back what the others did. empty reports a query of nothing
// but white space and comments.
func (s *Session) Query(ctx context.Context, text string, run func(*Portal) error) (empty bool, err error) {
	s.queryStart = time.Now()
	defer func() { s.queryStart = time.Time{} }()
	stmts, err := s.Prepare(text, nil)
	if err != nil || len(stmts) == 0 {
		return len(stmts) == 0 && err == nil, err
	}
	if len(stmts) == 1 {
		return false, s.runSimple(stmts[0], run)
	}
	s.multiStatement = true
	defer func() { s.multiStatement = false }()
	for _, st := range stmts {
		s.BeginImplicit()
		if err = s.runSimple(st, run); err != nil {
			s.AbortBlock()
			break
		}
	}
	if cerr := s.EndImplicit(); err == nil {
		err = cerr
	}
	return false, err
}

// runSimple binds st without parameters and hands the portal to run.
func (s *Session) runSimple(st *Statement, run func(*Portal) error) error {
	p, err := s.Bind(st, nil)
	if err != nil {
		return err
	}
	defer s.ClosePortal(p)
	return run(p)
}

// prepare is Prepare without the panic guard.
func (s *Session) prepare(text string, paramTypes []types.T) ([]*Statement, error) {
	raws, err := sql.Parse(text)
	if err != nil {
		s.fail()
		return nil, err
	}
	out := make([]*Statement, len(raws))
	for i, r := range raws {
		out[i] = &Statement{SQL: r.Text, ParamTypes: append([]types.T(nil), paramTypes...), parsed: r, simple: paramTypes == nil}
	}
	if len(out) == 1 && paramTypes != nil && !s.txFailed {
		st := out[0]
		s.statementSnapshot(st)
		bp, err := s.bindCached(st)
		if err != nil {
			s.fail()
			return nil, err
		}
		st.ParamTypes = bp.params
		st.Columns, st.fixedResult = bp.columns, true
	}
	return out, nil
}

// bind binds a statement against the session's current catalog.
func (s *Session) bind(st *Statement, params []types.T) (sql.Statement, []types.T, error) {
	return s.bindIn(s.catalog(), st, params)
}

// bindIn binds a statement against cat.
func (s *Session) bindIn(cat *catalog.Catalog, st *Statement, params []types.T) (sql.Statement, []types.T, error) {
	b := s.binder(cat)
	b.Params, b.NoParams = append([]types.T(nil), params...), st.simple
	bound, err := b.Bind(st.parsed)
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkAccesses(cat, b.Accesses()); err != nil {
		return nil, nil, err
	}
	if err := b.FinishParams(); err != nil {
		return nil, nil, err
	}
	return bound, b.Params, nil
}

// binder is a binder over cat with the session's search path, settings
// and prepared statements.
func (s *Session) binder(cat *catalog.Catalog) *sql.Binder {
	return &sql.Binder{Catalog: cat, SearchPath: s.bindSearchPath(cat), PLBodies: &s.plBodies, TempSchema: s.tempSchema(), CreateInTemp: s.createsInTemp(cat), Location: s.Location(), Now: s.now(),
		DateStyle: s.DateStyle(), Floats: s.floatStyle(),
		ByteaEscape: s.parsedSettings().byteaEscape, IntervalStyle: s.parsedSettings().intervalStyle, Prepared: s.preparedParams,
		Role: s.currentRole(cat).OID, RowSecurityOff: !isOn(s.get("row_security")),
		NoIndexScans: !isOn(s.get("enable_indexscan")), NoBitmapScans: !isOn(s.get("enable_bitmapscan")),
		NoBodyChecks: !isOn(s.get("check_function_bodies"))}
}

// preparedParams are the parameter types of the prepared statement name.
func (s *Session) preparedParams(name string) ([]types.T, bool) {
	st, ok := s.prepared[name]
	if !ok {
		return nil, false
	}
	return st.ParamTypes, true
}

// resultColumns describes the rows a bound statement returns.
func (s *Session) resultColumns(bound sql.Statement) []Column {
	switch x := bound.(type) {
	case *sql.Query:
		plan := x.Plan
		if m, ok := plan.(*sql.ModifyingWith); ok {
			plan = m.Input
		}
		switch n := plan.(type) {
		case *sql.Insert:
			if n.Returning == nil {
				return nil
			}
		case *sql.Update:
			if n.Returning == nil {
				return nil
			}
		case *sql.Delete:
			if n.Returning == nil {
				return nil
			}
		case *sql.Merge:
			return nil
		}
		return visibleColumns(x.Plan.Columns())
	case *sql.Show:
		return []Column{{Name: showName(x.Name), Type: types.TextT}}
	case *sql.Execute:
		if x.Explain {
			return []Column{{Name: "QUERY PLAN", Type: sql.ExplainColumnType(x.ExplainFormat)}}
		}
		if p, ok := s.prepared[x.Name]; ok {
			return p.Columns
		}
	case *sql.Fetch:
		if c, ok := s.portals[x.Name]; ok && !x.Move {
			return c.columns
		}
	}
	return nil
}

func visibleColumns(cols []sql.Col) []Column {
	var out []Column
	for _, c := range cols {
		if c.Hidden {
			continue
		}
		out = append(out, Column{Name: c.Name, Type: c.T, TableOID: c.TableOID, Attnum: c.Attnum})
	}
	if out == nil {
		out = []Column{}
	}
	return out
}

// Bind binds parameter values (datums, see package types) to st. The
// statement is bound again against the current catalog, so a portal
// always plans with the latest table definitions. A panic while binding
// fails the message with XX000 and leaves the session running (see
// guard).
func (s *Session) Bind(st *Statement, params []any) (p *Portal, err error) {
	err = s.guard("binding statement", st.SQL, func() error {
		if err := s.catchUp(); err != nil {
			return err
		}
		p, err = s.bindPortal(st, params)
		return err
	})
	return p, err
}

// bindPortal is Bind without the panic guard.
func (s *Session) bindPortal(st *Statement, params []any) (*Portal, error) {
	if s.txFailed && !endsTx(st) {
		return nil, errTxAborted()
	}
	s.statementSnapshot(st)
	bp, err := s.bindCached(st)
	if err != nil {
		s.fail()
		return nil, err
	}
	if st.fixedResult && !sameResultColumns(st.Columns, bp.columns) {
		// A DDL since the statement was prepared changed what it
		// returns; the client decodes rows by the columns it was told.
		s.fail()
		return nil, errResultChanged()
	}
	if len(params) != len(bp.params) {
		return nil, pgerr.New(pgerrcode.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"\" requires %d", len(params), len(bp.params))
	}
	st.runs++
	if err := s.lookupRegParams(bp.params, params); err != nil {
		s.fail()
		return nil, err
	}
	paramTypes := st.ParamTypes
	if ptypes, changed := valueDims(bp.params, params); changed {
		// Bound again for this portal; the binding is not kept.
		if bp, err = s.bindPlan(st, bp.key, ptypes); err != nil {
			s.fail()
			return nil, err
		}
		paramTypes = ptypes
	}
	return &Portal{stmt: st, bound: bp.bound, paramTypes: paramTypes, params: params, columns: bp.columns, schemas: bp.schemas, cat: bp.key.cat}, nil
}

// valueDims returns the parameter types ptypes with each array's
// dimensions those of the value params gives it, and whether any differs.
// PostgreSQL's int[] holds arrays of any dimensions; cairn's array types
// carry theirs, so '{{1,2},{3,4}}' bound to an int[] parameter makes it
// int[][] for this portal.
func valueDims(ptypes []types.T, params []any) ([]types.T, bool) {
	var out []types.T
	for i, t := range ptypes {
		a, ok := params[i].(*types.Array)
		if !ok || !t.IsArray() || t.Domain != "" || len(a.Dims) == 0 || len(a.Dims) == t.Dims {
			continue
		}
		if out == nil {
			out = slices.Clone(ptypes)
		}
		out[i] = types.ArrayOf(*t.Elem, len(a.Dims))
	}
	return out, out != nil
}

// planFor returns plan, portal p's, or the plan p gets bound again
// against the catalog tx reads when that is no longer the catalog p was
// bound against. Outside a
// transaction block a statement is bound against the latest catalog and
// its own transaction begins after: a DDL that commits in between (ALTER
// TABLE ADD or DROP COLUMN by another session) would leave the plan
// reading columns the snapshot's table no longer has, and the statement
// failing with 40001. PostgreSQL's statement waits for the DDL's lock and
// plans after it; here the statement is bound again against tx's catalog.
// A simple query's result columns may change with it (its RowDescription
// is not out yet); those of the extended protocol, which a Describe may
// have given the client, may not.
func (s *Session) planFor(p *Portal, tx *storage.Tx, plan sql.Node) (sql.Node, error) {
	cat := tx.Catalog()
	if p.cat == nil || p.cat == cat {
		return plan, nil
	}
	bound, _, err := s.bindIn(cat, p.stmt, p.paramTypes)
	if err != nil {
		return nil, err
	}
	q, isPlan := bound.(*sql.Query)
	if !isPlan {
		return nil, pgerr.New(pgerrcode.InternalError, "statement %q bound again is no query", p.stmt.SQL)
	}
	columns := s.resultColumns(bound)
	if !sameResultColumns(p.columns, columns) {
		if !p.stmt.simple {
			return nil, pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update").
				WithDetail("A concurrent transaction changed the statement's result columns after they were described.").
				WithHint("Retry the statement.")
		}
		p.columns = columns
	}
	p.bound, p.cat, p.schemas = bound, cat, nil
	if !p.stmt.simple {
		p.schemas = exec.PrepareSchemas(q.Plan)
	}
	return q.Plan, nil
}

// sameResultColumns reports whether two bindings of a statement return
// the same columns: names and types.
func sameResultColumns(a, b []Column) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true // the binding the statement was described by
	}
	return slices.EqualFunc(a, b, func(x, y Column) bool { return x.Name == y.Name && x.Type.Equal(y.Type) })
}

// bindCached binds st with its parameter types against the session's
// current catalog, or returns the binding kept from the last time when
// the catalog and the settings binding reads are the same: a plan
// depends on nothing else (parameter values are read when it runs), and
// a bound statement is immutable, so portals may share it. Only plans
// are kept; utility statements (SET, EXECUTE, COPY...) are bound afresh.
func (s *Session) bindCached(st *Statement) (*boundPlan, error) {
	key := s.bindKey(st)
	if c := st.cached; c != nil && c.key == key {
		return c, nil
	}
	bp, err := s.bindPlan(st, key, st.ParamTypes)
	if err != nil {
		return nil, err
	}
	if bp.schemas != nil { // only plans of the extended protocol are kept
		st.cached = bp
	}
	return bp, nil
}

// bindPlan binds st with parameter types ptypes, as the binding of key;
// a plan of the extended protocol gets its prepared schemas.
func (s *Session) bindPlan(st *Statement, key bindKey, ptypes []types.T) (*boundPlan, error) {
	bound, ptypes, err := s.bind(st, ptypes)
	if err != nil {
		return nil, err
	}
	bp := &boundPlan{key: key, bound: bound, params: ptypes, columns: s.resultColumns(bound)}
	if q, isPlan := bound.(*sql.Query); isPlan && !st.simple {
		bp.schemas = exec.PrepareSchemas(q.Plan)
	}
	return bp, nil
}

// bindKey is the key under which a binding of a statement with parameter
// types params is kept.
func (s *Session) bindKey(st *Statement) bindKey {
	return bindKey{cat: s.catalog(), params: st.paramKey(), settings: s.parsedSettings().bind}
}

// paramKey is the text of the statement's parameter types in bindKey,
// kept until ParamTypes is given another slice (nothing changes its
// elements in place).
func (st *Statement) paramKey() string {
	if len(st.ParamTypes) == 0 {
		return ""
	}
	if len(st.paramKeyOf) == len(st.ParamTypes) && &st.paramKeyOf[0] == &st.ParamTypes[0] {
		return st.paramKeyText
	}
	var b strings.Builder
	for _, t := range st.ParamTypes {
		b.WriteString(t.String())
		b.WriteByte(',')
	}
	st.paramKeyOf, st.paramKeyText = st.ParamTypes, b.String()
	return st.paramKeyText
}

// lookupRegParams turns the text of reg* parameters ('jsonb' for a
// regtype, 'public.t' for a regclass), which the wire layer leaves as
// strings, into the OIDs they name: their input functions read the
// catalog, as PostgreSQL's do.
func (s *Session) lookupRegParams(ptypes []types.T, params []any) error {
	var view *syscat.View
	for i, t := range ptypes {
		text, ok := params[i].(string)
		if !ok || !t.IsOID() || t.Family == types.Oid {
			continue
		}
		if view == nil {
			cat := s.catalog()
			view = syscat.NewView(cat, s.currentUser(), s.database, s.bindSearchPath(cat))
		}
		oid, err := view.Lookup(t.Family, text)
		if err != nil {
			return err
		}
		params[i] = oid
	}
	return nil
}

// endsTx reports whether st ends the transaction (COMMIT, ROLLBACK,
// ROLLBACK TO), which runs even in an aborted one.
func endsTx(st *Statement) bool { return st.parsed != nil && st.parsed.EndsTransaction() }

// CheckBind is the check PostgreSQL makes before a Bind message reads its
// parameters: in an aborted transaction only a statement that ends it,
// bound without parameters, binds (an empty one does not); anything else
// fails with 25P02, before a parameter's own error.
func (s *Session) CheckBind(st *Statement, nparams int) error {
	if s.tx != nil && s.txFailed && (!endsTx(st) || nparams != 0) {
		return errTxAborted()
	}
	return nil
}

// CheckDescribe is PostgreSQL's check of a Describe message: in an
// aborted transaction a statement or portal that returns rows is not
// described (25P02); one that returns none is.
func (s *Session) CheckDescribe(cols []Column) error {
	if s.tx != nil && s.txFailed && cols != nil {
		return errTxAborted()
	}
	return nil
}

// CheckStatementColumns is what a Describe of prepared statement st
// checks after its parameters, as PostgreSQL revalidates the statement
// there: a DDL since st was prepared that changed the columns it returns
// is 0A000 "cached plan must not change result type", and one that broke
// it (a table dropped) its binding error, where the columns it was
// prepared with went out and the Bind that followed failed. It does not
// fail the transaction: Describe's caller does.
func (s *Session) CheckStatementColumns(st *Statement) error {
	if !st.fixedResult || st.Columns == nil {
		return nil
	}
	return s.guard("describing statement", st.SQL, func() error {
		if err := s.catchUp(); err != nil {
			return err
		}
		s.statementSnapshot(st)
		bp, err := s.bindCached(st)
		if err != nil {
			return err
		}
		if !sameResultColumns(st.Columns, bp.columns) {
			return errResultChanged()
		}
		return nil
	})
}

// errResultChanged is PostgreSQL's error for a prepared statement whose
// result columns a DDL changed after the client was told them. asyncpg
// recognises it by its routine (and prepares the statement again where
// it can).
func errResultChanged() error {
	return pgerr.New(pgerrcode.FeatureNotSupported, "cached plan must not change result type").WithRoutine("RevalidateCachedQuery")
}

// refuseInBlock is PostgreSQL's PreventInTransactionBlock for what (a
// statement's name; "" refuses nothing): it fails in a transaction block,
// one the client began or the implicit one of a simple query of several
// statements. An extended-protocol pipeline's statements are not in a
// block.
func (s *Session) refuseInBlock(what string) error {
	if what != "" && s.tx != nil && (!s.implicit || s.multiStatement) {
		return pgerr.New(pgerrcode.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return nil
}

func errTxAborted() error {
	return pgerr.New(pgerrcode.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// Execute runs the portal, calling emit for each batch of result rows, up
// to maxRows rows (0: all). suspended reports that rows remain for a later
// Execute. The records passed to emit are valid only during the call.
//
// A portal that ran to completion does not run again, as in PostgreSQL: a
// later Execute of one that returns rows reports none ("SELECT 0",
// "INSERT 0 0"), of any other fails with 55000.
func (s *Session) Execute(ctx context.Context, p *Portal, maxRows int, emit func(arrow.Record) error) (tag Tag, suspended bool, err error) {
	err = s.statement(ctx, p, func(ctx context.Context) (int64, error) {
		if p.completed != nil {
			if len(p.columns) == 0 {
				return 0, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", p.name)
			}
			tag = Tag{Command: p.completed.Command, HasRows: p.completed.HasRows}
			return 0, nil
		}
		var err error
		tag, suspended, err = s.execute(ctx, p, maxRows, emit)
		return tag.Rows, err
	})
	if err == nil && !suspended && p.completed == nil {
		p.completed = &tag
	}
	return tag, suspended, err
}

// statement runs the work of portal p (Execute, CopyFrom, CopyTo): not
// in an aborted transaction unless p ends it, under statement_timeout, and
// an error marks the open transaction failed. A panic in the statement's
// work, here or in a goroutine it started, is logged with its stack and
// fails the statement with XX000; the session lives on.
func (s *Session) statement(ctx context.Context, p *Portal, run func(context.Context) (rows int64, err error)) error {
	if s.txFailed && !endsTx(p.stmt) {
		return errTxAborted()
	}
	if timeout := s.parsedSettings().statementTimeout; timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := s.startActivity(redactPasswords(p.stmt.SQL))
	ctx = storage.WithLockWait(ctx, s.act.rowWait)
	s.stmtCtx = ctx
	s.stmtStart = s.queryStart
	if s.stmtStart.IsZero() {
		s.stmtStart = time.Now()
	}
	defer func() { s.stmtStart = time.Time{} }()
	var rows int64
	err := exec.CatchPanic(func() (err error) {
		rows, err = run(ctx)
		return err
	})
	s.stmtCtx = nil
	took := time.Since(start)
	s.engine.metrics.observe(kindOf(p.bound), took)
	if err == nil {
		s.engine.statements.record(p.stmt.parsed, s.currentRole(s.catalog()).OID, took, rows)
	}
	s.logSlow(p, took, err)
	if pe := exec.AsPanic(err); pe != nil {
		s.engine.logger.Error("panic running statement", "panic", pe.Value, "statement", redactPasswords(p.stmt.SQL), "stack", string(pe.Stack))
		s.abandonRun(p)
		err = pe.Err
	}
	if s.tx == nil {
		s.endTxAdvisory() // the statement was its own transaction
	}
	if err != nil {
		s.fail()
		if ctx.Err() == context.DeadlineExceeded {
			err = pgerr.New(pgerrcode.QueryCanceled, "canceling statement due to statement timeout")
		}
	}
	return err
}

// statementContext is the running statement's context, or the
// background outside a statement.
func (s *Session) statementContext() context.Context {
	if s.stmtCtx == nil {
		return context.Background()
	}
	return s.stmtCtx
}

// fail marks the explicit transaction aborted after an error. Without a
// savepoint to roll back to, nothing of it can commit or continue, so it
// is rolled back at once, as PostgreSQL aborts a transaction at its error:
// its row and key locks are released now, not when the client gets round
// to ROLLBACK, so a session waiting on them (the other side of a
// deadlock, a writer of the same key) goes on. The block stays failed
// (25P02) until ROLLBACK or COMMIT, whose own Rollback is then a no-op.
func (s *Session) fail() {
	if s.tx != nil {
		s.txFailed = true
		if !s.implicit && len(s.savepoints) == 0 {
			s.tx.Rollback()
		}
		s.releaseXactAdvisory(len(s.savepoints))
	}
}

func (s *Session) execute(ctx context.Context, p *Portal, maxRows int, emit func(arrow.Record) error) (Tag, bool, error) {
	switch x := p.bound.(type) {
	case *sql.Query:
		if x.Procedural && !s.currentReadOnly() {
			return s.runProcedural(ctx, p, x.Plan, maxRows, emit)
		}
		return s.runQuery(ctx, p, x.Plan, maxRows, emit)
	case *sql.Transaction:
		tag, err := s.runTransaction(x)
		return commandTag(tag), false, err
	case *sql.Set:
		tag := "SET"
		if x.Tag != "" {
			tag = x.Tag
		}
		return commandTag(tag), false, s.runSet(x)
	case *sql.SetTransaction:
		return commandTag("SET"), false, s.runSetTransaction(x)
	case *sql.SetConstraints:
		return commandTag("SET CONSTRAINTS"), false, s.runSetConstraints(x)
	case *sql.Show:
		return s.runShow(x, emit)
	case *sql.Prepare:
		return commandTag("PREPARE"), false, s.runPrepare(x, p.stmt.SQL)
	case *sql.Execute:
		return s.runExecute(ctx, x, maxRows, emit)
	case *sql.Deallocate:
		if x.All {
			s.dropAllPrepared()
		} else if _, ok := s.prepared[x.Name]; !ok {
			return Tag{}, false, pgerr.New(pgerrcode.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", x.Name)
		} else {
			delete(s.prepared, x.Name)
		}
		if x.All {
			return commandTag("DEALLOCATE ALL"), false, nil
		}
		return commandTag("DEALLOCATE"), false, nil
	case *sql.NoOp:
		return commandTag(x.Tag), false, nil
	case *sql.Listen:
		verb := "LISTEN"
		if x.Unlisten {
			verb = "UNLISTEN"
		}
		tag, err := s.inTx(ctx, func(tx *storage.Tx) (Tag, error) {
			return commandTag(verb), s.queueListen(tx, x.Channel, !x.Unlisten)
		})
		return tag, false, err
	case *sql.Notify:
		// Allowed in a read-only transaction, as PostgreSQL's
		// ClassifyUtilityCommandAsReadOnly has it.
		tag, err := s.inTx(ctx, func(tx *storage.Tx) (Tag, error) {
			return commandTag("NOTIFY"), s.queueNotify(tx, x.Channel, x.Payload)
		})
		return tag, false, err
	case *sql.Vacuum:
		if err := s.refuseInBlock(x.NoTxBlock); err != nil {
			return Tag{}, false, err
		}
		verb := strings.ToLower(x.Tag)
		for _, name := range x.Skipped {
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "01000", Message: fmt.Sprintf("skipping \"%s\" --- cannot %s non-tables or special system tables", name, verb)})
		}
		return commandTag(x.Tag), false, nil
	case *sql.Checkpoint:
		return commandTag("CHECKPOINT"), false, s.runCheckpoint()
	case *sql.LockTable:
		if s.tx == nil || s.implicit {
			return Tag{}, false, pgerr.New(pgerrcode.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
		}
		return commandTag("LOCK TABLE"), false, nil
	case *sql.Discard:
		return commandTag("DISCARD " + x.What), false, s.runDiscard(x)
	case *sql.DeclareCursor:
		tag, err := s.declareCursor(ctx, x, p)
		return commandTag(tag), false, err
	case *sql.Fetch:
		tag, err := s.fetch(ctx, x, emit)
		return tag, false, err
	case *sql.CloseCursor:
		tag, err := s.closeCursor(x, p)
		return commandTag(tag), false, err
	case *sql.Copy:
		return Tag{}, false, errCopyPortal("Execute")
	case *sql.Do:
		return commandTag("DO"), false, s.runDo(ctx, x)
	}
	if err := s.checkWritable(p.bound); err != nil {
		return Tag{}, false, err
	}
	if x, ok := p.bound.(*sql.CreateTableAs); ok {
		tag, err := s.inTx(ctx, func(tx *storage.Tx) (Tag, error) { return s.createTableAs(ctx, tx, x) })
		return tag, false, err
	}
	var build *progress
	if x, ok := p.bound.(*sql.CreateIndex); ok {
		defer s.setProgress(nil)
		build = s.indexProgress(x)
		s.setProgress(build)
	}
	tag, err := s.inTx(ctx, func(tx *storage.Tx) (Tag, error) {
		return commandTag(sql.CommandName(p.bound)), s.runDDL(ctx, tx, p.bound)
	})
	if x, ok := p.bound.(*sql.CreateIndex); ok && err == nil && s.tx == nil {
		indexed := func(rows int64) { build.tuples.Add(rows) }
		err = s.buildVectorIndex(ctx, x, indexed)
		if err == nil && x.Def.Trigram() {
			err = s.buildTrigramIndex(ctx, x, indexed)
		}
		if err == nil && (x.Def.Method == "btree" || x.Def.Method == "hash") {
			err = s.buildKeyIndex(ctx, x)
		}
	}
	return tag, false, err
}

// buildVectorIndex builds a committed vector index over the rows its
// table has, so that CREATE INDEX returns with the index built, as in
// PostgreSQL; other sessions read and write the table meanwhile. In a
// transaction block the build waits for the first search after COMMIT.
// The index is committed already: a statement cancelled (or timed out)
// while it waits succeeds, and the builds finish in the background.
// indexed counts the rows indexed (CREATE INDEX's progress).
func (s *Session) buildVectorIndex(ctx context.Context, x *sql.CreateIndex, indexed func(rows int64)) error {
	def := s.engine.db.Catalog().TableByID(x.Def.Table)
	if def == nil || x.Def.VectorMetric(def) == "" {
		return nil
	}
	err := s.engine.db.BuildVectorIndexes(ctx, def.ID, indexed)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// buildTrigramIndex builds a committed trigram index over the rows its
// table has, as buildVectorIndex does a vector index; a search builds
// what a cancelled build left.
func (s *Session) buildTrigramIndex(ctx context.Context, x *sql.CreateIndex, indexed func(rows int64)) error {
	err := s.engine.db.BuildTrigramIndexes(ctx, x.Def.Table, indexed)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// buildKeyIndex builds the in-memory key index of each segment of a
// committed btree or hash index's table, so that the first lookup does
// not pay for it; a lookup builds what a cancelled build left.
func (s *Session) buildKeyIndex(ctx context.Context, x *sql.CreateIndex) error {
	err := s.engine.db.BuildKeyIndexes(ctx, x.Def.Table)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// statementMem is statement_mem in bytes, 0 for no limit.
func (s *Session) statementMem() int64 { return s.parsedSettings().statementMem }

// StatementMem is statement_mem in bytes, 0 for no limit: the bound of
// what a front end buffers of a statement's result (the HTTP API).
func (s *Session) StatementMem() int64 { return s.statementMem() }

// now is the transaction's current time: when its block began, or the
// wall clock outside one (now(), 'now'::timestamptz).
func (s *Session) now() time.Time {
	if s.tx != nil {
		return s.txStart
	}
	return s.statementNow()
}

// statementNow is the running statement's start (statement_timestamp()),
// or the wall clock outside one.
func (s *Session) statementNow() time.Time {
	if !s.stmtStart.IsZero() {
		return s.stmtStart
	}
	return time.Now()
}

// nextXid gives out transaction IDs in order, from PostgreSQL's first
// normal one (3) and past the special ones (0 to 2) when they wrap.
func (e *Engine) nextXid() uint32 {
	for {
		if x := e.lastXid.Add(1); x > 2 {
			return x
		}
	}
}

// runtime builds the exec.Runtime of one statement.
func (s *Session) runtime(tx *storage.Tx, params []any) *exec.Runtime {
	rt := &exec.Runtime{
		Fn:        &functions.Context{Now: s.now(), StatementNow: s.statementNow(), Location: s.Location(), DateStyle: s.DateStyle(), Floats: s.floatStyle(), ByteaEscape: s.parsedSettings().byteaEscape, IntervalStyle: s.parsedSettings().intervalStyle, Mem: memory.DefaultAllocator, Session: s.env()},
		Params:    params,
		Tx:        tx,
		DB:        s.engine.db,
		Xid:       s.xid,
		ExprCache: s.engine.exprs,
		Seqs:      &s.seqs,
		ReadOnly:  s.currentReadOnly(),
		Stats:     &s.engine.stats,
		Mem:       exec.NewMemoryBudget(s.statementMem()),
		Depth:     &s.evalDepth,
	}
	rt.Fn.Catalog = rt.CatalogFunctions()
	rt.Fn.Advisory = sessionAdvisory{s}
	if tx != nil {
		rt.Triggers = sessionTriggers{s, tx}
		rt.Deferred = s.deferredChecks(tx)
		rt.Fn.Procedural = func(body any, args []any) (any, error) { return s.callPL(tx, body.(*sql.PLCall), args) }
		rt.Fn.ProceduralSet = func(body any, args []any) ([][]any, error) {
			return s.callPLSet(tx, rt.Mem, body.(*sql.PLCall), args)
		}
	}
	rt.Fn.Notify = func(channel, payload string) error { return s.queueNotify(tx, channel, payload) }
	if e := s.engine.embedder; e != nil {
		rt.Fn.Embed = func(texts []string) ([][]float32, error) { return e.Embed(s.statementContext(), texts) }
	}
	return rt
}

// runQuery runs SELECT, INSERT, UPDATE, DELETE, MERGE and EXPLAIN plans.
func (s *Session) runQuery(ctx context.Context, p *Portal, plan sql.Node, maxRows int, emit func(arrow.Record) error) (Tag, bool, error) {
	switch n := plan.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge:
		return s.runToCompletion(ctx, p, plan, maxRows, emit, func(rt *exec.Runtime, plan sql.Node) (Tag, exec.Operator, error) {
			changed, returning, err := exec.RunDML(ctx, rt, plan)
			return rowsTag(exec.DMLCommand(plan), changed), returning, err
		})
	case *sql.ModifyingWith:
		return s.runToCompletion(ctx, p, plan, maxRows, emit, func(rt *exec.Runtime, plan sql.Node) (Tag, exec.Operator, error) {
			command, count, result, err := exec.RunModifyingWith(ctx, rt, plan.(*sql.ModifyingWith))
			return rowsTag(command, count), result, err
		})
	case *sql.Explain:
		lines, err := s.explain(ctx, p, n)
		if err != nil {
			return Tag{}, false, err
		}
		return commandTag("EXPLAIN"), false, emitText(lines, emit)
	}
	// A SELECT ... FOR UPDATE that meets a row changed by a transaction
	// which committed after its snapshot runs again on a new snapshot
	// under READ COMMITTED, as long as it has sent no row (LockRows).
	rerun := p.run == nil && s.currentIsolation() == exec.ReadCommitted
	var sent int64
	var suspended bool
	var err error
	for attempt := 0; ; attempt++ {
		if p.run == nil {
			tx, endTx := s.readTx()
			if plan, err = s.planFor(p, tx, plan); err != nil {
				endTx(false)
				return Tag{}, false, err
			}
			rt := s.runtime(tx, p.params)
			rt.Schemas = p.schemas
			rt.RerunOnGoneLock = rerun
			op, err := exec.Build(rt, plan)
			if err != nil {
				endTx(false)
				return Tag{}, false, err
			}
			p.run = &portalRun{op: op, endTx: endTx}
		}
		emitted := false
		sent, suspended, err = streamRows(ctx, p.run, maxRows, func(rec arrow.Record) error {
			emitted = true
			return emit(rec)
		})
		if err == nil || !rerun || emitted || !storage.IsConflict(err) || attempt >= maxStatementRetries || ctx.Err() != nil {
			break
		}
		p.run.failed = true
		p.closeRun()
		p.run = nil
		if s.tx != nil {
			s.tx.Refresh()
		}
	}
	if err != nil || !suspended {
		p.run.failed = err != nil
		p.closeRun()
	}
	if err != nil {
		return Tag{}, false, err
	}
	return rowsTag("SELECT", sent), suspended, nil
}

// runToCompletion runs a statement that writes (a data-modifying one, or
// one headed by data-modifying WITH queries) at the first Execute, in the
// transaction (retried as inTx does), keeping its result rows for this
// Execute and later ones. run returns the statement's tag and its result
// rows (an operator, computed already) from the plan it is given: plan,
// or p's bound again for the transaction it runs in (planFor).
func (s *Session) runToCompletion(ctx context.Context, p *Portal, plan sql.Node, maxRows int, emit func(arrow.Record) error, run func(rt *exec.Runtime, plan sql.Node) (Tag, exec.Operator, error)) (Tag, bool, error) {
	if p.run == nil {
		if err := s.checkWritable(p.bound); err != nil {
			return Tag{}, false, err
		}
		var result exec.Operator
		tag, err := s.inTx(ctx, func(tx *storage.Tx) (Tag, error) {
			if result != nil {
				result.Close() // an earlier attempt's
				result = nil
			}
			var err error
			if plan, err = s.planFor(p, tx, plan); err != nil { // kept for a retry
				return Tag{}, err
			}
			rt := s.runtime(tx, p.params)
			rt.Schemas = p.schemas
			tag, op, err := run(rt, plan)
			result = op
			return tag, err
		})
		if err != nil {
			if result != nil {
				result.Close()
			}
			return Tag{}, false, err
		}
		p.run = &portalRun{op: result}
		if len(result.Schema().Fields()) == 0 {
			p.run.done = true
			result.Close()
			return tag, false, nil
		}
		p.run.dmlTag = tag
	}
	sent, suspended, err := streamRows(ctx, p.run, maxRows, emit)
	if err != nil || suspended {
		return Tag{}, suspended, err
	}
	// The tag counts the rows this Execute sent, as PostgreSQL's does
	// when earlier ones with a row limit sent the others: "INSERT 0 2"
	// after one row of three.
	tag := p.run.dmlTag
	tag.Rows = sent
	return tag, false, nil
}

// closeRun releases a portal's running operator and read transaction.
func (p *Portal) closeRun() {
	if p.run != nil {
		p.run.close()
	}
}

// close releases a run's operator and its own read transaction, once.
func (r *portalRun) close() {
	if r.done {
		return
	}
	r.done = true
	if r.pending != nil {
		r.pending.Release()
		r.pending = nil
	}
	r.op.Close()
	if r.cancel != nil {
		r.cancel()
	}
	if r.endTx != nil {
		r.endTx(!r.failed)
	}
}

// BindPortal binds st to params as Bind does and keeps the portal under
// name, in the namespace cursors share: the unnamed portal ("") is
// replaced, a named one must be new (42P03). An empty query makes an
// empty portal.
func (s *Session) BindPortal(name string, st *Statement, params []any) (*Portal, error) {
	if old, ok := s.portals[name]; ok {
		if name != "" {
			return nil, pgerr.New(pgerrcode.DuplicateCursor, "cursor \"%s\" already exists", name)
		}
		s.ClosePortal(old)
	}
	p := &Portal{stmt: st}
	if !st.Empty() {
		var err error
		if p, err = s.Bind(st, params); err != nil {
			return nil, err
		}
	}
	p.name = name
	p.level = len(s.savepoints)
	p.created = time.Now()
	s.portals[name] = p
	return p, nil
}

// Portal returns the named portal (a cursor of DECLARE is one too).
func (s *Session) Portal(name string) (*Portal, bool) {
	p, ok := s.portals[name]
	return p, ok
}

// ClosePortal releases a portal's resources, and forgets it if it is a
// named one.
func (s *Session) ClosePortal(p *Portal) {
	p.closeRun()
	if s.portals[p.name] == p {
		delete(s.portals, p.name)
	}
}

// DropPortals closes the protocol's portals once no transaction is open
// (after Sync, or a simple query), as PostgreSQL drops portals when their
// transaction ends; inside BEGIN ... COMMIT they live on, for cursor-style
// fetches. Cursors of DECLARE follow their own rules (endTxCursors).
func (s *Session) DropPortals() {
	if s.tx == nil {
		s.closePortals(func(p *Portal) bool { return !p.cursor })
	}
}

// closePortals closes the named portals that close says to.
func (s *Session) closePortals(close func(*Portal) bool) {
	for _, p := range s.portals {
		if close(p) {
			s.ClosePortal(p)
		}
	}
}

// streamRows pulls batches from run.op and emits up to maxRows rows (0:
// all). It returns the number of rows emitted as the tag text, and
// suspended when it stopped at maxRows (rows may remain).
func streamRows(ctx context.Context, run *portalRun, maxRows int, emit func(arrow.Record) error) (sent int64, suspended bool, err error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		rec := run.pending
		run.pending = nil
		if rec == nil {
			if rec, err = run.pull(ctx); rec == nil {
				return sent, false, err
			}
		}
		n := rec.NumRows()
		if maxRows > 0 && sent+n > int64(maxRows) {
			take := int64(maxRows) - sent
			head := rec.NewSlice(0, take)
			run.pending = rec.NewSlice(take, n)
			rec.Release()
			err := emit(head)
			head.Release()
			sent += take
			if err != nil {
				return 0, false, err
			}
			return sent, true, nil
		}
		err := emit(rec)
		rec.Release()
		if err != nil {
			return 0, false, err
		}
		sent += n
		if maxRows > 0 && sent == int64(maxRows) {
			// Suspended without looking for more rows, as PostgreSQL:
			// an Execute whose limit took the last row still answers
			// PortalSuspended, and the next one finds the end (SELECT
			// 0). Looking ahead would also run the plan further than
			// the client asked for.
			return sent, true, nil
		}
	}
}

// pull returns the run's next batch, retained, or nil at the end. A
// cancel or timeout of ctx, the statement's context, during the pull
// cancels the run's own context: the statement fails and the run with it.
func (r *portalRun) pull(ctx context.Context) (arrow.Record, error) {
	if r.ctx == nil {
		r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	}
	stop := context.AfterFunc(ctx, r.cancel)
	rec, err := r.op.Next(r.ctx)
	stop()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec.Retain()
	return rec, nil
}

func (s *Session) runTransaction(t *sql.Transaction) (string, error) {
	noTx := func() {
		s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "25P01", Message: "there is no transaction in progress"})
	}
	switch t.Kind {
	case sql.TxBegin:
		tag := "BEGIN"
		if t.Start {
			tag = "START TRANSACTION"
		}
		level := ""
		if t.Isolation != "" {
			var err error
			if level, err = isolationLevel(t.Isolation); err != nil {
				return "", err
			}
		}
		switch {
		case s.tx != nil && s.implicit:
			// BEGIN inside a block of statements makes the block an
			// explicit transaction, as in PostgreSQL.
			s.implicit = false
		case s.tx != nil:
			s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "25001", Message: "there is already a transaction in progress"})
			return tag, nil
		default:
			s.beginTx()
		}
		if level != "" && !s.queried {
			s.isolation = level
		}
		if t.ReadOnly != nil {
			s.readOnly = *t.ReadOnly
		}
		return tag, nil
	case sql.TxCommit:
		if t.Chain && (s.tx == nil || s.implicit) {
			return "", errChainOutsideBlock("COMMIT AND CHAIN")
		}
		if s.tx == nil {
			noTx()
			return "COMMIT", nil
		}
		if s.implicit {
			noTx()
		}
		tx, failed := s.tx, s.txFailed
		chain := s.chain(t.Chain)
		if !failed {
			if err := s.holdCursors(); err != nil {
				s.endTx()
				tx.Rollback()
				s.txEnded(false)
				return "", err
			}
		}
		s.endTx()
		if failed {
			tx.Rollback()
			s.txEnded(false)
			chain()
			return "ROLLBACK", nil
		}
		if err := s.commit(tx); err != nil {
			s.txEnded(false)
			return "", err
		}
		s.txEnded(true)
		chain()
		return "COMMIT", nil
	case sql.TxRollback, sql.TxPrepare:
		// Two-phase commit is off, as in a PostgreSQL whose
		// max_prepared_transactions is 0 (its default): PREPARE
		// TRANSACTION ends the transaction as ROLLBACK does, and in a
		// transaction block that has not failed fails with 55000.
		block := s.tx != nil && !s.implicit
		failed := s.txFailed
		if t.Chain && !block {
			return "", errChainOutsideBlock("ROLLBACK AND CHAIN")
		}
		if !block {
			noTx()
		}
		if s.tx != nil {
			chain := s.chain(t.Chain)
			s.tx.Rollback()
			s.endTx()
			s.txEnded(false)
			chain()
		}
		if t.Kind == sql.TxPrepare && block && !failed {
			return "", pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "prepared transactions are disabled").
				WithHint("Set max_prepared_transactions to a nonzero value.")
		}
		return "ROLLBACK", nil
	}
	if s.tx == nil || s.implicit {
		return "", pgerr.New(pgerrcode.NoActiveSQLTransaction, "%s can only be used in transaction blocks", map[sql.TxKind]string{sql.TxSavepoint: "SAVEPOINT", sql.TxRelease: "RELEASE SAVEPOINT", sql.TxRollbackTo: "ROLLBACK TO SAVEPOINT"}[t.Kind])
	}
	if t.Kind == sql.TxSavepoint {
		s.savepoints = append(s.savepoints, savepoint{name: t.Savepoint, mark: s.tx.Savepoint(), values: maps.Clone(s.values), local: maps.Clone(s.txLocal),
			kept: maps.Clone(s.txKept), notify: s.notifyMark(), deferred: s.deferred.For(s.tx).Mark()})
		return "SAVEPOINT", nil
	}
	i := len(s.savepoints) - 1
	for ; i >= 0 && s.savepoints[i].name != t.Savepoint; i-- {
	}
	if i < 0 {
		s.txFailed = true
		return "", pgerr.New(pgerrcode.InvalidSavepointSpecification, "savepoint \"%s\" does not exist", t.Savepoint)
	}
	if t.Kind == sql.TxRelease {
		s.tx.ReleaseSavepoint(s.savepoints[i].mark)
		s.releasedSavepointAdvisory(i)
		s.savepoints = s.savepoints[:i]
		for _, p := range s.portals {
			p.level = min(p.level, i)
		}
		return "RELEASE", nil
	}
	s.tx.RollbackTo(s.savepoints[i].mark)
	s.deferred.For(s.tx).RollbackTo(s.savepoints[i].deferred)
	s.rollbackNotify(s.savepoints[i].notify)
	s.releaseXactAdvisory(i + 1)
	s.closePortals(func(p *Portal) bool { return p.level > i })
	s.restoreSettings(s.savepoints[i].values, nil)
	s.txLocal = maps.Clone(s.savepoints[i].local)
	s.txKept = maps.Clone(s.savepoints[i].kept)
	s.savepoints = s.savepoints[:i+1]
	s.txFailed = false
	return "ROLLBACK", nil
}

// chain, for COMMIT AND CHAIN and ROLLBACK AND CHAIN (chained true),
// notes the open transaction's isolation level and access mode and
// returns the function that, once the transaction has ended, opens a new
// explicit one with them. A commit that fails chains nothing, as in
// PostgreSQL: the session is then out of any transaction.
func (s *Session) chain(chained bool) func() {
	if !chained {
		return func() {}
	}
	isolation, readOnly := s.isolation, s.readOnly
	return func() {
		s.beginTx()
		s.isolation, s.readOnly = isolation, readOnly
	}
}

// errChainOutsideBlock is COMMIT AND CHAIN or ROLLBACK AND CHAIN outside
// a transaction block (with none open, or in the implicit one of a
// multi-statement query), an error in PostgreSQL where the plain
// statements only warn.
func errChainOutsideBlock(stmt string) error {
	return pgerr.New(pgerrcode.NoActiveSQLTransaction, "%s can only be used in transaction blocks", stmt)
}

// runDiscard resets what DISCARD names: for ALL, the session's cursors,
// settings, prepared statements, advisory locks, sequence values and
// temporary relations, as if it had just connected; TEMP drops the
// temporary relations alone (cairn has no cached plans for PLANS to
// drop).
func (s *Session) runDiscard(x *sql.Discard) error {
	switch x.What {
	case "ALL":
		if err := s.refuseInBlock("DISCARD ALL"); err != nil {
			return err
		}
		s.closePortals(func(p *Portal) bool { return p.cursor })
		// SET SESSION AUTHORIZATION DEFAULT, as PostgreSQL's DISCARD ALL:
		// a pooled connection goes back as the user that logged in.
		if err := s.runSetRole(&sql.Set{Name: "session_authorization", Reset: true}); err != nil {
			return err
		}
		if err := s.runSet(&sql.Set{Name: "all", Reset: true}); err != nil {
			return err
		}
		s.dropAllPrepared()
		s.engine.advisory.releaseAll(s, false)
		s.seqs.Reset()
		s.unlistenAll()
		return s.dropTempSchema()
	case "SEQUENCES":
		s.seqs.Reset()
	case "TEMP":
		return s.dropTempSchema()
	}
	return nil
}

// runSet is SET, SET LOCAL, RESET and RESET ALL. A plain one in a
// transaction block also notes the values it leaves (txKept), which a
// commit keeps even for a setting SET LOCAL changed too.
func (s *Session) runSet(x *sql.Set) error {
	if s.tx == nil || x.Local {
		return s.applySet(x)
	}
	before := maps.Clone(s.values)
	if err := s.applySet(x); err != nil {
		return err
	}
	for name := range s.settingNames(before) {
		old, had := before[name]
		cur, has := s.values[name]
		if had == has && old == cur {
			continue
		}
		if s.txKept == nil {
			s.txKept = map[string]keptValue{}
		}
		s.txKept[name] = keptValue{value: cur, set: has}
	}
	return nil
}

// applySet is runSet's change to the session's settings.
func (s *Session) applySet(x *sql.Set) error {
	if x.Local && s.tx == nil {
		s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "25P01", Message: "SET LOCAL can only be used in transaction blocks"})
		return nil
	}
	if s.tx != nil && s.txValues == nil {
		s.txValues = maps.Clone(s.values)
	}
	if x.Local {
		if s.txLocal == nil {
			s.txLocal = map[string]bool{}
		}
		s.txLocal[x.Name] = true
	}
	if x.Name == "all" && x.Reset {
		names := slices.Collect(maps.Keys(s.values))
		for name := range s.resetValues {
			if _, ok := s.values[name]; !ok {
				names = append(names, name)
			}
		}
		for _, name := range names {
			st, _ := lookupSetting(name)
			if st.readOnly || name == "session_authorization" {
				continue
			}
			cur, set := s.values[name]
			rv, hasReset := s.resetValues[name]
			_, known := settings[name]
			switch {
			case set && cur == rv && (hasReset || !known):
				continue
			case hasReset || !known:
				// A custom setting the session did not start with stays,
				// empty, as PostgreSQL's placeholder does.
				s.setValue(name, rv)
			default:
				s.unsetValue(name)
			}
			if st.report {
				s.changed[showName(name)] = s.get(name)
			}
		}
		return nil
	}
	switch x.Name {
	case "role", "session_authorization":
		return s.runSetRole(x)
	case "transaction_isolation":
		if x.Reset {
			return nil
		}
		return s.runSetTransaction(&sql.SetTransaction{Isolation: x.Value})
	case "transaction_read_only":
		if x.Reset {
			return nil
		}
		ro := isOn(x.Value)
		return s.runSetTransaction(&sql.SetTransaction{ReadOnly: &ro})
	}
	st, ok := lookupSetting(x.Name)
	if !ok {
		if x.Reset {
			return unrecognized(x.Name)
		}
		return unknownSetting(x.Name)
	}
	if st.readOnly {
		return cannotChange(x.Name, st)
	}
	v := x.Value
	if x.Reset {
		v = s.resetValue(x.Name)
	} else {
		if t := truncateName(v); st.name && t != v {
			s.notices = append(s.notices, Notice{Severity: "NOTICE", Code: pgerrcode.NameTooLong,
				Message: fmt.Sprintf("identifier \"%s\" will be truncated to \"%s\"", strings.ToValidUTF8(v, "?"), strings.ToValidUTF8(t, "?"))})
		}
		var err error
		if v, err = st.validate(v, s.get(x.Name)); err != nil {
			return err
		}
	}
	s.setValue(x.Name, v)
	if st.report {
		s.changed[showName(x.Name)] = v
	}
	return nil
}

func (s *Session) runShow(x *sql.Show, emit func(arrow.Record) error) (Tag, bool, error) {
	name := x.Name
	switch name {
	case "transaction isolation level":
		name = "transaction_isolation"
	case "session authorization":
		name = "session_authorization"
	case "time zone":
		name = "timezone"
	case "all":
		return Tag{}, false, pgerr.NotSupported("SHOW ALL")
	}
	v, ok := s.Setting(name)
	if !ok {
		return Tag{}, false, unrecognized(x.Name)
	}
	return commandTag("SHOW"), false, emitText([]string{v}, emit)
}

// runPrepare runs SQL PREPARE; text is the PREPARE statement's own text,
// which pg_prepared_statements shows.
func (s *Session) runPrepare(x *sql.Prepare, text string) error {
	if _, ok := s.prepared[x.Name]; ok {
		return pgerr.New(pgerrcode.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", x.Name)
	}
	st := &Statement{SQL: text, ParamTypes: x.ParamTypes, parsed: x.Stmt, fromSQL: true, prepareText: text}
	bound, params, err := s.bind(st, x.ParamTypes)
	if err != nil {
		return err
	}
	st.ParamTypes = params
	st.Columns, st.fixedResult = s.resultColumns(bound), true
	st.prepareTime = time.Now()
	s.prepared[x.Name] = st
	return nil
}

// StorePrepared keeps st, prepared by the protocol's Parse, under name in
// the session's prepared statements, where SQL EXECUTE and DEALLOCATE see
// it too. The unnamed statement ("") is replaced; a named one must be
// new (42P05), as in PostgreSQL. In an aborted transaction block only a
// statement that ends the block, or an empty one, may be prepared (25P02,
// as PostgreSQL's Parse answers): a client that saw the error prepares it
// again later under the same name.
func (s *Session) StorePrepared(name string, st *Statement) error {
	if s.txFailed && !st.Empty() && !endsTx(st) {
		return errTxAborted()
	}
	if _, ok := s.prepared[name]; ok && name != "" {
		return pgerr.New(pgerrcode.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", name)
	}
	st.prepareText = st.SQL
	st.prepareTime = time.Now()
	s.prepared[name] = st
	return nil
}

// PreparedStatement returns the prepared statement called name, made by
// SQL PREPARE or by Parse.
func (s *Session) PreparedStatement(name string) (*Statement, bool) {
	st, ok := s.prepared[name]
	return st, ok
}

// ClosePrepared drops the prepared statement called name, if there is
// one (the protocol's Close, for which a missing one is no error).
func (s *Session) ClosePrepared(name string) { delete(s.prepared, name) }

// dropAllPrepared runs DEALLOCATE ALL: every named prepared statement
// goes, whichever way it was made. The unnamed one stays, as in
// PostgreSQL (it may be the statement running).
func (s *Session) dropAllPrepared() {
	for name := range s.prepared {
		if name != "" {
			delete(s.prepared, name)
		}
	}
}

// preparedStatements lists the named prepared statements for
// pg_prepared_statements.
func (s *Session) preparedStatements() []syscat.PreparedStatement {
	out := make([]syscat.PreparedStatement, 0, len(s.prepared))
	for name, st := range s.prepared {
		if name == "" {
			continue
		}
		oids := make([]uint32, len(st.ParamTypes))
		for i, t := range st.ParamTypes {
			oids[i] = t.OID()
		}
		out = append(out, syscat.PreparedStatement{Name: name, Statement: st.prepareText, PrepareTime: st.prepareTime,
			ParamTypes: oids, FromSQL: st.fromSQL, Runs: st.runs})
	}
	return out
}

func (s *Session) runExecute(ctx context.Context, x *sql.Execute, maxRows int, emit func(arrow.Record) error) (Tag, bool, error) {
	st, ok := s.prepared[x.Name]
	if !ok {
		return Tag{}, false, pgerr.New(pgerrcode.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", x.Name)
	}
	if st.Empty() {
		return Tag{}, false, nil // a Parse of an empty query
	}
	if len(x.Args) != len(st.ParamTypes) {
		return Tag{}, false, pgerr.New(pgerrcode.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", x.Name).
			WithDetail("Expected %d parameters but got %d.", len(st.ParamTypes), len(x.Args))
	}
	params, err := s.evalArgs(ctx, x.Args)
	if err != nil {
		return Tag{}, false, err
	}
	portal, err := s.Bind(st, params)
	if err != nil {
		return Tag{}, false, err
	}
	defer portal.closeRun()
	if x.Explain {
		q, ok := portal.bound.(*sql.Query)
		if !ok {
			return Tag{}, false, pgerr.NotSupported("EXPLAIN of a utility statement")
		}
		lines, err := s.explain(ctx, portal, &sql.Explain{Input: q.Plan, Analyze: x.Analyze, Format: x.ExplainFormat})
		if err != nil {
			return Tag{}, false, err
		}
		return commandTag("EXPLAIN"), false, emitText(lines, emit)
	}
	return s.execute(ctx, portal, 0, emit)
}

// evalArgs evaluates EXECUTE's arguments (bound as casts to the parameter
// types) in the session's transaction.
func (s *Session) evalArgs(ctx context.Context, args []sql.Expr) (_ []any, err error) {
	tx, done := s.readTx()
	defer func() { done(err == nil) }()
	rt := s.runtime(tx, nil)
	out := make([]any, len(args))
	for i, a := range args {
		v, err := exec.EvalScalar(ctx, rt, a)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// readTx is the transaction a read runs in: the explicit one, or a new one
// that done rolls back (a read has nothing to commit), counting it
// committed, or rolled back when the read failed, as PostgreSQL counts
// an autocommit statement.
func (s *Session) readTx() (tx *storage.Tx, done func(committed bool)) {
	if s.tx != nil {
		return s.tx, func(bool) {}
	}
	tx = s.begin()
	return tx, func(committed bool) {
		tx.Rollback()              // it wrote nothing: ending it is its commit
		s.endTxSettings(committed) // a PL/pgSQL body's SETs (borrowTx)
		if committed {
			s.committedNotify(tx) // a SELECT pg_notify(...)
		} else if s.notify.tx == tx {
			s.forgetNotify()
		}
		s.engine.stats.XactEnded(committed)
	}
}

// explain renders EXPLAIN [ANALYZE] output: lines of text, or for FORMAT
// JSON, YAML or XML one document.
func (s *Session) explain(ctx context.Context, p *Portal, n *sql.Explain) (_ []string, err error) {
	if !n.Analyze {
		if n.Format != sql.ExplainText {
			return []string{sql.ExplainDocument(n.Format, sql.ExplainTree(n.Input, nil), 0, false)}, nil
		}
		return sql.ExplainLines(n.Input), nil
	}
	switch n.Input.(type) {
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge, *sql.ModifyingWith:
		return nil, pgerr.NotSupported("EXPLAIN ANALYZE of INSERT, UPDATE, DELETE or MERGE")
	}
	tx, done := s.readTx()
	defer func() { done(err == nil) }()
	rt := s.runtime(tx, p.params)
	rt.Analyze = true
	start := time.Now()
	op, err := exec.Build(rt, n.Input)
	if err != nil {
		return nil, err
	}
	var rows int64
	if err := exec.Drain(ctx, op, func(rec arrow.Record) error { rows += rec.NumRows(); return nil }); err != nil {
		return nil, err
	}
	if n.Format != sql.ExplainText {
		tree := sql.ExplainTree(n.Input, exec.AnalyzeStats(op))
		return []string{sql.ExplainDocument(n.Format, tree, time.Since(start), true)}, nil
	}
	lines := exec.AnalyzeLines(op, n.Input)
	lines = append(lines, fmt.Sprintf("Execution Time: %.3f ms", float64(time.Since(start).Microseconds())/1000))
	return lines, nil
}

// emitText emits lines as rows of one text column (EXPLAIN, SHOW).
func emitText(lines []string, emit func(arrow.Record) error) error {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(lines, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{col}, int64(len(lines)))
	defer rec.Release()
	return emit(rec)
}
