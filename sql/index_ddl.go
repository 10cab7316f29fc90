package sql

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// CREATE INDEX: the access methods, operator classes and WITH options
// users type for pgvector (hnsw, ivfflat) and pg_deeplake
// (deeplake_index), validated as those extensions validate them and
// recorded in catalog.IndexDef with their effective values.
//
// Dimensions: pgvector requires a vector(n) column and refuses n > 2000;
// cairn indexes vector(n) up to the type's own limit (16000) and also
// real[] columns, which have no declared dimension: such an index takes
// its dimension from the rows, and requires every non-NULL vector it
// holds to have that one dimension (checked when the index is built).

func (b *Binder) bindCreateIndex(s *pg_query.IndexStmt) (Statement, error) {
	def, err := b.rangeVarTable(s.Relation)
	if err != nil {
		return nil, err
	}
	b.needOwner(def)
	method := strings.ToLower(s.AccessMethod)
	switch method {
	case "", "btree":
		method = "btree"
	case "deeplake_index", "hnsw", "ivfflat", "hash", "gin", "gist", "brin":
	default:
		return nil, pgerr.New(pgerrcode.UndefinedObject, "access method \"%s\" does not exist", s.AccessMethod)
	}
	if s.Unique && method != "btree" {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "access method \"%s\" does not support unique indexes", method)
	}
	vectorMethod := method == "hnsw" || method == "ivfflat" || method == "deeplake_index"
	if vectorMethod && len(s.IndexParams) > 1 {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "access method \"%s\" does not support multicolumn indexes", method)
	}
	idx := &catalog.IndexDef{Schema: def.Schema, Name: s.Idxname, Table: def.ID, Method: method, Unique: s.Unique, Options: map[string]string{}}
	// Several keys, an expression among them: each key is kept in Keys.
	exprKeys := (method == "gin" || method == "btree") && len(s.IndexParams) > 1 &&
		slices.ContainsFunc(s.IndexParams, func(p *pg_query.Node) bool { return p.GetIndexElem().Expr != nil })
	var names []string
	var colType types.T
	hybrid := false
	for i, p := range s.IndexParams {
		ie := p.GetIndexElem()
		if name, ok := bareColumn(ie.Expr); ok {
			// ((a)) is the column a, as PostgreSQL makes an index
			// expression that is a plain column reference a key column.
			ie.Name, ie.Expr = name, nil
		}
		if len(ie.Collation) > 0 {
			if err := checkCollation(ie.Collation, -1); err != nil {
				return nil, err
			}
		}
		if ie.Expr != nil && (method == "gin" || method == "btree") {
			if err := b.expressionIndexKey(def, idx, ie, exprKeys); err != nil {
				return nil, err
			}
			names = append(names, exprIndexName(ie.Expr))
		} else if exprKeys {
			// A column key of an index with expression keys.
			pos, col := def.Column(ie.Name)
			if col == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			if len(ie.Opclass) > 0 {
				return nil, pgerr.NotSupported("an operator class in an index with expression keys")
			}
			if col.Type.Family == types.JSON {
				return nil, pgerr.New(pgerrcode.UndefinedObject, "data type json has no default operator class for access method \"%s\"", method).
					WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
			}
			id := def.Columns[pos].ID
			idx.Keys = append(idx.Keys, catalog.IndexKey{Column: id})
			if !slices.Contains(idx.Columns, id) {
				idx.Columns = append(idx.Columns, id)
			}
			names = append(names, ie.Name)
		} else if ie.Expr != nil {
			cols, err := hybridIndexColumns(def, method, ie.Expr)
			if err != nil {
				return nil, err
			}
			hybrid = true
			for _, c := range cols {
				idx.Columns = append(idx.Columns, c.ID)
				names = append(names, c.Name)
			}
		} else {
			pos, col := def.Column(ie.Name)
			if col == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			if col.Type.Family == types.JSON && !vectorMethod {
				// json has no operator class at all (jsonb has).
				return nil, pgerr.New(pgerrcode.UndefinedObject, "data type json has no default operator class for access method \"%s\"", method).
					WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
			}
			idx.Columns = append(idx.Columns, def.Columns[pos].ID)
			names = append(names, ie.Name)
			colType = col.Type
		}
		desc := ie.Ordering == pg_query.SortByDir_SORTBY_DESC
		if desc {
			if idx.Desc == nil {
				idx.Desc = make([]bool, len(s.IndexParams))
			}
			idx.Desc[i] = true
		}
		if ie.NullsOrdering == pg_query.SortByNulls_SORTBY_NULLS_FIRST && !desc ||
			ie.NullsOrdering == pg_query.SortByNulls_SORTBY_NULLS_LAST && desc {
			if idx.NullsFlipped == nil {
				idx.NullsFlipped = make([]bool, len(s.IndexParams))
			}
			idx.NullsFlipped[i] = true
		}
		if idx.Expr != "" || exprKeys {
			continue
		}
		if vectorMethod {
			opclass := strings.ToLower(nameOf(ie.Opclass))
			if idx.OpClass, err = vectorOpClass(method, opclass, colType, hybrid); err != nil {
				return nil, err
			}
		} else if err := keyOpClass(idx, strings.ToLower(nameOf(ie.Opclass)), colType, len(s.IndexParams)); err != nil {
			return nil, err
		}
	}
	if idx.Name == "" {
		// "_idx" for unique indexes too: PostgreSQL's "_key" is a
		// constraint's (ChooseIndexName).
		idx.Name = b.freeRelationName(def.Schema, def.Name+"_"+strings.Join(names, "_")+"_idx")
	}
	if err := indexOptions(idx, s.Options, colType, hybrid); err != nil {
		return nil, err
	}
	if s.WhereClause != nil {
		if vectorMethod {
			return nil, pgerr.NotSupported("partial %s indexes", method)
		}
		if err := b.indexPredicate(def, idx, s.WhereClause); err != nil {
			return nil, err
		}
	}
	idx.NullsNotDistinct = s.NullsNotDistinct
	if idx.NullsNotDistinct && idx.ComputedKey() {
		// Storage computes such a key as NULL for the rows outside the
		// predicate so that they conflict with none.
		return nil, pgerr.NotSupported("NULLS NOT DISTINCT on a unique index on expressions or with a WHERE predicate")
	}
	ci := &CreateIndex{Def: idx, IfNotExists: s.IfNotExists}
	if s.Concurrent {
		ci.NoTxBlock = "CREATE INDEX CONCURRENTLY"
	}
	return ci, nil
}

