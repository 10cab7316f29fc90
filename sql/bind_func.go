package sql

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// hypotheticalSetAggs are PostgreSQL's hypothetical-set aggregates (the
// rank of a hypothetical row, called with WITHIN GROUP), which cairn does
// not have; called so they are 0A000, not "not an aggregate function".
var hypotheticalSetAggs = map[string]bool{"rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true}

// maxFuncArgs is PostgreSQL's FUNC_MAX_ARGS: a call with more arguments
// (concat or json_build_object written out, not VARIADIC) is refused.
const maxFuncArgs = 100

// bindFuncCall binds a function call: an aggregate, one of the calls the
// binder handles itself (nextval), or a scalar function.
func (b *Binder) bindFuncCall(sc *scope, fc *pg_query.FuncCall) (Expr, error) {
	name := strings.ToLower(nameOf(fc.Funcname))
	if len(fc.Args) > maxFuncArgs {
		return nil, pgerr.New(pgerrcode.TooManyArguments, "cannot pass more than %d arguments to a function", maxFuncArgs).
			WithPosition(fc.Location + 1)
	}
	if fc.Over != nil {
		return b.bindWindowCall(sc, fc, name)
	}
	if functions.IsAggregate(name) {
		return b.bindAggregate(sc, fc, name)
	}
	if fc.AggWithinGroup && hypotheticalSetAggs[name] {
		return nil, pgerr.NotSupported("hypothetical-set aggregates (%s(...) WITHIN GROUP)", name).WithPosition(fc.Location + 1)
	}
	if fc.AggStar || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "%s is not an aggregate function", name)
	}
	argNodes, err := b.positionalArgs(sc, fc.Funcname, fc.Args)
	if err != nil {
		return nil, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
	}
	args, err := b.bindExprs(sc, argNodes)
	if err != nil {
		return nil, err
	}
	if fc.FuncVariadic {
		spread, null, err := spreadVariadic(name, args, fc.Location)
		if err != nil {
			return nil, err
		}
		switch {
		case null && name == "format":
			// format reads VARIADIC NULL as no arguments.
		case null:
			// VARIADIC NULL: the function gets a NULL array, and the
			// others return NULL for it (typed as a call with the
			// array as its last argument is).
			e, err := b.bindCall(name, args, nil)
			if err != nil {
				return nil, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
			}
			return &Const{Value: nil, T: e.Type()}, nil
		case len(spread) == 0 && name == "concat":
			return &Const{Value: "", T: types.TextT}, nil // of no strings
		}
		args = spread
	}
	if fn := functions.SetReturningFunc(name); fn != nil {
		return b.bindSRFCall(fn, args, fc)
	}
	switch name {
	case "binary_quantize":
		// pgvector's binary_quantize(vector) returns bit(n).
		return nil, pgerr.NotSupported("binary_quantize (cairn has no bit type)").WithPosition(fc.Location + 1)
	case "nextval":
		return b.bindNextVal(args)
	case "currval", "setval", "lastval":
		return b.bindSeqFunc(name, args)
	case "deeplake_hybrid_record":
		return b.bindHybridConstructor(args)
	case "array_lower", "array_upper":
		if len(args) == 2 && args[0].Type().IsCatalogVector() {
			// int2vector and oidvector count from 0 (see bindIndirection).
			e, err := b.bindCall(name, args, nil)
			if err != nil {
				return nil, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
			}
			return b.bindOperator("-", e, &Const{Value: int64(1), T: types.Int4T})
		}
	case "pg_typeof":
		// The argument's type is known here, so the call is a constant,
		// once the argument is computed if that has effects (a sequence
		// draw, a function that writes).
		if len(args) == 1 {
			typ := &Const{Value: int64(args[0].Type().OID()), T: types.T{Family: types.RegType, Mod: -1}}
			if volatileExpr(args[0]) {
				return &Case{Whens: []When{{Cond: &IsNull{Arg: args[0]}, Result: typ}}, Else: typ, T: typ.T}, nil
			}
			return typ, nil
		}
	}
	e, err := b.bindCall(name, args, nil)
	if err != nil && pgerr.Code(err) == pgerrcode.UndefinedFunction && !fc.FuncVariadic {
		// A function of CREATE FUNCTION: the built-in ones come first,
		// as pg_catalog does first in PostgreSQL's search path.
		if def := b.lookupFunction(strList(fc.Funcname), args); def != nil {
			if def.Language == "plpgsql" && !def.Setof {
				return b.plCall(sc, def, argNodes, fc.Location)
			}
			return b.inlineFunction(sc, def, argNodes, fc.Location)
		}
	}
	if err != nil {
		if pgerr.Code(err) == pgerrcode.UndefinedFunction && len(args) == 1 && !fc.FuncVariadic && len(fc.Funcname) <= 2 {
			// As PostgreSQL, a row is not turned into a string this way.
			if t, ok := funcStyleCastType(fc.Funcname); ok && !(args[0].Type().Family == types.Record && t.IsString()) {
				// Without a cast the call stays undefined; a cast that fails
				// on a constant (int4('x')) fails as the cast.
				cast, cerr := b.coerce(args[0], t, castExplicit)
				if cerr == nil {
					return cast, nil
				}
				if pgerr.Code(cerr) != pgerrcode.CannotCoerce {
					return nil, pgerr.From(cerr).WithPositionIfUnset(fc.Location + 1)
				}
			}
		}
		return nil, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
	}
	return e, nil
}

