package sql

import (
	"math"
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Parsing a statement costs more than binding and running a small one
// (pg_query runs PostgreSQL's grammar in C and hands the tree over as
// protobuf: some 20-40 µs for a point lookup, three times that with
// pg_stat_statements' normalisation). A driver that sends its parameters
// inside the text sends the same statement with other constants again and
// again, so Parse keeps the parse tree of each query shape (shape.go) it
// has seen twice, as a template: a later query of that shape reuses the
// tree, and the binder reads the query's own constants in place of the
// template's (Parsed.consts). The tree is shared and never modified.
//
// A shape becomes a template only when its tree provably depends on its
// literals through their constants alone: every literal must have become
// constants at its own position with the value it spells, and a probe
// query, the same text with every literal changed, must parse to the same
// tree with the probe's constants in their place. Literals the grammar
// consumes (float(24), a negated number, 'a' 'b' across lines) fail that,
// and such shapes are parsed afresh each time. Only statements whose
// binding reads constants through the binder are templated with literals:
// SELECT (not SELECT INTO), INSERT, UPDATE, DELETE; transaction control,
// SET and SHOW only when they hold none.

// The cache's bounds, which also bound the memory of the trees it keeps
// (a tree takes some tens of times its query's bytes): past either, it
// starts over.
const (
	// maxShapedQuery is the longest query considered for a template.
	maxShapedQuery = 2 << 10
	// maxShapeBytes bounds the text of the shapes the cache holds.
	maxShapeBytes = 1 << 20
	// maxShapes bounds how many shapes it holds.
	maxShapes = 4096
)

// template is the parse of a query shape, shared by its queries.
type template struct {
	stmt *pg_query.Node
	// consts are, per literal of the shape, the constants the grammar
	// made of it.
	consts [][]*pg_query.A_Const
	// start and tail place the statement's text in a query of the shape:
	// query[start : len(query)-tail].
	start, tail int
	// sample is the query the template was made from.
	sample string

	normOnce sync.Once
	normText string
	normID   int64
	normErr  error
}

// shapeEntry is what the cache knows of a shape.
type shapeEntry struct {
	tmpl     *template
	building bool // a second query of the shape is being made a template
	unusable bool // the shape cannot be a template
}

// shapeCache maps query shapes to templates. A shape's first query only
// marks it seen, so that one-off queries cost no more than their parse.
type shapeCache struct {
	mu      sync.Mutex
	entries map[string]*shapeEntry
	bytes   int
}

var shapes shapeCache

// lookup returns shape's template, or build true when the caller should
// make one from the query it is about to parse.
func (c *shapeCache) lookup(shape string) (t *template, build bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[shape]
	switch {
	case e == nil:
		if c.entries == nil || c.bytes+len(shape) > maxShapeBytes || len(c.entries) >= maxShapes {
			c.entries, c.bytes = map[string]*shapeEntry{}, 0
		}
		c.entries[shape] = &shapeEntry{}
		c.bytes += len(shape)
		return nil, false
	case e.tmpl != nil:
		return e.tmpl, false
	case e.unusable || e.building:
		return nil, false
	}
	e.building = true
	return nil, true
}

// store records the template made for shape (nil: it cannot be one).
func (c *shapeCache) store(shape string, t *template) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[shape]; e != nil {
		e.tmpl, e.unusable, e.building = t, t == nil, false
	}
}

// parseShaped answers Parse from a template when query's shape has one.
// When it has none yet, it returns a function that makes one from the
// query's parse (nil: nothing to do).
func parseShaped(query string) (p *Parsed, learn func(*pg_query.ParseResult)) {
	if len(query) > maxShapedQuery || strings.IndexByte(query, 0) >= 0 {
		return nil, nil
	}
	shape, lits, ok := shapeOf(query, nil)
	if !ok {
		return nil, nil
	}
	t, build := shapes.lookup(shape)
	if t != nil {
		if p, ok := t.instantiate(query, lits); ok {
			return p, nil
		}
		return nil, nil
	}
	if !build {
		return nil, nil
	}
	return nil, func(tree *pg_query.ParseResult) {
		var t *template
		if tree != nil {
			t = newTemplate(query, tree, lits)
		}
		shapes.store(shape, t)
	}
}

// instantiate makes query, of t's shape with the given literals, a Parsed
// that shares t's tree; ok is false when a literal's constant cannot be
// made here (the parser decides what to say about it).
func (t *template) instantiate(query string, lits []literal) (p *Parsed, ok bool) {
	p = &Parsed{Text: strings.TrimSpace(query[t.start : len(query)-t.tail]), node: t.stmt, tmpl: t}
	if len(lits) == 0 {
		return p, true
	}
	p.query = query
	p.consts = make(map[*pg_query.A_Const]*pg_query.A_Const, len(lits))
	for i, l := range lits {
		c, ok := l.constant(query)
		if !ok {
			return nil, false
		}
		for _, at := range t.consts[i] {
			p.consts[at] = c
		}
	}
	return p, true
}

