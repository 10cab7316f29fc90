package functions

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/tsearch"
	"github.com/jackc/pgerrcode"
)

// PostgreSQL's full-text search functions and operators over tsvector
// and tsquery (package tsearch holds the values, the parser, the
// configurations and the ranking).

var (
	tTSVector  = types.TSVectorT
	tTSQuery   = types.TSQueryT
	tRegConfig = types.RegConfigT
	tReal      = types.Float4T
	tRealArr   = types.ArrayOf(types.Float4T, 1)
	tTextArr   = types.ArrayOf(types.TextT, 1)
)

// currentConfig is the configuration default_text_search_config names.
func currentConfig(ctx *Context) (*tsearch.Config, error) {
	name := tsearch.DefaultConfig
	if ctx != nil && ctx.Session != nil {
		if s, ok := ctx.Session.Setting("default_text_search_config"); ok && s != "" {
			name = s
		}
	}
	c, ok := tsearch.ConfigByName(name)
	if !ok {
		return nil, tsearch.ErrNoConfig(name)
	}
	return c, nil
}

// configArg is the configuration of a regconfig argument.
func configArg(v any) (*tsearch.Config, error) {
	oid := v.(int64)
	c, ok := tsearch.ConfigByOID(oid)
	if !ok {
		return nil, pgerr.New(pgerrcode.UndefinedObject, "cache lookup failed for text search configuration %d", oid)
	}
	return c, nil
}

func vectorArg(v any) (tsearch.Vector, error) { return tsearch.ParseVector(v.(string)) }
func queryArg(v any) (tsearch.Query, error)   { return tsearch.ParseQuery(v.(string)) }

// withConfig registers f as name(regconfig, text) and, under the
// session's default configuration, name(text) (which is stable).
func withConfig(name string, res types.T, f func(ctx *Context, c *tsearch.Config, text string) (any, error)) []*Overload {
	return []*Overload{
		fn(name, targs(tRegConfig, types.TextT), res, func(ctx *Context, a []any) (any, error) {
			c, err := configArg(a[0])
			if err != nil {
				return nil, err
			}
			return f(ctx, c, a[1].(string))
		}),
		stable(fn(name, targs(types.TextT), res, func(ctx *Context, a []any) (any, error) {
			c, err := currentConfig(ctx)
			if err != nil {
				return nil, err
			}
			return f(ctx, c, a[0].(string))
		})),
	}
}

// toVector is c.ToVector under the statement's context: a cancel stops
// the parsing of a long text with 57014.
func toVector(ctx *Context, c *tsearch.Config, text string) (tsearch.Vector, error) {
	v, err := c.ToVector(ctx.context(), text)
	if err != nil {
		return nil, pgerr.From(err)
	}
	return v, nil
}

// weightsArg reads ts_rank's weights array {D, C, B, A}: a negative
// weight takes the default; none may be NULL or above 1.
func weightsArg(v any) ([4]float32, error) {
	a := v.(*types.Array)
	w := tsearch.DefaultWeights
	if len(a.Dims) > 1 {
		return w, pgerr.New(pgerrcode.ArraySubscriptError, "array of weight must be one-dimensional")
	}
	if len(a.Elems) < 4 {
		return w, pgerr.New(pgerrcode.ArraySubscriptError, "array of weight is too short")
	}
	for i := range 4 {
		e := a.Elems[i]
		if e == nil {
			return w, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "array of weight must not contain nulls")
		}
		if x := float32(e.(float64)); x >= 0 {
			w[i] = x
		}
		if w[i] > 1.0 {
			return w, pgerr.New(pgerrcode.InvalidParameterValue, "weight out of range")
		}
	}
	return w, nil
}

