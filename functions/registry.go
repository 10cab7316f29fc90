package functions

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// Context is what a function may need from the session and statement that
// calls it. It is shared by all rows of one statement; functions must not
// keep it.
type Context struct {
	// Now is the statement's transaction timestamp (now(), current_timestamp).
	Now time.Time
	// StatementNow is when the statement's message came
	// (statement_timestamp()); zero: Now.
	StatementNow time.Time
	// Location is the session's TimeZone.
	Location *time.Location
	// DateStyle is the session's DateStyle: how values of date and
	// timestamp types print as text, and how ambiguous dates read.
	DateStyle types.DateStyle
	// Floats is how float4 and float8 print as text (the session's
	// extra_float_digits).
	Floats types.FloatStyle
	// ByteaEscape is the session's bytea_output = escape: how bytea
	// prints as text.
	ByteaEscape bool
	// IntervalStyle is the session's IntervalStyle: how interval prints
	// as text.
	IntervalStyle types.IntervalStyle
	// Mem allocates the arrays kernels return.
	Mem memory.Allocator
	// Ctx is the context of the operator call that evaluates the
	// function, done when the statement is cancelled or its
	// statement_timeout passes. A function that can run long over one
	// value (repeat, replace, regexp_replace, md5, to_tsvector) looks at
	// it as it goes, through a poller; nil in tests.
	Ctx context.Context
	// Session answers current_user, current_schema() and friends; nil in
	// tests that need none of them.
	Session SessionInfo
	// Catalog answers the reg* types' name lookups and the catalog
	// functions (pg_get_indexdef, pg_table_is_visible, ...); nil outside
	// a session.
	Catalog Catalog
	// Advisory are the session's advisory locks; nil outside a session.
	Advisory AdvisoryLocks
	// Notify queues a notification (pg_notify) for delivery when the
	// session's transaction commits; nil outside a session. Called on the
	// session's goroutine (pg_notify is volatile).
	Notify func(channel, payload string) error
	// Embed computes the embeddings of texts for embed() through the
	// server's Embedder, under the running statement's context (so a
	// cancel or statement_timeout ends the wait); nil when the server
	// has no embedding endpoint. Safe for concurrent use.
	Embed func(texts []string) ([][]float32, error)
	// Procedural runs the body of a PL/pgSQL function of CREATE FUNCTION
	// (body: the binder's sql.PLCall) with one row's arguments in the
	// calling statement's session and transaction, returning its value;
	// nil outside a session.
	Procedural func(body any, args []any) (any, error)
	// ProceduralSet is Procedural for a set-returning function: the rows
	// its RETURN QUERYs gave.
	ProceduralSet func(body any, args []any) ([][]any, error)
}

// AdvisoryKey names an advisory lock: a bigint, or (Pair) two integers,
// which PostgreSQL keeps apart from the bigint of the same bits.
type AdvisoryKey struct {
	ID   int64
	Pair bool
}

// AdvisoryLocks are a session's advisory locks (implemented by
// exec/session). The lock functions are volatile, so their plans run on
// the session's goroutine and these methods are never called concurrently
// for one session; a Lock that waits returns when the lock is granted, the
// statement is cancelled or the deadlock/lock timeout fires.
type AdvisoryLocks interface {
	// Lock takes key, shared or exclusive, for the session or (xact) its
	// transaction; without wait it returns false instead of waiting for
	// another session's hold.
	Lock(key AdvisoryKey, shared, xact, wait bool) (bool, error)
	// Unlock releases one session-level hold; false when there is none.
	Unlock(key AdvisoryKey, shared bool) bool
	// UnlockAll releases every session-level hold.
	UnlockAll()
}

