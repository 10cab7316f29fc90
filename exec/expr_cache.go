package exec

import (
	"container/list"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// ExprCache memoises deterministic functions of one column over immutable
// batches. Table data reaches the executor as immutable Arrow arrays
// (cached Parquet row groups, in-memory tail batches), so the result of,
// say, metadata->>'repo' over one such array never changes: the second
// query that filters on it compares strings instead of parsing JSON again.
//
// An entry is keyed by the expression and the identity of its input (the
// address of the array's value buffer plus offset and length) and keeps a
// reference to that input, so the memory cannot be reused for other data
// while the entry lives. The cache also keeps the dictionaries of string
// columns (dictionary.go), keyed the same way. It is bounded by bytes (an
// entry counts its result, its input, which it keeps alive, and its
// bookkeeping), least recently used first out, and safe for concurrent use.
type ExprCache struct {
	mu      sync.Mutex
	budget  int64
	bytes   int64
	entries map[exprKey]*list.Element
	lru     list.List // front: most recently used
}

type exprKey struct {
	expr   string
	buf    uintptr
	offset int
	length int
}

type exprEntry struct {
	key    exprKey
	input  arrow.Array
	result arrow.Array
	// dict is the entry of a dictionary key: the input's dictionary, or
	// nil when the input has too many distinct values to encode.
	dict  *dictionary
	bytes int64
}

// release drops the entry's references.
func (ent *exprEntry) release() {
	ent.input.Release()
	if ent.result != nil {
		ent.result.Release()
	}
	if ent.dict != nil {
		ent.dict.values.Release()
	}
}

// NewExprCache returns a cache holding up to budget bytes of results.
func NewExprCache(budget int64) *ExprCache {
	return &ExprCache{budget: budget, entries: map[exprKey]*list.Element{}}
}

// maxCachedConst bounds the text of a constant argument of a cached call:
// large constants (query vectors) change from query to query and are not
// worth a cache entry.
const maxCachedConst = 256

// exprText is the exact identity of a cacheable call: function name,
// argument and result types, and the full text of its constants.
func exprText(e *sql.Call) (string, bool) {
	var b strings.Builder
	b.WriteString(e.Name)
	b.WriteString("(")
	for _, a := range e.Args {
		b.WriteString(a.Type().String())
		if c, ok := a.(*sql.Const); ok {
			if surelyLongerThan(c.Value, maxCachedConst) {
				return "", false
			}
			text := "NULL"
			if c.Value != nil {
				text = types.FormatText(c.Value, c.T)
			}
			if len(text) > maxCachedConst {
				return "", false
			}
			b.WriteString("=" + strconv.Quote(text))
		}
		b.WriteString(",")
	}
	b.WriteString(")" + e.T.String())
	return b.String(), true
}

// surelyLongerThan reports whether the text of datum v is sure to be
// longer than n bytes, judged without formatting it: a query vector of
// hundreds of floats takes microseconds to format, on every execution.
func surelyLongerThan(v any, n int) bool {
	switch x := v.(type) {
	case string:
		return len(x) > n
	case []byte:
		return 2*len(x) > n
	case []float32:
		return 2*len(x) > n // each element a digit and a comma at least
	case *types.Array:
		return 2*len(x.Elems) > n
	}
	return false
}

// cacheKey identifies e applied to arr; ok is false when the call or the
// array cannot be identified.
func cacheKey(e *sql.Call, arr arrow.Array) (exprKey, bool) {
	k, ok := arrayKey("", arr) // first: it refuses short inputs cheaply
	if !ok {
		return k, false
	}
	k.expr, ok = exprText(e)
	return k, ok
}

// dictionaryKeyText is the expression text of dictionary entries; no
// call's text starts with a NUL byte.
const dictionaryKeyText = "\x00dictionary"

// minMemoRows is the fewest rows an input must have to be memoised. A
// small batch costs little to compute again, and is mostly not table data
// but a statement's own intermediate rows (a recursive query's rounds,
// VALUES, a join's output), new buffers each time, so its entry is never
// hit: it only pins the input and a kilobyte of bookkeeping until evicted
// (200,000 one-row rounds of WITH RECURSIVE once held 400 MB this way).
const minMemoRows = 256

// arrayKey identifies the result of expression text over arr; false when
// arr is not worth memoising (too short, or no buffer to identify it by).
func arrayKey(text string, arr arrow.Array) (exprKey, bool) {
	if arr.Len() < minMemoRows {
		return exprKey{}, false
	}
	bufs := arr.Data().Buffers()
	for i := len(bufs) - 1; i >= 1; i-- {
		if bufs[i] != nil && bufs[i].Len() > 0 {
			return exprKey{expr: text, buf: uintptr(unsafe.Pointer(&bufs[i].Bytes()[0])), offset: arr.Data().Offset(), length: arr.Len()}, true
		}
	}
	return exprKey{}, false
}

// get returns a retained cached result, or nil.
func (c *ExprCache) get(k exprKey) arrow.Array {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	res := el.Value.(*exprEntry).result
	if res == nil {
		return nil
	}
	res.Retain()
	return res
}

// put stores result for k, retaining input and result; false when the
// result is too large to keep.
func (c *ExprCache) put(k exprKey, input, result arrow.Array) bool {
	result.Retain()
	if !c.add(&exprEntry{key: k, input: input, result: result, bytes: arraySize(result) + arraySize(input) + entryOverhead}) {
		result.Release()
		return false
	}
	return true
}

// dictionary returns the dictionary of col, building and keeping it on
// first use, with its values retained for the caller; nil when col has
// too many distinct values or cannot be identified.
func (c *ExprCache) dictionary(mem memory.Allocator, col *array.String) *dictionary {
	k, ok := arrayKey(dictionaryKeyText, col)
	if !ok {
		return nil
	}
	c.mu.Lock()
	if el, ok := c.entries[k]; ok {
		c.lru.MoveToFront(el)
		d := el.Value.(*exprEntry).dict
		if d != nil {
			d.values.Retain()
		}
		c.mu.Unlock()
		return d
	}
	c.mu.Unlock()
	d := buildDictionary(mem, col)
	ent := &exprEntry{key: k, input: col, dict: d, bytes: arraySize(col) + entryOverhead}
	if d != nil {
		ent.bytes += int64(4*len(d.codes)) + arraySize(d.values)
		d.values.Retain() // the caller's reference; the entry keeps the first
	}
	if !c.add(ent) && d != nil {
		d.values.Release()
	}
	return d
}

// entryOverhead is the memory of an entry besides the arrays' buffers:
// the entry, its list element and map slot, the arrays' headers.
const entryOverhead = 1024

// add stores an entry whose result or dictionary references it already
// holds, retaining its input; false (and nothing retained) when the entry
// is too large or its key already present.
func (c *ExprCache) add(ent *exprEntry) bool {
	if ent.bytes > c.budget/4 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[ent.key]; ok {
		return false
	}
	ent.input.Retain()
	c.entries[ent.key] = c.lru.PushFront(ent)
	c.bytes += ent.bytes
	for c.bytes > c.budget {
		el := c.lru.Back()
		old := el.Value.(*exprEntry)
		c.lru.Remove(el)
		delete(c.entries, old.key)
		c.bytes -= old.bytes
		old.release()
	}
	return true
}

// arraySize is the memory an array's buffers take.
func arraySize(a arrow.Array) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	walk(a.Data())
	return n
}

// cacheableInput returns the one column argument of a call that the cache
// can serve: a deterministic function whose other arguments are constants
// (not parameters, which change between executions of a statement).
func cacheableInput(e *sql.Call) (*sql.ColumnRef, bool) {
	if e.Overload == nil || e.Overload.Volatility != functions.Immutable {
		return nil, false
	}
	var col *sql.ColumnRef
	for _, a := range e.Args {
		switch x := a.(type) {
		case *sql.ColumnRef:
			if col != nil {
				return nil, false
			}
			col = x
		case *sql.Const:
		default:
			return nil, false
		}
	}
	return col, col != nil
}