// funcStyleCastType is the type a one-argument call with no function of
// its name names: PostgreSQL reads typename(x) as CAST(x AS typename) when
// a cast exists (LlamaIndex sends text(plainto_tsquery(...))). Only names
// in pg_type count, optionally qualified with pg_catalog: the grammar's
// spellings (integer, boolean...) are keywords that never reach a call,
// serial is no type, and record is a pseudo-type with no input.
func funcStyleCastType(funcname []*pg_query.Node) (types.T, bool) {
	names := strList(funcname)
	if len(names) == 2 && names[0] != "pg_catalog" {
		return types.UnknownT, false
	}
	switch name := names[len(names)-1]; name {
	case "bool", "int2", "int4", "int8", "float4", "float8", "numeric", "text", "varchar", "bpchar",
		"bytea", "uuid", "json", "jsonb", "jsonpath", "tsvector", "tsquery", "regconfig",
		"date", "time", "timestamp", "timestamptz", "interval", "oid", "xid", "cid",
		"regclass", "regtype", "regnamespace", "regproc", "regprocedure", "regrole", "name", "vector",
		"inet", "cidr", "macaddr", "macaddr8":
		return types.Named(name)
	}
	return types.UnknownT, false
}

// variadicFuncs are the functions PostgreSQL declares VARIADIC that cairn
// has: their last parameters gather the arguments into an array, so a call
// with VARIADIC array passes that array's elements as those arguments.
var variadicFuncs = map[string]bool{
	"concat": true, "concat_ws": true, "format": true,
	"json_build_array": true, "json_build_object": true, "jsonb_build_array": true, "jsonb_build_object": true,
	"json_extract_path": true, "json_extract_path_text": true, "jsonb_extract_path": true, "jsonb_extract_path_text": true,
	"num_nulls": true, "num_nonnulls": true,
}

// spreadVariadic replaces the last argument of a call written with
// VARIADIC, an array, by its elements (in storage order, as PostgreSQL
// passes a multidimensional one): the elements of an ARRAY[...]
// constructor or of a constant array. null reports VARIADIC NULL, which
// leaves the other arguments. Other arrays (a column, a parameter) are
// refused with 0A000 rather than passed as one value.
func spreadVariadic(name string, args []Expr, location int32) (out []Expr, null bool, err error) {
	if !variadicFuncs[name] || len(args) == 0 {
		return nil, false, pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(location + 1)
	}
	last := args[len(args)-1]
	rest := args[:len(args)-1]
	t := last.Type()
	if !t.IsArray() {
		if t.Family == types.Unknown || t.Family == types.Null {
			if c, ok := last.(*Const); ok && c.Value == nil {
				return rest, true, nil
			}
		}
		return nil, false, pgerr.New(pgerrcode.DatatypeMismatch, "VARIADIC argument must be an array").WithPosition(location + 1)
	}
	var spread func(e Expr) ([]Expr, bool)
	spread = func(e Expr) ([]Expr, bool) {
		switch v := e.(type) {
		case *ArrayExpr:
			var out []Expr
			for _, el := range v.Elems {
				if el.Type().IsArray() {
					sub, ok := spread(el)
					if !ok {
						return nil, false
					}
					out = append(out, sub...)
				} else {
					out = append(out, el)
				}
			}
			return out, true
		case *Const:
			a, ok := v.Value.(*types.Array)
			if !ok {
				return nil, false
			}
			out := make([]Expr, len(a.Elems))
			for i, el := range a.Elems {
				out[i] = &Const{Value: el, T: a.Elem}
			}
			return out, true
		}
		return nil, false
	}
	if c, ok := last.(*Const); ok && c.Value == nil {
		return rest, true, nil
	}
	elems, ok := spread(last)
	if !ok {
		return nil, false, pgerr.NotSupported("VARIADIC with an array other than a constant or ARRAY[...]").WithPosition(location + 1)
	}
	return append(slices.Clone(rest), elems...), false, nil
}