// bareColumn returns the name of the column an index expression is when
// it is nothing but an unqualified column reference.
func bareColumn(n *pg_query.Node) (string, bool) {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
		return "", false
	}
	return ref.Fields[0].GetString_().GetSval(), true
}

// expressionIndexKey checks the key of a gin or btree index on an
// expression (mem0's USING gin (to_tsvector('simple', payload->>'text')),
// LlamaIndex's USING btree ((metadata_ ->> 'ref_doc_id')), a unique
// lower(email)) as PostgreSQL does (it binds over the table's columns,
// calls only immutable functions, and its type has an operator class of
// the method) and records it in idx: its text in Expr and the columns it
// reads in Columns; or, one of several keys (inKeys), appends it to
// Keys. A non-unique such index is kept in the catalog only (see
// catalog.IndexDef.Expr); storage enforces a unique one on its computed
// key (catalog.IndexDef.ComputedKey). Operator classes on
// expressions are refused.
func (b *Binder) expressionIndexKey(def *catalog.TableDef, idx *catalog.IndexDef, ie *pg_query.IndexElem, inKeys bool) error {
	if opclass := strings.ToLower(nameOf(ie.Opclass)); opclass != "" {
		return pgerr.NotSupported("an operator class on an index expression")
	}
	saved := b.clause
	b.clause = "index expressions"
	e, err := b.bindExpr(&scope{cols: tableCols(def, def.Name)}, ie.Expr)
	b.clause = saved
	if err != nil {
		return err
	}
	if err := indexExprColumns(def, e, "index expression", &idx.Columns); err != nil {
		return err
	}
	t := e.Type()
	opclass := t.Family == types.TSVector || t.Family == types.JSONB || t.IsArray()
	if idx.Method == "btree" {
		opclass = t.Family != types.JSON && t.Family != types.Record
	}
	if !opclass {
		t.Mod = -1
		return pgerr.New(pgerrcode.UndefinedObject, "data type %s has no default operator class for access method \"%s\"", t, idx.Method).
			WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
	}
	if len(idx.Columns) == 0 {
		return pgerr.NotSupported("an index expression that reads no column")
	}
	text, err := DeparseExpr(ie.Expr)
	if err != nil {
		return err
	}
	if ie.Expr.GetFuncCall() == nil {
		text = "(" + text + ")" // as pg_get_indexdef prints a key that is no function call
	}
	t.Mod = -1
	if inKeys {
		idx.Keys = append(idx.Keys, catalog.IndexKey{Expr: text, Type: &t})
		return nil
	}
	idx.Expr = text
	idx.ExprType = &t
	return nil
}