// Catalog is the system catalog as functions see it (implemented by
// sql/syscat's View): the catalog of the statement's snapshot, read-only,
// safe for concurrent use by the partitions of a parallel plan.
type Catalog interface {
	// Name is the text form of an OID of a reg* type (regclass: the
	// relation's name); ok is false when no such object exists.
	Name(family types.Family, oid int64) (string, bool)
	// Lookup is a reg* type's input: the OID of the named object.
	Lookup(family types.Family, text string) (int64, error)
	// TableVisible is pg_table_is_visible.
	TableVisible(oid int64) bool
	// IndexDef is pg_get_indexdef: the CREATE INDEX statement, or with a
	// column above 0 that key alone ("" past the last), plain or pretty;
	// ok is false for an unknown OID.
	IndexDef(oid int64, column int, pretty bool) (string, bool)
	// ViewDef is pg_get_viewdef; ok is false for an unknown OID.
	ViewDef(oid int64) (string, bool)
	// ConstraintDef is pg_get_constraintdef, plain or pretty; ok is false
	// for an unknown OID.
	ConstraintDef(oid int64, pretty bool) (string, bool)
	// Description is the comment on an object (sub: a column's number, 0
	// for the object itself) in pg_description, whose classoid is the
	// system catalog called class ("" for any); ok is false when it has
	// none.
	Description(oid int64, class string, sub int64) (string, bool)
	// SharedDescription is the comment on a shared object (a role, the
	// database) in pg_shdescription, whose classoid is the system
	// catalog called class; ok is false when it has none.
	SharedDescription(oid int64, class string) (string, bool)
}

// SessionInfo is the part of a session that functions can read: a copy
// the session takes when the statement starts, which does not change under
// the statement (but for set_config's own writes, see SettingWriter) and
// is safe for concurrent use. SearchPath returns a slice the caller may
// keep.
type SessionInfo interface {
	User() string
	Database() string
	CurrentSchema() string
	SearchPath() []string
	Setting(name string) (string, bool)
}

// Arg is one argument of a vectorised call: a column of the batch or a
// constant that applies to every row (the query vector is never copied per
// row).
type Arg struct {
	// Array is the column; nil when the argument is a constant.
	Array arrow.Array
	// Const is the constant's datum (see package types for the Go
	// representation of each type); used when Array is nil.
	Const any
	// Type is the argument's SQL type.
	Type types.T
	// Sel, when set on a column argument, selects the rows of Array to
	// compute, in order: the kernel returns len(Sel) rows. Only kernels of
	// overloads with SelKernel accept it. A filter passes its surviving
	// rows this way, so a similarity over them reads the embeddings in
	// place instead of copying them first.
	Sel []int32
}

// Overload is one signature of a SQL function or operator.
type Overload struct {
	// Name is the SQL name: "lower", "cosine_similarity", or an operator
	// such as "=", "||", "->>", "<#>".
	Name string
	// Args are the parameter types. A parameter of Family types.Unknown
	// accepts any type (polymorphic); ArgAnyArray accepts any array.
	Args []types.T
	// Variadic means the last parameter repeats (concat, jsonb_build_object).
	Variadic bool
	// Result is the result type; ResultFn, when set, computes it from the
	// actual argument types (polymorphic functions).
	Result   types.T
	ResultFn func(args []types.T) types.T
	// NullCall means the function is called with NULL arguments; when false
	// (STRICT, the default) any NULL argument gives NULL without a call.
	NullCall bool
	// Volatility is PostgreSQL's provolatile of the function: what besides
	// its arguments its result may depend on (see Volatility).
	Volatility Volatility
	// Eval computes one row from datums. Every overload has Eval.
	Eval func(ctx *Context, args []any) (any, error)
	// Kernel, when set, computes a whole batch of n rows at once and is
	// preferred over Eval; it must honour strictness itself.
	Kernel func(ctx *Context, args []Arg, n int) (arrow.Array, error)
	// SelKernel means Kernel honours Arg.Sel (see Arg).
	SelKernel bool
	// HigherIsBetter marks a similarity: the larger the result, the
	// better the match (cosine_similarity, maxsim, <#> on real[], BM25,
	// the hybrid score). ORDER BY such a call with no direction sorts
	// best first, descending. Distances leave it false, pgvector's <#> on
	// vector among them: its negative inner product is best smallest.
	HigherIsBetter bool
	// VectorMetric, on an overload that compares two vectors, names the
	// metric it ranks them by ("cosine", "l2" or "ip"; "" for others),
	// and NearerIsHigher whether a nearer pair gives a larger result
	// (cosine_similarity, inner_product) or a smaller one (the distances,
	// pgvector's <#>). A vector index of the same metric finds the rows
	// that ORDER BY the call puts first.
	VectorMetric   string
	NearerIsHigher bool
	// Search marks pg_deeplake's search operators, whose score depends
	// on more than the row; the binder plans them as their own nodes
	// instead of calls (see Search).
	Search Search
	// Prepare is the plan-time hook of an overload that needs more than
	// its arguments: the executor calls it once per statement for each
	// query text, with the table column the operator scores (BM25 and
	// the hybrid score's text arm: the query's terms weighted by the
	// column's corpus statistics).
	Prepare func(c Corpus, query string) (*BM25Query, error)
}