// bindNextVal binds nextval('[schema.]seq'), resolving the sequence now.
func (b *Binder) bindNextVal(args []Expr) (Expr, error) {
	if len(args) != 1 {
		return nil, pgerr.New(pgerrcode.UndefinedFunction, "function nextval(%s) does not exist", typeList(args))
	}
	schema, seq, err := b.sequenceArg("nextval", args[0])
	if err == errNullSequence {
		return &Const{Value: nil, T: types.Int8T}, nil
	}
	if err != nil {
		return nil, err
	}
	return &NextVal{Schema: schema, Name: seq}, nil
}

// clauseWording names the clause being bound as PostgreSQL's errors about
// functions not allowed there do ("in WHERE", "in JOIN conditions"), or
// "here" outside any clause it names.
func (b *Binder) clauseWording() string {
	switch b.clause {
	case "":
		return "here"
	case "JOIN/ON":
		return "in JOIN conditions"
	case "COPY FROM WHERE":
		return "in COPY FROM WHERE conditions"
	case "WHEN": // MERGE's (CASE's is CASE/WHEN)
		return "in MERGE WHEN conditions"
	case "CHECK":
		return "in check constraints"
	}
	return "in " + b.clause
}

func (b *Binder) bindAggregate(sc *scope, fc *pg_query.FuncCall, name string) (Expr, error) {
	agg := b.currentAgg()
	if agg == nil || b.clause == "WHERE" || b.clause == "JOIN/ON" || b.clause == "GROUP BY" || b.clause == "FILTER" || strings.HasPrefix(b.clause, "window ") {
		return nil, pgerr.New(pgerrcode.GroupingError, "aggregate functions are not allowed %s", b.clauseWording()).WithPosition(fc.Location + 1)
	}
	if agg.inAgg {
		return nil, pgerr.New(pgerrcode.GroupingError, "aggregate function calls cannot be nested").WithPosition(fc.Location + 1)
	}
	agg.inAgg = true
	defer func() { agg.inAgg = false }()
	call, err := b.bindAggCall(sc, fc, name)
	if err != nil {
		return nil, err
	}
	if outerLevelAgg(call) {
		return nil, pgerr.NotSupported("an aggregate whose arguments read only an enclosing query's columns (an outer-level aggregate)").
			WithPosition(fc.Location + 1)
	}
	agg.calls = append(agg.calls, call)
	return &aggRef{idx: len(agg.calls) - 1, t: call.T}, nil
}

// outerLevelAgg reports whether an aggregate call's arguments, FILTER and
// ORDER BY read an enclosing query's columns and none of this query
// level's. PostgreSQL computes such an aggregate in that enclosing query
// (its agglevelsup), once per group there, not per group of this level;
// cairn computes aggregates at the level that spells them, so it refuses
// these rather than answer differently. A subquery among the arguments
// counts by the values it is passed (Subquery.Args).
func outerLevelAgg(call AggCall) bool {
	exprs := slices.Clone(call.Args)
	if call.Filter != nil {
		exprs = append(exprs, call.Filter)
	}
	for _, k := range call.OrderBy {
		exprs = append(exprs, k.Expr)
	}
	outer, local := false, false
	for _, e := range exprs {
		walkExpr(e, func(e Expr) {
			switch e.(type) {
			case *OuterRef:
				outer = true
			case *ColumnRef:
				local = true
			}
		})
	}
	return outer && !local
}