// indexExprColumns checks an index key or predicate e as PostgreSQL
// does — it calls only immutable functions (42P17) and holds no subquery
// (0A000), each error naming what (an "index expression", an "index
// predicate") — and adds the IDs of the columns of def it reads to cols.
func indexExprColumns(def *catalog.TableDef, e Expr, what string, cols *[]int) error {
	var bad error
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *ColumnRef:
			if x.Index >= 0 && x.Index < len(def.Columns) && !slices.Contains(*cols, def.Columns[x.Index].ID) {
				*cols = append(*cols, def.Columns[x.Index].ID)
			}
		case *Call:
			if x.Overload != nil && x.Overload.Volatility != functions.Immutable && bad == nil {
				bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
			}
		case *Cast:
			if !castImmutable(x.Arg.Type(), x.To) && !isLiteral(x.Arg) && bad == nil {
				bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
			}
		case *NextVal:
			bad = pgerr.New(pgerrcode.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
		case *Subquery:
			bad = pgerr.New(pgerrcode.FeatureNotSupported, "cannot use subquery in %s", what)
		}
	})
	return bad
}

// indexPredicate checks the predicate of a partial index (CREATE INDEX
// ... WHERE pred) as PostgreSQL does — a boolean over the table's
// columns, with no aggregate, subquery or function that is not
// immutable — and records it in idx: Pred, the text it is bound from
// again, PredDef, the text pg_get_indexdef prints, and PredColumns.
func (b *Binder) indexPredicate(def *catalog.TableDef, idx *catalog.IndexDef, n *pg_query.Node) error {
	saved := b.clause
	b.clause = "index predicates"
	e, err := b.bindExpr(&scope{cols: tableCols(def, def.Name)}, n)
	b.clause = saved
	if err != nil {
		return err
	}
	if t := e.Type(); t.Family != types.Bool && t.Family != types.Unknown && t.Family != types.Null {
		return pgerr.New(pgerrcode.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", t)
	}
	if e, err = b.coerce(e, types.BoolT, castImplicit); err != nil {
		return err
	}
	if err := indexExprColumns(def, e, "index predicate", &idx.PredColumns); err != nil {
		return err
	}
	if idx.Pred, err = DeparseExpr(n); err != nil {
		return err
	}
	idx.PredDef = e.String()
	if !printsWhole(e) {
		idx.PredDef = "(" + idx.Pred + ")"
	}
	return nil
}

// printsWhole reports whether e's String (EXPLAIN's text, which is
// PostgreSQL's deparse for the common expressions) is the whole
// expression as SQL: it shortens long constants and does not quote
// names, so an expression with either is printed from its source text
// instead (which pg_dump then reads back unchanged).
func printsWhole(e Expr) bool {
	whole := true
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *ColumnRef:
			whole = whole && ident.Quote(x.Name) == x.Name
		case *Const:
			whole = whole && (x.Value == nil || len(types.FormatText(x.Value, x.T)) <= 40)
		}
	})
	return whole
}

// exprIndexName is the part of a default index name PostgreSQL takes from
// an index expression: the name of the function it calls, else "expr".
func exprIndexName(n *pg_query.Node) string {
	if fc := n.GetFuncCall(); fc != nil {
		return strings.ToLower(nameOf(fc.Funcname))
	}
	return "expr"
}

