package functions

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// Polymorphic parameter types. All polymorphic parameters of one overload
// share one element type, chosen like PostgreSQL's anycompatible family: the
// common type of the arguments given for them (an unknown literal takes the
// others' type, or text when all are unknown).
var (
	// ArgAny accepts any type (anyelement / anycompatible).
	ArgAny = types.UnknownT
	// ArgAnyArray accepts any array (anyarray / anycompatiblearray); its
	// element type is the overload's common polymorphic type.
	ArgAnyArray = types.ArrayOf(types.UnknownT, 1)
	// ArgAnyNonArray accepts any type that is not an array (anynonarray).
	ArgAnyNonArray = types.T{Family: types.Unknown, Mod: -1, Domain: "anynonarray"}
	// ArgSameArray accepts any array, but all such arguments must have the
	// very same type (PostgreSQL's anyarray, as in the array operators).
	ArgSameArray = types.T{Family: types.ArrayFamily, Elem: &types.T{Family: types.Unknown, Mod: -1, Domain: "same"}, Dims: 1, Mod: -1}
	// ArgAnyType accepts any type independently of the other arguments
	// (PostgreSQL's "any", as in concat and format).
	ArgAnyType = types.T{Family: types.Unknown, Mod: -1, Domain: "any"}
	// ArgAnyEnum accepts any enum (anyenum); like ArgAny, all such
	// arguments share one type, which must be an enum.
	ArgAnyEnum = types.T{Family: types.Unknown, Mod: -1, Domain: "anyenum"}
)

func isAnyParam(p types.T) bool { return p.Family == types.Unknown }
func isAnyArrayParam(p types.T) bool {
	return p.Family == types.ArrayFamily && p.Elem.Family == types.Unknown
}
func isPolyParam(p types.T) bool { return isAnyParam(p) || isAnyArrayParam(p) }

// isUnknownArg reports whether an argument's type is still open: an untyped
// literal, a parameter of unknown type or a bare NULL.
func isUnknownArg(t types.T) bool { return t.Family == types.Unknown || t.Family == types.Null }

// typeCategory is pg_type.typcategory and typispreferred.
func typeCategory(t types.T) (cat byte, preferred bool) {
	if isPolyParam(t) {
		return 'P', false
	}
	if t.IsEnum() {
		return 'E', false
	}
	switch t.Family {
	case types.Bool:
		return 'B', true
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Numeric:
		return 'N', false
	case types.Float8, types.Oid:
		return 'N', true
	case types.Text:
		return 'S', true
	case types.Varchar, types.Char, types.Name, types.InternalChar:
		return 'S', false
	case types.DateFamily, types.Time, types.TimestampFamily:
		return 'D', false
	case types.TimestampTZ:
		return 'D', true
	case types.Interval:
		return 'T', true
	case types.Inet:
		return 'I', true
	case types.CIDR:
		return 'I', false
	case types.ArrayFamily:
		return 'A', false
	case types.Record:
		return 'P', false
	case types.Unknown, types.Null:
		return 'X', false
	}
	return 'U', false // bytea, uuid, json, jsonb, vector, macaddr, macaddr8
}

// canImplicit reports whether a value of type from may be passed where to
// is expected (PostgreSQL's can_coerce_type with COERCION_IMPLICIT), not
// counting polymorphic parameters.
func canImplicit(from, to types.T) bool {
	if to.Family == types.Record && to.Domain != "" && !isUnknownArg(from) {
		// A named record type (deeplake_hybrid_record) takes only itself.
		return from.Domain == to.Domain
	}
	if isUnknownArg(from) || from.Equal(to) {
		return true
	}
	implicit, _, _ := CastKind(from, to)
	return implicit
}

// polyElem computes the common element type of the polymorphic parameters
// of params for the given arguments; ok is false when the arguments do not
// fit (an array parameter given a non-array, or no common type). has reports
// whether there are any polymorphic parameters at all.
func polyElem(params, args []types.T) (elem types.T, has, ok bool) {
	var got []types.T
	same, enum := false, false
	for i, p := range params {
		a := args[i]
		switch {
		case isAnyArrayParam(p):
			has = true
			same = same || p.Elem.Domain == "same"
			if isUnknownArg(a) {
				continue
			}
			if a.Family != types.ArrayFamily {
				return types.T{}, true, false
			}
			got = append(got, baseType(*a.Elem))
		case isAnyParam(p):
			if p.Domain == "any" {
				continue
			}
			has = true
			if p.Domain == "anynonarray" && a.Family == types.ArrayFamily {
				return types.T{}, true, false
			}
			enum = enum || p.Domain == "anyenum"
			if isUnknownArg(a) {
				continue
			}
			got = append(got, baseType(a))
		}
	}
	if !has {
		return types.T{}, false, true
	}
	if len(got) == 0 {
		return types.TextT, true, !enum
	}
	if same {
		for _, g := range got[1:] {
			if !g.Equal(got[0]) {
				return types.T{}, true, false
			}
		}
	}
	elem, ok = commonType(got)
	if enum && !elem.IsEnum() {
		return types.T{}, true, false
	}
	if ok && elem.Family == types.ArrayFamily {
		for _, p := range params {
			if isAnyArrayParam(p) {
				return types.T{}, true, false // no arrays of arrays
			}
		}
	}
	return elem, true, ok
}