// newTemplate makes the template of query's shape from its parse, or
// returns nil when the shape cannot be one (see the comment at the top).
func newTemplate(query string, tree *pg_query.ParseResult, lits []literal) *template {
	if len(tree.Stmts) != 1 {
		return nil
	}
	raw := tree.Stmts[0]
	if !templatable(raw.Stmt, len(lits) > 0) {
		return nil
	}
	start, end := int(raw.StmtLocation), len(query)
	if raw.StmtLen > 0 {
		end = start + int(raw.StmtLen)
	}
	if start < 0 || end > len(query) || start > end ||
		len(lits) > 0 && (lits[0].start < start || lits[len(lits)-1].end > end) {
		return nil
	}
	t := &template{stmt: raw.Stmt, start: start, tail: len(query) - end, sample: query}
	if len(lits) == 0 {
		return t
	}
	byLocation := map[int32][]*pg_query.A_Const{}
	walkMessages(raw.Stmt.ProtoReflect(), func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg_query.A_Const); ok {
			byLocation[c.Location] = append(byLocation[c.Location], c)
		}
	})
	t.consts = make([][]*pg_query.A_Const, len(lits))
	for i, l := range lits {
		want, ok := l.constant(query)
		at := byLocation[int32(l.start)]
		if !ok || len(at) == 0 {
			return nil
		}
		for _, c := range at {
			if c.Isnull || !proto.Equal(c, want) {
				return nil
			}
		}
		t.consts[i] = at
	}
	if !probeAgrees(query, raw.Stmt, lits) {
		return nil
	}
	return t
}

// templatable reports whether a statement of this kind may be templated,
// with literals or without.
func templatable(stmt *pg_query.Node, withLiterals bool) bool {
	switch s := stmt.Node.(type) {
	case *pg_query.Node_SelectStmt:
		return s.SelectStmt.IntoClause == nil
	case *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt:
		return true
	case *pg_query.Node_TransactionStmt, *pg_query.Node_VariableSetStmt, *pg_query.Node_VariableShowStmt:
		return !withLiterals
	}
	return false
}

// probeAgrees parses query with every literal changed and reports whether
// the tree is stmt with the changed constants in the literals' places:
// whether the grammar used the literals for nothing but those constants.
func probeAgrees(query string, stmt *pg_query.Node, lits []literal) bool {
	var b strings.Builder
	probes := make(map[int32]*pg_query.A_Const, len(lits))
	copied := 0
	for _, l := range lits {
		text := probeLiteral(query[l.start:l.end], l.kind)
		c, ok := literal{kind: l.kind, end: len(text)}.constant(text)
		if !ok {
			return false
		}
		probes[int32(l.start)] = c
		b.WriteString(query[copied:l.start])
		b.WriteString(text)
		copied = l.end
	}
	b.WriteString(query[copied:])
	tree, err := parse(b.String())
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	want := proto.Clone(stmt).(*pg_query.Node)
	walkMessages(want.ProtoReflect(), func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg_query.A_Const); ok {
			if p := probes[c.Location]; p != nil {
				c.Val = p.Val
			}
		}
	})
	got := tree.Stmts[0].Stmt
	clearLocations(want)
	clearLocations(got)
	return proto.Equal(want, got)
}

// probeLiteral is a literal of the same kind as text with another value.
func probeLiteral(text string, kind literalKind) string {
	switch kind {
	case literalString:
		return text[:len(text)-1] + "p'"
	case literalInteger:
		v, _ := strconv.ParseInt(text, 10, 32)
		if v < math.MaxInt32 {
			return strconv.FormatInt(v+1, 10)
		}
		return strconv.FormatInt(v-1, 10)
	}
	return text + "1"
}

// clearLocations zeroes every location field of the tree n.
func clearLocations(n *pg_query.Node) {
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if fd := m.Descriptor().Fields().ByName("location"); fd != nil {
			m.Clear(fd)
		}
	})
}

// walkMessages calls fn for m and every message below it, parents first,
// fields in the order of their numbers. The field of a oneof that is set
// is asked of the oneof once: a pg_query Node is a oneof of some 250
// message fields, and asking each whether it is set made the walk of a
// tree cost 250 reflective calls a node.
func walkMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	fields := m.Descriptor().Fields()
	if oneofs := m.Descriptor().Oneofs(); oneofs.Len() == 1 && oneofs.Get(0).Fields().Len() == fields.Len() {
		// A Node: only its one field that is set.
		if fd := m.WhichOneof(oneofs.Get(0)); fd != nil && fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			walkMessages(m.Get(fd).Message(), fn)
			return
		}
	}
	var oneof protoreflect.OneofDescriptor
	var set protoreflect.FieldDescriptor // oneof's field that is set
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.IsMap() {
			continue
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od != oneof {
				oneof, set = od, m.WhichOneof(od)
			}
			if fd != set {
				continue
			}
		} else if !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				walkMessages(l.Get(j).Message(), fn)
			}
			continue
		}
		walkMessages(m.Get(fd).Message(), fn)
	}
}

// normalized is Normalize of the template's statement, computed once: all
// queries of a shape share it.
func (t *template) normalized() (string, int64, error) {
	t.normOnce.Do(func() {
		t.normText, t.normID, t.normErr = Normalize(strings.TrimSpace(t.sample[t.start : len(t.sample)-t.tail]))
	})
	return t.normText, t.normID, t.normErr
}