// hybridIndexColumns reads pg_deeplake's hybrid index key,
// (embedding, text)::deeplake_hybrid_record: the two columns it names.
// Other expressions are not supported as index keys.
func hybridIndexColumns(def *catalog.TableDef, method string, expr *pg_query.Node) ([]*catalog.ColumnDef, error) {
	tc := expr.GetTypeCast()
	if tc == nil || method != "deeplake_index" {
		// gin and btree keys on expressions are read by
		// expressionIndexKey; these are the others.
		return nil, pgerr.NotSupported("%s indexes on expressions", method)
	}
	if hybrid, weighted := isHybridTypeName(tc.TypeName); !hybrid || weighted {
		return nil, pgerr.NotSupported("indexes on expressions")
	}
	row := tc.Arg.GetRowExpr()
	if row == nil || len(row.Args) != 2 {
		return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast to deeplake_hybrid_record: a row (embedding, text) is expected")
	}
	var cols []*catalog.ColumnDef
	for i, a := range row.Args {
		ref := a.GetColumnRef()
		if ref == nil || len(ref.Fields) != 1 || ref.Fields[0].GetString_() == nil {
			return nil, pgerr.NotSupported("a deeplake_hybrid_record index on expressions other than two columns")
		}
		name := ref.Fields[0].GetString_().Sval
		_, col := def.Column(name)
		if col == nil {
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", name)
		}
		if i == 0 && !col.Type.IsFloatVector() {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "the embedding of a deeplake_hybrid_record must be real[], not %s", col.Type)
		}
		if i == 1 && !isTextType(col.Type) {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "the text of a deeplake_hybrid_record must be text, not %s", col.Type)
		}
		cols = append(cols, col)
	}
	return cols, nil
}

func isTextType(t types.T) bool {
	return t.Family == types.Text || t.Family == types.Varchar || t.Family == types.Char
}

// isEmbedding reports whether t is a column an hnsw or ivfflat index
// accepts: vector(n), or a one-dimensional real[] (a cairn extension).
func isEmbedding(t types.T) bool {
	return t.Family == types.Vector || t.Family == types.ArrayFamily && t.Elem.Family == types.Float4 && t.Dims <= 1
}

// deeplakeOpClasses are pg_deeplake's operator classes, each with the
// column types it accepts.
var deeplakeOpClasses = map[string]func(types.T) bool{
	"deeplake_vector_ops": types.T.IsFloatVector,
	"deeplake_text_ops":   isTextType,
	"deeplake_uuid_ops":   func(t types.T) bool { return t.Family == types.UUID },
	"deeplake_jsonb_ops":  func(t types.T) bool { return t.Family == types.JSONB },
}

// vectorOpClass resolves the operator class of an hnsw, ivfflat or
// deeplake_index key as PostgreSQL's ResolveOpClass does, with
// pgvector's and pg_deeplake's operator classes: the class named, or the
// default for the column's type when none is (see
// catalog.DefaultOpClass). It returns the operator class to record,
// which deeplake_index does not (its class follows from the column).
func vectorOpClass(method, opclass string, t types.T, hybrid bool) (string, error) {
	switch {
	case strings.HasPrefix(opclass, "halfvec_"), strings.HasPrefix(opclass, "sparsevec_"), strings.HasPrefix(opclass, "bit_"):
		return "", pgerr.NotSupported("operator class \"%s\" (cairn has no %s type)", opclass, opclass[:strings.IndexByte(opclass, '_')])
	case method == "deeplake_index":
		ok := false
		switch accepts := deeplakeOpClasses[opclass]; {
		case opclass == "":
			return "", nil
		case opclass == "deeplake_hybrid_ops":
			ok = hybrid
		case accepts == nil:
			return "", noOpClass(opclass, method)
		default:
			ok = !hybrid && accepts(t)
		}
		if !ok {
			return "", opClassType(opclass, t, hybrid)
		}
		return "", nil
	case hybrid:
		return "", pgerr.NotSupported("indexes on expressions")
	}
	switch opclass {
	case "":
		if !isEmbedding(t) {
			return "", pgerr.New(pgerrcode.UndefinedObject, "data type %s has no default operator class for access method \"%s\"", t, method).
				WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
		}
		return catalog.DefaultOpClass(method, t), nil
	case catalog.OpClassL2, catalog.OpClassIP, catalog.OpClassCosine:
	case catalog.OpClassL1:
		if method != "hnsw" {
			return "", noOpClass(opclass, method)
		}
	default:
		return "", noOpClass(opclass, method)
	}
	if !isEmbedding(t) {
		return "", opClassType(opclass, t, false)
	}
	if method == "ivfflat" && opclass != catalog.OpClassL2 && t.Family == types.Vector && t.Mod == 1 {
		// ivfflat's spherical k-means (ivfbuild.c).
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "dimensions must be greater than one for this opclass")
	}
	return opclass, nil
}

func noOpClass(opclass, method string) error {
	return pgerr.New(pgerrcode.UndefinedObject, "operator class \"%s\" does not exist for access method \"%s\"", opclass, method)
}