// rankOverloads registers ts_rank or ts_rank_cd with its four
// signatures ([weights,] vector, query [, normalization]).
func rankOverloads(name string, rank func([4]float32, tsearch.Vector, tsearch.Query, int) float32) []*Overload {
	call := func(w [4]float32, vs, qs any, method int64) (any, error) {
		v, err := vectorArg(vs)
		if err != nil {
			return nil, err
		}
		q, err := queryArg(qs)
		if err != nil {
			return nil, err
		}
		return float64(rank(w, v, q, int(method))), nil
	}
	return []*Overload{
		fn(name, targs(tTSVector, tTSQuery), tReal, func(_ *Context, a []any) (any, error) {
			return call(tsearch.DefaultWeights, a[0], a[1], 0)
		}),
		fn(name, targs(tTSVector, tTSQuery, types.Int4T), tReal, func(_ *Context, a []any) (any, error) {
			return call(tsearch.DefaultWeights, a[0], a[1], a[2].(int64))
		}),
		fn(name, targs(tRealArr, tTSVector, tTSQuery), tReal, func(_ *Context, a []any) (any, error) {
			w, err := weightsArg(a[0])
			if err != nil {
				return nil, err
			}
			return call(w, a[1], a[2], 0)
		}),
		fn(name, targs(tRealArr, tTSVector, tTSQuery, types.Int4T), tReal, func(_ *Context, a []any) (any, error) {
			w, err := weightsArg(a[0])
			if err != nil {
				return nil, err
			}
			return call(w, a[1], a[2], a[3].(int64))
		}),
	}
}

// weightArg reads setweight's "char" weight.
func weightArg(v any) (uint8, error) {
	s := v.(string)
	var c byte
	if len(s) > 0 {
		c = s[0]
	}
	switch c {
	case 'A', 'a':
		return 3, nil
	case 'B', 'b':
		return 2, nil
	case 'C', 'c':
		return 1, nil
	case 'D', 'd':
		return 0, nil
	}
	return 0, pgerr.New(pgerrcode.InternalError, "unrecognized weight: %d", c)
}

// matchVQ is tsvector @@ tsquery on datums.
func matchVQ(vs, qs any) (any, error) {
	v, err := vectorArg(vs)
	if err != nil {
		return nil, err
	}
	q, err := queryArg(qs)
	if err != nil {
		return nil, err
	}
	return tsearch.Match(v, q), nil
}

// combineQueries is a binary tsquery operator.
func combineQueries(op tsearch.Op, dist func(a []any) (int, error)) func(*Context, []any) (any, error) {
	return func(_ *Context, a []any) (any, error) {
		l, err := queryArg(a[0])
		if err != nil {
			return nil, err
		}
		r, err := queryArg(a[1])
		if err != nil {
			return nil, err
		}
		d := 0
		if dist != nil {
			if d, err = dist(a); err != nil {
				return nil, err
			}
		}
		return tsearch.Combine(l, r, op, d).String(), nil
	}
}

// headline is ts_headline of text under c for the query datum and the
// options text (nil for the defaults).
func headline(ctx *Context, c *tsearch.Config, text string, qs any, opts any) (any, error) {
	q, err := queryArg(qs)
	if err != nil {
		return nil, err
	}
	o := tsearch.DefaultHeadlineOptions
	if opts != nil {
		if o, err = tsearch.ParseHeadlineOptions(opts.(string)); err != nil {
			return nil, err
		}
	}
	out, err := c.Headline(ctx.context(), text, q, o)
	if err != nil {
		return nil, pgerr.From(err)
	}
	return out, nil
}

