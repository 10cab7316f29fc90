package functions

// embed(text) -> real[] and embed(text[]) -> real[][]: the embedding of a
// text, or of each text of an array (one row of the result per text),
// computed by the server's embedding endpoint (cairn --embed-url; see
// package functions/embedding). So `ORDER BY embedding <#> embed($1)` and
// `INSERT ... VALUES ($1, embed($1))` work from any client.
//
// embed is Stable: within a statement the same text gives the same vector,
// so a constant argument is embedded once per batch (and then found in the
// client's cache) rather than once per row. A column of texts is sent as
// one call for the whole batch, which the client splits into requests.
// A NULL text gives NULL; a NULL element of an array is an error (22004),
// as a real[][] cannot hold a missing row. Without an endpoint, embed
// fails with 55000; cairn_embedding_enabled() says beforehand whether it
// would (the memory tools ask it to choose between embedding and
// keywords alone).

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// Embedder turns texts into embedding vectors, one per text in order
// (implemented by functions/embedding's Client). It is safe for concurrent
// use; the vectors it returns are read-only. Errors carry their SQLSTATE.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// errNoEmbedder is embed()'s error on a server without an endpoint.
func errNoEmbedder() error {
	return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "no embedding endpoint configured: start cairn with --embed-url")
}

// embedTexts embeds texts through the statement's embedder.
func embedTexts(ctx *Context, texts []string) ([][]float32, error) {
	if ctx == nil || ctx.Embed == nil {
		return nil, errNoEmbedder()
	}
	return ctx.Embed(texts)
}

// float4Array is the real[] datum of a vector.
func float4Array(v []float32) *types.Array {
	elems := make([]any, len(v))
	for i, x := range v {
		elems[i] = float64(x)
	}
	return types.NewArray(types.Float4T, elems...)
}

func embedOne(ctx *Context, a []any) (any, error) {
	vs, err := embedTexts(ctx, []string{a[0].(string)})
	if err != nil {
		return nil, err
	}
	return float4Array(vs[0]), nil
}

func embedMany(ctx *Context, a []any) (any, error) {
	arr := a[0].(*types.Array)
	if len(arr.Dims) > 1 {
		return nil, pgerr.New(pgerrcode.ArraySubscriptError, "embed() takes a one-dimensional text array, not %d dimensions", len(arr.Dims))
	}
	texts := make([]string, len(arr.Elems))
	for i, e := range arr.Elems {
		s, ok := e.(string)
		if !ok {
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "embed() cannot embed a NULL element (element %d)", i+1)
		}
		texts[i] = s
	}
	if len(texts) == 0 {
		return &types.Array{Elem: types.Float4T}, nil
	}
	vs, err := embedTexts(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := &types.Array{Elem: types.Float4T, Dims: []int{len(vs), len(vs[0])}}
	for _, v := range vs {
		if len(v) != len(vs[0]) {
			return nil, pgerr.New(pgerrcode.SystemError, "the embedding endpoint returned vectors of %d and %d dimensions", len(vs[0]), len(v))
		}
		for _, x := range v {
			out.Elems = append(out.Elems, float64(x))
		}
	}
	return out, nil
}

// embedKernel embeds a column of texts with one Embed call for the batch.
func embedKernel(ctx *Context, args []Arg, n int) (arrow.Array, error) {
	col := args[0].Array
	texts := make([]string, 0, n)
	for i := 0; i < n; i++ {
		if v, ok := types.ValueAt(col, i, tText).(string); ok {
			texts = append(texts, v)
		}
	}
	var vs [][]float32
	if len(texts) > 0 {
		var err error
		if vs, err = embedTexts(ctx, texts); err != nil {
			return nil, err
		}
	}
	b := array.NewListBuilder(mem(ctx), arrow.PrimitiveTypes.Float32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Float32Builder)
	for i := 0; i < n; i++ {
		if types.IsNullAt(col, i) {
			b.AppendNull()
			continue
		}
		b.Append(true)
		vb.AppendValues(vs[0], nil)
		vs = vs[1:]
	}
	return b.NewArray(), nil
}

func init() {
	one := stable(fn("embed", targs(tText), tF4Arr, embedOne))
	one.Kernel = wrapKernel(one, tF4Arr, embedKernel)
	Register(one, stable(fn("embed", targs(types.ArrayOf(tText, 1)), types.ArrayOf(types.Float4T, 2), embedMany)),
		stable(fn("cairn_embedding_enabled", nil, tBool, func(ctx *Context, _ []any) (any, error) {
			return ctx != nil && ctx.Embed != nil, nil
		})))
}