func opClassType(opclass string, t types.T, hybrid bool) error {
	name := t.String()
	if hybrid {
		name = "deeplake_hybrid_record"
	}
	return pgerr.New(pgerrcode.DatatypeMismatch, "operator class \"%s\" does not accept data type %s", opclass, name)
}

// keyOpClass resolves the operator class CREATE INDEX names for a column
// key of type t of a btree, hash, gin, gist or brin index, as PostgreSQL's
// ResolveOpClass: a trigram class is recorded for the trigram index it
// asks for (trigramOpClass); another class must exist for the method
// (42704) and take the type (42804), and is recorded when it is not the
// default (text_pattern_ops, jsonb_path_ops; gist's and brin's unchecked),
// which pg_index and
// pg_get_indexdef then show. cairn keeps one class per index, so a
// multicolumn index naming a class that is not the default is 0A000.
func keyOpClass(idx *catalog.IndexDef, opclass string, t types.T, keys int) error {
	if opclass == "" || opclass == catalog.OpClassGinTrgm || opclass == catalog.OpClassGistTrgm {
		return trigramOpClass(idx, opclass, t, keys)
	}
	found, accepts, isDefault := syscat.OpClass(idx.Method, opclass, t)
	switch {
	case !found && (idx.Method == "gist" || idx.Method == "brin"):
		// cairn lists no gist or brin classes but pg_trgm's: the name
		// is recorded unchecked (such an index is catalog only).
	case !found:
		return pgerr.New(pgerrcode.UndefinedObject, "operator class \"%s\" does not exist for access method \"%s\"", opclass, idx.Method)
	case !accepts:
		t.Mod = -1
		return opClassType(opclass, t, false)
	case isDefault:
		return nil
	case keys > 1:
		return pgerr.NotSupported("operator class %s on a key of a multicolumn index", opclass)
	}
	idx.OpClass = opclass
	return nil
}

// reloption kinds: how a WITH option's value is read.
const (
	relInt = iota
	relBool
	relEnum
)

// reloption is a WITH option of an access method (PostgreSQL's
// reloptions.c tables, pgvector's hnsw.c and ivfflat.c).
type reloption struct {
	kind     int
	min, max int      // relInt
	values   []string // relEnum
}

// reloptions are the WITH options of each access method. deeplake_index's
// index_type is checked against the column's type in deeplakeIndexType.
var reloptions = map[string]map[string]reloption{
	"btree":          {"fillfactor": {kind: relInt, min: 10, max: 100}, "deduplicate_items": {kind: relBool}},
	"hash":           {"fillfactor": {kind: relInt, min: 10, max: 100}},
	"gist":           {"fillfactor": {kind: relInt, min: 10, max: 100}, "buffering": {kind: relEnum, values: []string{"on", "off", "auto"}}},
	"gin":            {"fastupdate": {kind: relBool}, "gin_pending_list_limit": {kind: relInt, min: 64, max: math.MaxInt32}},
	"brin":           {"pages_per_range": {kind: relInt, min: 1, max: 131072}, "autosummarize": {kind: relBool}},
	"hnsw":           {},
	"ivfflat":        {},
	"deeplake_index": {"index_type": {kind: relEnum}},
}

func init() {
	for method, params := range catalog.VectorIndexParams {
		for _, p := range params {
			reloptions[method][p.Name] = reloption{kind: relInt, min: p.Min, max: p.Max}
		}
	}
}