// Volatility says what a function's result depends on besides its
// arguments, as PostgreSQL's pg_proc.provolatile does, and so what the
// executor may do with it.
type Volatility uint8

const (
	// Immutable: the arguments alone decide the result (lower, +,
	// cosine_similarity). Its results may be cached across statements and
	// sessions (the ExprCache) and computed once for constant arguments.
	// The zero value: a function is immutable unless marked otherwise.
	Immutable Volatility = iota
	// Stable: the result also depends on the session's settings or the
	// statement's snapshot (TimeZone, search_path, now(), current_user,
	// current_setting), and does not change within one statement. It may
	// be computed once per statement, never shared between statements.
	Stable
	// Volatile: the result may change from call to call or the call has
	// side effects (random, nextval, set_config, clock_timestamp,
	// pg_advisory_lock). Called once per row, in the session's goroutine:
	// never folded, cached, deferred or run by parallel partitions.
	Volatile
)

// String is the volatility as pg_proc.provolatile spells it.
func (v Volatility) String() string {
	return [...]string{Immutable: "i", Stable: "s", Volatile: "v"}[v]
}

// stable marks an overload Stable where it is registered:
// Register(stable(fn(...)), ...).
func stable(o *Overload) *Overload {
	o.Volatility = Stable
	return o
}

// higherIsBetter marks an overload a similarity (Overload.HigherIsBetter)
// where it is registered: Register(higherIsBetter(fn(...))).
func higherIsBetter(o *Overload) *Overload {
	o.HigherIsBetter = true
	return o
}

// ranksVectors marks overloads that rank vector pairs by metric (see
// Overload.VectorMetric): Register(ranksVectors("l2", false, ...)...).
func ranksVectors(metric string, nearerIsHigher bool, ovs ...*Overload) []*Overload {
	for _, o := range ovs {
		o.VectorMetric, o.NearerIsHigher = metric, nearerIsHigher
	}
	return ovs
}

// allStable marks overloads Stable: Register(allStable(...)...).
func allStable(ovs ...*Overload) []*Overload {
	for _, o := range ovs {
		o.Volatility = Stable
	}
	return ovs
}

// allVolatile marks overloads Volatile: Register(allVolatile(...)...).
func allVolatile(ovs ...*Overload) []*Overload {
	for _, o := range ovs {
		o.Volatility = Volatile
	}
	return ovs
}

// Aggregate is one signature of an aggregate function.
type Aggregate struct {
	Name     string
	Args     []types.T
	Result   types.T
	ResultFn func(args []types.T) types.T
	// NullCall means NULL input rows are passed to Step (count(*), array_agg);
	// otherwise rows with a NULL argument are skipped.
	NullCall bool
	// OrderedSet marks an ordered-set aggregate, called as name(direct
	// args) WITHIN GROUP (ORDER BY value): Args are the direct arguments
	// followed by the value, and the rows come sorted by it.
	OrderedSet bool
	// New returns the empty state of one group.
	New func(argTypes []types.T) AggState
}