// baseType strips a domain and a type modifier.
func baseType(t types.T) types.T {
	t.Domain = ""
	t.Mod = -1
	return t
}

// commonType is PostgreSQL's select_common_type over known types: the type
// every one of them converts to implicitly, preferring preferred types.
func commonType(ts []types.T) (types.T, bool) {
	var p types.T
	first := true
	for _, t := range ts {
		if isUnknownArg(t) {
			continue
		}
		if first {
			p, first = t, false
			continue
		}
		if t.Equal(p) {
			continue
		}
		pc, pp := typeCategory(p)
		nc, _ := typeCategory(t)
		if pc != nc {
			return types.T{}, false
		}
		if !pp && canImplicit(p, t) && !canImplicit(t, p) {
			p = t
		}
	}
	if first {
		return types.TextT, true
	}
	for _, t := range ts {
		if !isUnknownArg(t) && !canImplicit(t, p) {
			return types.T{}, false
		}
	}
	return p, true
}

// candidate is an overload with its parameter list expanded to the number
// of arguments (variadic) and polymorphic parameters made concrete.
type candidate struct {
	ov     *Overload
	agg    *Aggregate
	params []types.T // declared (polymorphic markers kept)
	actual []types.T // concrete parameter types
}

func expandParams(args []types.T, variadic bool, n int) ([]types.T, bool) {
	if variadic {
		// At least one argument for the variadic parameter, as without
		// the VARIADIC keyword PostgreSQL requires.
		if len(args) == 0 || n < len(args) {
			return nil, false
		}
		ps := make([]types.T, n)
		copy(ps, args)
		for i := len(args) - 1; i < n; i++ {
			ps[i] = args[len(args)-1]
		}
		return ps, true
	}
	if len(args) != n {
		return nil, false
	}
	return args, true
}

// concretize replaces polymorphic parameters with the element type (or its
// array) and checks that every argument converts implicitly.
func concretize(params, args []types.T) ([]types.T, bool) {
	elem, has, ok := polyElem(params, args)
	if !ok {
		return nil, false
	}
	actual := params
	for _, p := range params {
		if p.Domain == "any" {
			has = true
		}
	}
	if has {
		actual = make([]types.T, len(params))
		for i, p := range params {
			switch {
			case isAnyArrayParam(p):
				d := 1
				if args[i].Family == types.ArrayFamily && args[i].Dims > 0 {
					d = args[i].Dims
				}
				actual[i] = types.ArrayOf(elem, d)
			case p.Domain == "any":
				actual[i] = args[i]
				if isUnknownArg(args[i]) {
					actual[i] = types.TextT
				}
			case isAnyParam(p):
				actual[i] = elem
			default:
				actual[i] = p
			}
		}
	}
	for i, a := range args {
		if !canImplicit(a, actual[i]) {
			return nil, false
		}
	}
	return actual, true
}