// bindAggCall binds an aggregate call's arguments, FILTER and ORDER BY
// and resolves the aggregate (for GROUP BY aggregation or a window).
func (b *Binder) bindAggCall(sc *scope, fc *pg_query.FuncCall, name string) (AggCall, error) {
	var args []Expr
	var err error
	if !fc.AggStar {
		if len(fc.Args) == 0 && name == "count" {
			return AggCall{}, pgerr.New(pgerrcode.WrongObjectType, "count(*) must be used to call a parameterless aggregate function").WithPosition(fc.Location + 1)
		}
		if args, err = b.bindExprs(sc, fc.Args); err != nil {
			return AggCall{}, err
		}
	}
	var withinGroup []SortKey
	if fc.AggWithinGroup {
		// An ordered-set aggregate takes its direct arguments, then the
		// value it orders.
		if len(fc.AggOrder) != 1 {
			return AggCall{}, pgerr.NotSupported("WITHIN GROUP with other than one ORDER BY expression")
		}
		sb := fc.AggOrder[0].GetSortBy()
		e, err := b.bindExpr(sc, sb.Node)
		if err != nil {
			return AggCall{}, err
		}
		args = append(args, e)
		withinGroup = []SortKey{makeSortKey(sb, e)}
	}
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	ag, castTo, err := functions.ResolveAggregate(name, ts)
	if err != nil {
		return AggCall{}, pgerr.From(err).WithPositionIfUnset(fc.Location + 1)
	}
	written := slices.Clone(args) // before the coercions to the aggregate's types
	for i := range args {
		if i < len(castTo) {
			if args[i], err = b.coerce(args[i], castTo[i], castImplicit); err != nil {
				return AggCall{}, err
			}
		}
		ts[i] = args[i].Type()
	}
	switch {
	case fc.AggWithinGroup && !ag.OrderedSet:
		return AggCall{}, pgerr.New(pgerrcode.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).WithPosition(fc.Location + 1)
	case ag.OrderedSet && !fc.AggWithinGroup:
		return AggCall{}, pgerr.New(pgerrcode.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name).WithPosition(fc.Location + 1)
	}
	call := AggCall{Agg: ag, Name: name, Args: args, Distinct: fc.AggDistinct, T: functions.AggregateResultType(ag, ts), OrderBy: withinGroup}
	if fc.AggWithinGroup {
		withinGroup[0].Expr = args[len(args)-1] // as coerced
	}
	if fc.AggFilter != nil {
		if call.Filter, err = b.bindCondition(sc, fc.AggFilter, "FILTER"); err != nil {
			return AggCall{}, err
		}
	}
	for _, o := range fc.AggOrder {
		if fc.AggWithinGroup {
			break // the value's order, bound above
		}
		sb := o.GetSortBy()
		e, err := b.bindExpr(sc, sb.Node)
		if err != nil {
			return AggCall{}, err
		}
		if fc.AggDistinct && !slices.ContainsFunc(written, func(a Expr) bool { return sameExpr(a, e) }) {
			// Sorting the distinct values by anything else is undefined.
			return AggCall{}, pgerr.New(pgerrcode.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list").
				WithPosition(sb.Location + 1)
		}
		call.OrderBy = append(call.OrderBy, makeSortKey(sb, e))
	}
	if call.Distinct && len(call.OrderBy) == 0 && orderSensitiveAggs[name] {
		// PostgreSQL finds the distinct values by sorting them, so
		// array_agg(DISTINCT x) lists them in ascending order; clients
		// and tests rely on it.
		for _, a := range call.Args {
			call.OrderBy = append(call.OrderBy, SortKey{Expr: a})
		}
	}
	return call, nil
}

// orderSensitiveAggs are the aggregates whose result depends on the order
// of their rows: they collect the values rather than combine them.
var orderSensitiveAggs = map[string]bool{
	"array_agg": true, "string_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true,
}

// bindSRFCall binds a set-returning function in a select list or a
// GROUP BY key (see ProjectSet); elsewhere it is not supported.
func (b *Binder) bindSRFCall(fn *functions.SetReturning, args []Expr, fc *pg_query.FuncCall) (Expr, error) {
	if fn.RecordRows != nil {
		// Its columns come from a column definition list, which only
		// FROM has.
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "could not determine row type for result of %s", fn.Name).
			WithPosition(fc.Location + 1)
	}
	agg := b.currentAgg()
	// In GROUP BY, planGroupedSRFs runs it below the Aggregate.
	switch {
	case b.clause == "GROUP BY":
	case b.clause == "CASE/WHEN":
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "argument of CASE/WHEN must not return a set").WithPosition(fc.Location + 1)
	case b.clause != "":
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "set-returning functions are not allowed %s", b.clauseWording()).WithPosition(fc.Location + 1)
	case agg == nil:
		return nil, pgerr.NotSupported("set-returning function %s outside FROM, the select list and GROUP BY", fn.Name)
	}
	if agg != nil && agg.inAgg {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "aggregate function calls cannot contain set-returning function calls").WithPosition(fc.Location + 1)
	}
	srf, err := b.bindSRF(fn, args)
	if err != nil {
		return nil, err
	}
	b.srfs++
	// In a select list a function of several columns returns records.
	srf.AsRecord = len(srf.Out) > 1
	return &SRFCall{SRF: srf}, nil
}
