package sql

// Named arguments (f(a => 1), f(a := 1)) for the built-in functions whose
// PostgreSQL signatures name their parameters and for the functions of
// CREATE FUNCTION: the call is rewritten into positional form, parameters
// left out taking their defaults.

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// param is a named parameter and its default as SQL text ("" for none).
type param struct{ name, def string }

// omittable are the parameters without a default that a shorter signature
// of the same function lets a call leave out.
var omittable = map[string]bool{"make_timestamptz.timezone": true}

// namedParams are the parameters of the functions named arguments can
// call, as pg_proc's proargnames and defaults have them.
var namedParams = map[string][]param{
	"make_interval":  {{"years", "0"}, {"months", "0"}, {"weeks", "0"}, {"days", "0"}, {"hours", "0"}, {"mins", "0"}, {"secs", "0.0"}},
	"make_date":      {{"year", ""}, {"month", ""}, {"day", ""}},
	"make_time":      {{"hour", ""}, {"min", ""}, {"sec", ""}},
	"make_timestamp": {{"year", ""}, {"month", ""}, {"mday", ""}, {"hour", ""}, {"min", ""}, {"sec", ""}},
	"make_timestamptz": {{"year", ""}, {"month", ""}, {"mday", ""}, {"hour", ""}, {"min", ""}, {"sec", ""},
		{"timezone", ""}},
	"jsonb_set":    {{"jsonb_in", ""}, {"path", ""}, {"replacement", ""}, {"create_if_missing", "true"}},
	"jsonb_insert": {{"jsonb_in", ""}, {"path", ""}, {"replacement", ""}, {"insert_after", "false"}},
	"jsonb_set_lax": {{"jsonb_in", ""}, {"path", ""}, {"replacement", ""}, {"create_if_missing", "true"},
		{"null_value_treatment", "'use_json_null'"}},
	"jsonb_path_exists":      jsonPathParams,
	"jsonb_path_match":       jsonPathParams,
	"jsonb_path_query":       jsonPathParams,
	"jsonb_path_query_array": jsonPathParams,
	"jsonb_path_query_first": jsonPathParams,
	"parse_ident":            {{"str", ""}, {"strict", "true"}},
}

// jsonPathParams are the parameters of the jsonb_path_* functions.
var jsonPathParams = []param{{"target", ""}, {"path", ""}, {"vars", "'{}'::jsonb"}, {"silent", "false"}}

// positionalArgs puts a call's named arguments in their parameters'
// places. Positional arguments must come first, as in PostgreSQL. The
// parameters declared void are dropped first (withoutVoidParams).
func (b *Binder) positionalArgs(sc *scope, funcname []*pg_query.Node, args []*pg_query.Node) ([]*pg_query.Node, error) {
	args = b.withoutVoidParams(args)
	named := false
	for _, a := range args {
		if a.GetNamedArgExpr() != nil {
			named = true
		}
	}
	if !named {
		return args, nil
	}
	name := strings.ToLower(nameOf(funcname))
	params, builtin := namedParams[name]
	if !builtin {
		params = b.userFunctionParams(strList(funcname), args) // none: no parameter name matches
	}
	out := make([]*pg_query.Node, len(params))
	last := -1
	for i, a := range args {
		na := a.GetNamedArgExpr()
		if na == nil { // the grammar puts positional arguments first
			if i >= len(params) {
				return nil, b.noNamedMatch(sc, name, args)
			}
			out[i], last = a, i
			continue
		}
		pos := -1
		for j, p := range params {
			if p.name == strings.ToLower(na.Name) {
				pos = j
			}
		}
		for _, b := range args[:i] {
			if prev := b.GetNamedArgExpr(); prev != nil && strings.EqualFold(prev.Name, na.Name) {
				return nil, pgerr.New(pgerrcode.SyntaxError, "argument name \"%s\" used more than once", na.Name)
			}
		}
		if pos < 0 || out[pos] != nil {
			return nil, b.noNamedMatch(sc, name, args)
		}
		out[pos], last = na.Arg, max(last, pos)
	}
	// Parameters after the last one given are left out; a gap before it
	// takes the parameter's default.
	for j, p := range params {
		if out[j] == nil && p.def == "" && !omittable[name+"."+p.name] {
			return nil, b.noNamedMatch(sc, name, args)
		}
	}
	out = out[:last+1]
	for j, a := range out {
		if a != nil {
			continue
		}
		def, err := ParseExpr(params[j].def)
		if err != nil {
			return nil, err
		}
		out[j] = def
	}
	return out, nil
}

// noNamedMatch is the error for named arguments that match no signature
// of the function (an unknown or repeated name, a missing parameter),
// naming the call as PostgreSQL does: f(integer, days => integer).
func (b *Binder) noNamedMatch(sc *scope, name string, args []*pg_query.Node) error {
	parts := make([]string, len(args))
	for i, a := range args {
		arg, prefix := a, ""
		if na := a.GetNamedArgExpr(); na != nil {
			arg, prefix = na.Arg, na.Name+" => "
		}
		t := "unknown"
		if e, err := b.bindExpr(sc, arg); err == nil {
			t = e.Type().String()
		}
		parts[i] = prefix + t
	}
	return pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(parts, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

// userFunctionParams are the parameters of the function of CREATE
// FUNCTION a call with named arguments args names (qualified, or the
// first on the search path): one whose parameter names cover the named
// arguments after the positional ones, and whose parameters without a
// DEFAULT the call all gives. nil if none has.
func (b *Binder) userFunctionParams(names []string, args []*pg_query.Node) []param {
	schemas := b.SearchPath
	if len(names) == 2 {
		schemas = names[:1]
	}
	positional := 0
	for _, a := range args {
		if a.GetNamedArgExpr() == nil {
			positional++
		}
	}
	for _, schema := range schemas {
		for _, f := range b.Catalog.FunctionsNamed(schema, names[len(names)-1]) {
			if f.Trigger || positional > len(f.ArgTypes) {
				continue
			}
			given := make([]bool, len(f.ArgTypes))
			for i := range positional {
				given[i] = true
			}
			fits := true
			for _, a := range args {
				if na := a.GetNamedArgExpr(); na != nil {
					i := slices.Index(f.ArgNames, na.Name)
					fits = fits && i >= positional
					if i >= 0 {
						given[i] = true
					}
				}
			}
			for i := range f.RequiredArgs() {
				fits = fits && given[i]
			}
			if !fits {
				continue
			}
			params := make([]param, len(f.ArgTypes))
			for i := range params {
				if i < len(f.ArgNames) {
					params[i].name = f.ArgNames[i]
				}
				if i < len(f.ArgDefaults) {
					params[i].def = f.ArgDefaults[i]
				}
			}
			return params
		}
	}
	return nil
}

// withoutVoidParams drops from a call's arguments the parameters the
// client declared of type void, as PostgreSQL's ParseFuncOrColumn does:
// pgjdbc sends the call {? = call f(?)} as "SELECT * FROM f($1,$2) AS
// result" with $1, the OUT parameter that receives the result, typed
// void.
func (b *Binder) withoutVoidParams(args []*pg_query.Node) []*pg_query.Node {
	isVoid := func(a *pg_query.Node) bool {
		p := a.GetParamRef()
		return p != nil && p.Number >= 1 && int(p.Number) <= len(b.Params) && b.Params[p.Number-1].OID() == types.VoidOID
	}
	if !slices.ContainsFunc(args, isVoid) {
		return args
	}
	return slices.DeleteFunc(slices.Clone(args), isVoid)
}