// AggState accumulates one group of an aggregate. It is used by one
// goroutine at a time; Result may be called more than once (window
// frames) and does not end the accumulation.
type AggState interface {
	// Step adds one row's arguments.
	Step(ctx *Context, args []any) error
	// Result returns the aggregate's value for the rows stepped so far.
	Result(ctx *Context) (any, error)
}

// SizedAggState is an AggState whose memory grows with the rows it is
// given (array_agg, string_agg, json[b]_agg, json[b]_object_agg, the
// ordered-set aggregates): Size is about the bytes it holds, so that the
// executor counts them in the statement's memory budget (statement_mem)
// instead of letting one group grow the process without bound.
type SizedAggState interface {
	AggState
	Size() int64
}

// DatumSize estimates the bytes a datum holds (kept by an aggregate
// state, or built by a function row by row): its interface value's two
// words, the value they box (numbers, times and other small values are
// copied to the heap when boxed; booleans are not), and the bytes of
// strings, byte strings and arrays with their headers. Undercounting
// here lets one statement grow the process past statement_mem: a
// 30M-element array_agg of integers held twice what an estimate of 16
// bytes an element counted.
func DatumSize(v any) int64 {
	const iface, box, sliceHeader = 16, 16, 24
	switch x := v.(type) {
	case nil, bool:
		return iface
	case string:
		return iface + 16 + int64(len(x))
	case []byte:
		return iface + sliceHeader + int64(len(x))
	case *types.Array:
		n := iface + int64(unsafe.Sizeof(*x)) + int64(len(x.Dims))*8
		for _, e := range x.Elems {
			n += DatumSize(e)
		}
		return n
	case []any:
		n := int64(iface + sliceHeader)
		for _, e := range x {
			n += DatumSize(e)
		}
		return n
	}
	return iface + box
}

var registry = struct {
	sync.RWMutex
	scalars    map[string][]*Overload
	aggregates map[string][]*Aggregate
	sets       map[string]*SetReturning
}{scalars: map[string][]*Overload{}, aggregates: map[string][]*Aggregate{}, sets: map[string]*SetReturning{}}

// Register adds scalar overloads; each file calls it from init().
func Register(ovs ...*Overload) {
	registry.Lock()
	defer registry.Unlock()
	for _, o := range ovs {
		name := strings.ToLower(o.Name)
		registry.scalars[name] = append(registry.scalars[name], o)
	}
}

// RegisterAggregate adds aggregate overloads; each file calls it from init().
func RegisterAggregate(aggs ...*Aggregate) {
	registry.Lock()
	defer registry.Unlock()
	for _, a := range aggs {
		name := strings.ToLower(a.Name)
		registry.aggregates[name] = append(registry.aggregates[name], a)
	}
}

// RegisterSetReturning adds set-returning functions; each file calls it
// from init().
func RegisterSetReturning(fns ...*SetReturning) {
	registry.Lock()
	defer registry.Unlock()
	for _, f := range fns {
		registry.sets[f.Name] = f
	}
}

// Overloads returns the scalar overloads registered under name.
func Overloads(name string) []*Overload {
	registry.RLock()
	defer registry.RUnlock()
	return registry.scalars[strings.ToLower(name)]
}

// Aggregates returns the aggregate overloads registered under name.
func Aggregates(name string) []*Aggregate {
	registry.RLock()
	defer registry.RUnlock()
	return registry.aggregates[strings.ToLower(name)]
}

// SetReturningFunc returns the set-returning function registered under
// name; nil when name is not one. The name matches exactly, as
// PostgreSQL's do: a quoted "Unnest" is not unnest.
func SetReturningFunc(name string) *SetReturning {
	registry.RLock()
	defer registry.RUnlock()
	return registry.sets[name]
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool { return len(Aggregates(name)) > 0 }

// Names lists every registered scalar function and operator name, sorted
// (pg_proc and pg_operator are built from it).
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.scalars))
	for n := range registry.scalars {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