// indexOptions validates the WITH options of idx as PostgreSQL's
// parseRelOptions does, records them as written in idx.With and
// normalised in idx.Options, and adds the defaults of hnsw, ivfflat and
// deeplake_index for those left out.
func indexOptions(idx *catalog.IndexDef, opts []*pg_query.Node, t types.T, hybrid bool) error {
	known := reloptions[idx.Method]
	for _, o := range opts {
		d := o.GetDefElem()
		if d.Defnamespace != "" {
			return pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized parameter namespace \"%s\"", d.Defnamespace)
		}
		name := d.Defname
		opt, ok := known[name]
		if !ok {
			return pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized parameter \"%s\"", name)
		}
		if _, dup := idx.Options[name]; dup {
			return pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"%s\" specified more than once", name)
		}
		raw := "true" // PostgreSQL's value for an option written without one
		if d.Arg != nil {
			raw = defString(d.Arg)
		}
		idx.With = append(idx.With, name+"="+raw)
		var v string
		var err error
		switch opt.kind {
		case relInt:
			v, err = intReloption(name, raw, opt.min, opt.max)
		case relBool:
			v, err = boolReloption(name, raw)
		default:
			if idx.Method == "deeplake_index" {
				v, err = deeplakeIndexType(raw, t, hybrid)
			} else {
				v, err = enumReloption(name, raw, opt.values)
			}
		}
		if err != nil {
			return err
		}
		idx.Options[name] = v
	}
	for _, p := range catalog.VectorIndexParams[idx.Method] {
		if _, ok := idx.Options[p.Name]; !ok {
			idx.Options[p.Name] = strconv.Itoa(p.Default)
		}
	}
	if idx.Method == "hnsw" && idx.IntOption("ef_construction") < 2*idx.IntOption("m") {
		// pgvector checks this when it builds the index (hnswbuild.c).
		return pgerr.New(pgerrcode.InvalidParameterValue, "ef_construction must be greater than or equal to 2 * m")
	}
	if _, ok := idx.Options["index_type"]; !ok && idx.Method == "deeplake_index" {
		allowed, err := deeplakeIndexTypes(t, hybrid)
		if err != nil {
			return err
		}
		idx.Options["index_type"] = allowed[0]
	}
	return nil
}

// intReloption reads an integer option as parse_int does (a number with
// a fraction is rounded to the nearest integer).
func intReloption(name, raw string, lo, hi int) (string, error) {
	text := strings.TrimSpace(raw)
	n, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		f, ferr := strconv.ParseFloat(text, 64)
		if ferr != nil || math.IsNaN(f) || math.Abs(f) > math.MaxInt32 {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for integer option \"%s\": %s", name, raw)
		}
		n = int64(math.RoundToEven(f))
	}
	if n < int64(lo) || n > int64(hi) {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "value %s out of bounds for option \"%s\"", raw, name).
			WithDetail("Valid values are between \"%d\" and \"%d\".", lo, hi)
	}
	return strconv.FormatInt(n, 10), nil
}

// boolReloption reads a boolean option as parse_bool does.
func boolReloption(name, raw string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
		return "true", nil
	case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
		return "false", nil
	}
	return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for boolean option \"%s\": %s", name, raw)
}

// enumReloption reads an enum option (case-insensitive).
func enumReloption(name, raw string, values []string) (string, error) {
	v := strings.ToLower(raw)
	if slices.Contains(values, v) {
		return v, nil
	}
	return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for enum option \"%s\": %s", name, raw).
		WithDetail("Valid values are \"%s\".", strings.Join(values, "\", \""))
}

// deeplakeIndexTypes are the index_type values pg_deeplake accepts for
// a column of type t (case-insensitive), the default first, from its
// deeplake_index_type.hpp:
//
//	text, varchar, char    bm25, exact_text, inverted (or inverted_index)
//	real[], vector         clustered, clustered_quantized, pooled_quantized
//	real[][]               pooled_quantized
//	numbers, jsonb, uuid   inverted
//
// The hybrid record's index is of its own kind, "hybrid", which WITH
// cannot name.
func deeplakeIndexTypes(t types.T, hybrid bool) ([]string, error) {
	switch {
	case hybrid:
		return []string{"hybrid"}, nil
	case isTextType(t):
		return []string{"bm25", "exact_text", "inverted"}, nil
	case t.Family == types.ArrayFamily && t.Elem.Family == types.Float4 && t.Dims == 2:
		return []string{"pooled_quantized"}, nil
	case t.IsFloatVector():
		return []string{"clustered", "clustered_quantized", "pooled_quantized"}, nil
	case t.IsNumeric() || t.Family == types.JSONB || t.Family == types.UUID:
		return []string{"inverted"}, nil
	}
	return nil, pgerr.NotSupported("deeplake_index on a column of type %s", t)
}

// deeplakeIndexType checks index_type = raw against the column's type and
// returns it normalised.
func deeplakeIndexType(raw string, t types.T, hybrid bool) (string, error) {
	allowed, err := deeplakeIndexTypes(t, hybrid)
	if err != nil {
		return "", err
	}
	if hybrid {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "index_type cannot be given for a deeplake_hybrid_record index")
	}
	v := strings.ToLower(raw)
	if v == "inverted_index" {
		v = "inverted"
	}
	if !slices.Contains(allowed, v) {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid index_type \"%s\" for a column of type %s", raw, t).
			WithDetail("Valid values are \"%s\".", strings.Join(allowed, "\", \""))
	}
	return v, nil
}