// jsonHeadline is ts_headline of a json or jsonb document: each string
// value (not the object keys) becomes its own headline; the result is
// jsonb's canonical text, or for json the compact text PostgreSQL's
// transform_json_string_values prints (keys as written, in order, no
// spaces). The options' list syntax is checked first; their names and
// values only when there is a string to headline, as PostgreSQL does.
func jsonHeadline(ctx *Context, c *tsearch.Config, doc string, qs any, opts any, jsonb bool) (any, error) {
	q, err := queryArg(qs)
	if err != nil {
		return nil, err
	}
	j, err := parseJSON(doc)
	if err != nil {
		return nil, err
	}
	o := tsearch.DefaultHeadlineOptions
	var optErr error
	if opts != nil {
		o, optErr = tsearch.ParseHeadlineOptions(opts.(string))
		if pgerr.Code(optErr) == pgerrcode.SyntaxError {
			return nil, optErr
		}
	}
	var walk func(*jnode) error
	walk = func(n *jnode) error {
		switch n.kind {
		case jsonString:
			if optErr != nil {
				return optErr
			}
			h, err := c.Headline(ctx.context(), n.str, q, o)
			if err != nil {
				return pgerr.From(err)
			}
			n.str, n.raw = h, ""
		case jsonArray, jsonObject:
			for _, v := range n.vals {
				if err := walk(v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(j); err != nil {
		return nil, err
	}
	if jsonb {
		return jsonbText(j), nil
	}
	var b strings.Builder
	writeCompactJSON(&b, j) // as jsonb_strip_nulls prints json
	return b.String(), nil
}

// headlineOverloads registers ts_headline([regconfig,] document,
// tsquery [, text]) for text, json and jsonb documents; the forms
// without a configuration use the session's.
func headlineOverloads() []*Overload {
	var out []*Overload
	for _, doc := range []types.T{types.TextT, types.JSONT, types.JSONBT} {
		call := func(ctx *Context, c *tsearch.Config, a []any) (any, error) {
			var opts any
			if len(a) > 2 {
				opts = a[2]
			}
			if doc.Family == types.TextT.Family {
				return headline(ctx, c, a[0].(string), a[1], opts)
			}
			return jsonHeadline(ctx, c, a[0].(string), a[1], opts, doc.Family == types.JSONBT.Family)
		}
		byConfig := func(ctx *Context, a []any) (any, error) {
			c, err := configArg(a[0])
			if err != nil {
				return nil, err
			}
			return call(ctx, c, a[1:])
		}
		byDefault := func(ctx *Context, a []any) (any, error) {
			c, err := currentConfig(ctx)
			if err != nil {
				return nil, err
			}
			return call(ctx, c, a)
		}
		t := types.TextT
		out = append(out,
			fn("ts_headline", targs(tRegConfig, doc, tTSQuery, t), doc, byConfig),
			fn("ts_headline", targs(tRegConfig, doc, tTSQuery), doc, byConfig),
			stable(fn("ts_headline", targs(doc, tTSQuery, t), doc, byDefault)),
			stable(fn("ts_headline", targs(doc, tTSQuery), doc, byDefault)),
		)
	}
	return out
}

func init() {
	Register(withConfig("to_tsvector", tTSVector, func(ctx *Context, c *tsearch.Config, s string) (any, error) {
		v, err := toVector(ctx, c, s)
		if err != nil {
			return nil, err
		}
		return v.String(), nil
	})...)
	Register(withConfig("to_tsquery", tTSQuery, func(_ *Context, c *tsearch.Config, s string) (any, error) {
		q, _, err := c.ToQuery(s)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	})...)
	Register(withConfig("plainto_tsquery", tTSQuery, func(_ *Context, c *tsearch.Config, s string) (any, error) {
		q, _, err := c.PlainToQuery(s)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	})...)
	Register(withConfig("phraseto_tsquery", tTSQuery, func(_ *Context, c *tsearch.Config, s string) (any, error) {
		q, _, err := c.PhraseToQuery(s)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	})...)
	Register(withConfig("websearch_to_tsquery", tTSQuery, func(_ *Context, c *tsearch.Config, s string) (any, error) {
		q, _, err := c.WebSearchToQuery(s)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	})...)
	Register(rankOverloads("ts_rank", tsearch.Rank)...)
	Register(headlineOverloads()...)
	Register(rankOverloads("ts_rank_cd", tsearch.RankCD)...)
	Register(
		stable(fn("get_current_ts_config", nil, tRegConfig, func(ctx *Context, _ []any) (any, error) {
			c, err := currentConfig(ctx)
			if err != nil {
				return nil, err
			}
			return c.OID, nil
		})),
		fn("@@", targs(tTSVector, tTSQuery), types.BoolT, func(_ *Context, a []any) (any, error) {
			return matchVQ(a[0], a[1])
		}),
		fn("@@", targs(tTSQuery, tTSVector), types.BoolT, func(_ *Context, a []any) (any, error) {
			return matchVQ(a[1], a[0])
		}),
		stable(fn("@@", targs(types.TextT, tTSQuery), types.BoolT, func(ctx *Context, a []any) (any, error) {
			c, err := currentConfig(ctx)
			if err != nil {
				return nil, err
			}
			v, err := toVector(ctx, c, a[0].(string))
			if err != nil {
				return nil, err
			}
			q, err := queryArg(a[1])
			if err != nil {
				return nil, err
			}
			return tsearch.Match(v, q), nil
		})),
		stable(fn("@@", targs(types.TextT, types.TextT), types.BoolT, func(ctx *Context, a []any) (any, error) {
			c, err := currentConfig(ctx)
			if err != nil {
				return nil, err
			}
			v, err := toVector(ctx, c, a[0].(string))
			if err != nil {
				return nil, err
			}
			q, _, err := c.PlainToQuery(a[1].(string))
			if err != nil {
				return nil, err
			}
			return tsearch.Match(v, q), nil
		})),
		fn("||", targs(tTSVector, tTSVector), tTSVector, func(_ *Context, a []any) (any, error) {
			l, err := vectorArg(a[0])
			if err != nil {
				return nil, err
			}
			r, err := vectorArg(a[1])
			if err != nil {
				return nil, err
			}
			return tsearch.Concat(l, r).String(), nil
		}),
		fn("&&", targs(tTSQuery, tTSQuery), tTSQuery, combineQueries(tsearch.OpAnd, nil)),
		fn("||", targs(tTSQuery, tTSQuery), tTSQuery, combineQueries(tsearch.OpOr, nil)),
		fn("<->", targs(tTSQuery, tTSQuery), tTSQuery, combineQueries(tsearch.OpPhrase, func([]any) (int, error) { return 1, nil })),
		fn("tsquery_phrase", targs(tTSQuery, tTSQuery), tTSQuery, combineQueries(tsearch.OpPhrase, func([]any) (int, error) { return 1, nil })),
		fn("tsquery_phrase", targs(tTSQuery, tTSQuery, types.Int4T), tTSQuery, combineQueries(tsearch.OpPhrase, func(a []any) (int, error) {
			d := a[2].(int64)
			if d < 0 || d > tsearch.MaxDist {
				return 0, pgerr.New(pgerrcode.InvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", tsearch.MaxDist)
			}
			return int(d), nil
		})),
		fn1("!!", tTSQuery, tTSQuery, func(a any) (any, error) {
			q, err := queryArg(a)
			if err != nil {
				return nil, err
			}
			return tsearch.Negate(q).String(), nil
		}),
		fn1("numnode", tTSQuery, types.Int4T, func(a any) (any, error) {
			q, err := queryArg(a)
			if err != nil {
				return nil, err
			}
			return int64(q.Size()), nil
		}),
		fn1("querytree", tTSQuery, types.TextT, func(a any) (any, error) {
			q, err := queryArg(a)
			if err != nil {
				return nil, err
			}
			return tsearch.QueryTree(q), nil
		}),
		fn1("length", tTSVector, types.Int4T, func(a any) (any, error) {
			v, err := vectorArg(a)
			if err != nil {
				return nil, err
			}
			return int64(len(v)), nil
		}),
		fn1("strip", tTSVector, tTSVector, func(a any) (any, error) {
			v, err := vectorArg(a)
			if err != nil {
				return nil, err
			}
			return tsearch.Strip(v).String(), nil
		}),
		fn("setweight", targs(tTSVector, types.InternalCharT), tTSVector, func(_ *Context, a []any) (any, error) {
			v, err := vectorArg(a[0])
			if err != nil {
				return nil, err
			}
			w, err := weightArg(a[1])
			if err != nil {
				return nil, err
			}
			return tsearch.SetWeight(v, w, nil).String(), nil
		}),
		fn("setweight", targs(tTSVector, types.InternalCharT, tTextArr), tTSVector, func(_ *Context, a []any) (any, error) {
			v, err := vectorArg(a[0])
			if err != nil {
				return nil, err
			}
			w, err := weightArg(a[1])
			if err != nil {
				return nil, err
			}
			only := map[string]bool{}
			for _, e := range a[2].(*types.Array).Elems {
				if e == nil {
					return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "lexeme array may not contain nulls")
				}
				only[e.(string)] = true
			}
			return tsearch.SetWeight(v, w, only).String(), nil
		}),
		fn1("tsvector_to_array", tTSVector, tTextArr, func(a any) (any, error) {
			v, err := vectorArg(a)
			if err != nil {
				return nil, err
			}
			elems := make([]any, len(v))
			for i, l := range v {
				elems[i] = l.Word
			}
			return types.NewArray(types.TextT, elems...), nil
		}),
		fn1("array_to_tsvector", tTextArr, tTSVector, func(a any) (any, error) {
			arr := a.(*types.Array)
			words := make([]string, len(arr.Elems))
			for i, e := range arr.Elems {
				if e == nil {
					return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "lexeme array may not contain nulls")
				}
				if e.(string) == "" {
					return nil, pgerr.New(pgerrcode.ZeroLengthCharacterString, "lexeme array may not contain empty strings")
				}
				words[i] = e.(string)
			}
			v, err := tsearch.FromWords(words)
			if err != nil {
				return nil, err
			}
			return v.String(), nil
		}),
	)
}