// selectCandidate is PostgreSQL's func_select_candidate (preceded by the
// exact-match checks of func_get_detail and binary_oper_exact): it returns
// the single best candidate, or the remaining ones when it cannot decide.
func selectCandidate(cands []candidate, args []types.T, isOperator bool) []candidate {
	if len(cands) <= 1 {
		return cands
	}
	// An exact match on every argument wins. For a binary operator with one
	// unknown side, PostgreSQL first assumes the unknown side has the other
	// side's type.
	exact := func(in []types.T) []candidate {
		var out []candidate
		for _, c := range cands {
			same := true
			for i, a := range in {
				if isPolyParam(c.params[i]) || !a.Equal(c.params[i]) || isUnknownArg(a) {
					same = false
					break
				}
			}
			if same {
				out = append(out, c)
			}
		}
		return out
	}
	if m := exact(args); len(m) == 1 {
		return m
	}
	if isOperator && len(args) == 2 && isUnknownArg(args[0]) != isUnknownArg(args[1]) {
		in := []types.T{args[0], args[1]}
		if isUnknownArg(in[0]) {
			in[0] = in[1]
		} else {
			in[1] = in[0]
		}
		if m := exact(in); len(m) == 1 {
			return m
		}
	}

	// Most exact matches on the known arguments.
	keepMax := func(score func(c candidate) int) {
		best, out := -1, []candidate(nil)
		for _, c := range cands {
			s := score(c)
			if s > best {
				best, out = s, []candidate{c}
			} else if s == best {
				out = append(out, c)
			}
		}
		cands = out
	}
	keepMax(func(c candidate) int {
		n := 0
		for i, a := range args {
			if !isUnknownArg(a) && baseType(a).Equal(c.actual[i]) && !isPolyParam(c.params[i]) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return cands
	}
	// Most exact-or-preferred matches where a conversion is needed.
	keepMax(func(c candidate) int {
		n := 0
		for i, a := range args {
			if isUnknownArg(a) {
				continue
			}
			ac, _ := typeCategory(a)
			pc, pp := typeCategory(c.params[i])
			if (!isPolyParam(c.params[i]) && a.Equal(c.params[i])) || (pp && pc == ac) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return cands
	}

	// Unknown arguments: pick a category per position, preferring string.
	nUnknown := 0
	resolved := true
	slotCat := make([]byte, len(args))
	slotPref := make([]bool, len(args))
	for i, a := range args {
		if !isUnknownArg(a) {
			continue
		}
		nUnknown++
		conflict := false
		slotCat[i] = 0
		for _, c := range cands {
			cat, pref := typeCategory(c.params[i])
			switch {
			case slotCat[i] == 0:
				slotCat[i], slotPref[i] = cat, pref
			case cat == slotCat[i]:
				slotPref[i] = slotPref[i] || pref
			case cat == 'S':
				slotCat[i], slotPref[i] = cat, pref
			default:
				conflict = true
			}
		}
		if conflict && slotCat[i] != 'S' {
			resolved = false
			break
		}
	}
	if nUnknown > 0 && resolved {
		var out []candidate
		for _, c := range cands {
			keep := true
			for i, a := range args {
				if !isUnknownArg(a) {
					continue
				}
				cat, pref := typeCategory(c.params[i])
				if cat != slotCat[i] || (slotPref[i] && !pref) {
					keep = false
					break
				}
			}
			if keep {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			cands = out
		}
		if len(cands) == 1 {
			return cands
		}
	}

	// Last gasp: all known arguments have one type; assume the unknown ones
	// have it too.
	if nUnknown > 0 && nUnknown < len(args) {
		var known *types.T
		same := true
		for i := range args {
			if isUnknownArg(args[i]) {
				continue
			}
			if known == nil {
				known = &args[i]
			} else if !known.Equal(args[i]) {
				same = false
				break
			}
		}
		if same && known != nil {
			in := make([]types.T, len(args))
			for i := range in {
				in[i] = *known
			}
			var out []candidate
			for _, c := range cands {
				if _, ok := concretize(c.params, in); ok {
					out = append(out, c)
				}
			}
			if len(out) == 1 {
				return out
			}
		}
	}
	return cands
}

// isOperatorName reports whether name is an operator ("=", "->>") rather
// than a function name.
func isOperatorName(name string) bool {
	if name == "" {
		return false
	}
	return strings.Trim(name, "+-*/<>=~!@#%^&|`?") == ""
}

// castTargets returns the types to convert each argument to: the concrete
// parameter type, or the argument's own type where it already matches (so
// typmods and domains survive).
func castTargets(c candidate, args []types.T) []types.T {
	out := make([]types.T, len(args))
	for i, a := range args {
		switch {
		case !isUnknownArg(a) && a.Equal(c.actual[i]):
			out[i] = a
		case a.IsArray() && c.actual[i].IsArray():
			// Array types match regardless of dimensions (as in
			// PostgreSQL): a 2-D argument keeps its layout.
			out[i] = types.ArrayOf(*c.actual[i].Elem, max(a.Dims, 1))
		default:
			out[i] = c.actual[i]
		}
	}
	return out
}

// typeListString formats argument types as PostgreSQL's error messages do.
func typeListString(args []types.T) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = typeName(a)
	}
	return strings.Join(s, ", ")
}

// typeName is format_type without the modifier.
func typeName(t types.T) string {
	if t.Family == types.Null {
		return "unknown"
	}
	t.Mod = -1
	if t.Family == types.ArrayFamily {
		e := *t.Elem
		e.Mod = -1
		t.Elem = &e
	}
	return t.String()
}

func noSuchError(name string, args []types.T, isAgg bool) error {
	if isOperatorName(name) {
		if len(args) == 1 {
			return pgerr.New(pgerrcode.UndefinedFunction, "operator does not exist: %s %s", name, typeName(args[0])).
				WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		}
		return pgerr.New(pgerrcode.UndefinedFunction, "operator does not exist: %s %s %s", typeName(args[0]), name, typeName(args[1])).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	return pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeListString(args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func ambiguousError(name string, args []types.T) error {
	if isOperatorName(name) {
		if len(args) == 1 {
			return pgerr.New(pgerrcode.AmbiguousFunction, "operator is not unique: %s %s", name, typeName(args[0])).
				WithHint("Could not choose a best candidate operator. You might need to add an explicit type cast.")
		}
		return pgerr.New(pgerrcode.AmbiguousFunction, "operator is not unique: %s %s %s", typeName(args[0]), name, typeName(args[1])).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	return pgerr.New(pgerrcode.AmbiguousFunction, "function %s(%s) is not unique", name, typeListString(args)).
		WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
}

// Resolve picks the overload of the function or operator name that
// PostgreSQL would pick for arguments of the given types (an argument of
// Family Unknown or Null is an untyped literal or parameter), and returns
// the type each argument must be cast to before the call (equal to the
// argument's type where no cast is needed). No match is 42883, several
// equally good ones 42725, both with PostgreSQL's message and hint.
func Resolve(name string, args []types.T) (*Overload, []types.T, error) {
	if name == "!=" {
		name = "<>"
	}
	key, ok := resolveKeyOf(name, args)
	if ok {
		if r, hit := resolved.Load(key); hit {
			r := r.(resolution)
			return r.ov, slices.Clone(r.targets), nil
		}
	}
	ov, targets, err := resolve(name, args)
	if err != nil || !ok || resolvedN.Load() >= maxResolved {
		return ov, targets, err
	}
	// The memo keeps targets, which a type-aware overload's evaluation
	// holds on to (bindTyped), to itself.
	resolved.Store(key, resolution{ov: ov, targets: targets})
	resolvedN.Add(1)
	return ov, slices.Clone(targets), nil
}

// resolved memoizes Resolve for up to maxResolved calls whose arguments
// are plain scalar types (resolveKey): overloads are registered at init
// and never change, so a name and argument types resolve alike every
// time, and a statement bound again (every simple-protocol query is)
// skips the search through all the overloads of its operators, some
// 3 µs for the int8 = int4 of a point lookup by a literal.
var (
	resolved  sync.Map // resolveKey -> resolution
	resolvedN atomic.Int64
)

const maxResolved = 4096

// resolveKey is a name and up to three argument types that are neither
// arrays nor records nor domains nor enums: their family and modifier are
// all of them.
type resolveKey struct {
	name string
	n    int
	args [3]struct {
		family types.Family
		mod    int32
	}
}

// resolution is a memoized result of Resolve; targets is never handed
// out itself (callers get copies).
type resolution struct {
	ov      *Overload
	targets []types.T
}

// resolveKeyOf is the key of a call of name with args, if it has one.
func resolveKeyOf(name string, args []types.T) (resolveKey, bool) {
	k := resolveKey{name: name, n: len(args)}
	if len(args) > len(k.args) {
		return k, false
	}
	for i, t := range args {
		if t.Elem != nil || t.Fields != nil || t.Domain != "" || t.Dims != 0 || t.Enum != nil {
			return k, false
		}
		k.args[i].family, k.args[i].mod = t.Family, t.Mod
	}
	return k, true
}

// resolve is Resolve without the memo.
func resolve(name string, args []types.T) (*Overload, []types.T, error) {
	var cands []candidate
	for _, ov := range Overloads(name) {
		params, ok := expandParams(ov.Args, ov.Variadic, len(args))
		if !ok {
			continue
		}
		actual, ok := concretize(params, args)
		if !ok {
			continue
		}
		cands = append(cands, candidate{ov: ov, params: params, actual: actual})
	}
	if len(cands) == 0 {
		return nil, nil, noSuchError(strings.ToLower(name), args, false)
	}
	best := selectCandidate(cands, args, isOperatorName(name))
	if len(best) != 1 {
		return nil, nil, ambiguousError(strings.ToLower(name), args)
	}
	targets := castTargets(best[0], args)
	return bindTyped(best[0].ov, targets), targets, nil
}

// typedEvals holds, for overloads whose evaluation depends on the actual
// argument types (polymorphic and "any" arguments formatted as text or
// JSON), the type-aware evaluation function.
var typedEvals sync.Map // *Overload -> typedEval

// typedEval is an Eval that also receives the argument types (nil when
// called without resolution; it must then infer from the datums).
type typedEval func(ctx *Context, args []any, ts []types.T) (any, error)

// withTypes makes ov's Eval type-aware: Resolve hands out a copy of ov
// whose Eval sees the resolved argument types.
func withTypes(ov *Overload, f typedEval) *Overload {
	ov.Eval = func(ctx *Context, args []any) (any, error) { return f(ctx, args, nil) }
	typedEvals.Store(ov, f)
	return ov
}

// typedKernels holds the type-aware overloads whose Kernel reads the
// argument types from its Args alone (never through ov.Eval, as
// wrapKernel's does), so that the bound copy keeps it.
var typedKernels sync.Map // *Overload -> struct{}

// bindTyped returns ov, or for a type-aware overload a copy bound to ts.
func bindTyped(ov *Overload, ts []types.T) *Overload {
	f, ok := typedEvals.Load(ov)
	if !ok {
		return ov
	}
	cp := *ov
	te := f.(typedEval)
	cp.Eval = func(ctx *Context, args []any) (any, error) { return te(ctx, args, ts) }
	if _, ok := typedKernels.Load(ov); !ok {
		cp.Kernel = nil
	}
	return &cp
}

// argType is ts[i], or a type inferred from v when ts is nil.
func argType(ts []types.T, i int, v any) types.T {
	if i < len(ts) && ts[i].Family != types.Unknown && ts[i].Family != types.Null {
		return ts[i]
	}
	if i < len(ts) && ts[i].Family == types.Unknown && ts[i].Domain == "" {
		if _, ok := v.(string); ok {
			return types.TextT
		}
	}
	return types.TypeOfValue(v)
}

// outputText is a datum's text form as its type's output function writes
// it, following the session's TimeZone, DateStyle and extra_float_digits.
func outputText(ctx *Context, v any, t types.T) string {
	if s, ok := v.(string); ok {
		switch t.Family {
		case types.Text, types.Varchar, types.Char, types.Name, types.InternalChar, types.JSON, types.JSONB, types.JSONPath, types.TSVector, types.TSQuery, types.Unknown:
			return s
		}
	}
	return string(types.AppendText(nil, v, baseType(t), textOptions(ctx)))
}

// ResultType is the result type of ov when called with arguments of the
// given types (the cast targets Resolve returned).
func ResultType(ov *Overload, args []types.T) types.T {
	if ov.ResultFn != nil {
		return ov.ResultFn(args)
	}
	return ov.Result
}

// ResolveAggregate is Resolve for aggregate functions. count(*) is
// resolved with no arguments.
func ResolveAggregate(name string, args []types.T) (*Aggregate, []types.T, error) {
	var cands []candidate
	for _, ag := range Aggregates(name) {
		if len(ag.Args) != len(args) {
			continue
		}
		actual, ok := concretize(ag.Args, args)
		if !ok {
			continue
		}
		cands = append(cands, candidate{agg: ag, params: ag.Args, actual: actual})
	}
	if len(cands) == 0 {
		return nil, nil, noSuchError(strings.ToLower(name), args, true)
	}
	best := selectCandidate(cands, args, false)
	if len(best) != 1 {
		return nil, nil, ambiguousError(strings.ToLower(name), args)
	}
	return best[0].agg, castTargets(best[0], args), nil
}

// AggregateResultType is the result type of ag for arguments of the given
// types.
func AggregateResultType(ag *Aggregate, args []types.T) types.T {
	if ag.ResultFn != nil {
		return ag.ResultFn(args)
	}
	return ag.Result
}

// elemResult is a ResultFn returning the element type of the first array
// argument (or the first argument's type when none is an array).
func elemResult(args []types.T) types.T {
	for _, a := range args {
		if a.Family == types.ArrayFamily {
			return baseType(*a.Elem)
		}
	}
	if len(args) > 0 {
		return baseType(args[0])
	}
	return types.TextT
}

// arrayResult is a ResultFn returning the array type of the overload's
// polymorphic type.
func arrayResult(args []types.T) types.T {
	for _, a := range args {
		if a.Family == types.ArrayFamily {
			return baseType(a)
		}
	}
	if len(args) > 0 {
		return types.ArrayOf(baseType(args[0]), 1)
	}
	return types.ArrayOf(types.TextT, 1)
}
