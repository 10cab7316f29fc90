package storage

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// constraint is a uniqueness rule storage enforces: a primary key, a UNIQUE
// constraint or a unique index.
type constraint struct {
	name string
	// cols are the IDs of the key's columns, or of the columns a computed
	// key reads.
	cols []int
	// key computes the key of a unique index on expressions or a partial
	// one (catalog.IndexDef.ComputedKey) from cols; nil for a key of the
	// columns' values.
	key *computedKey
	// nullsEqual is NULLS NOT DISTINCT: a key with a NULL is a key like
	// any other (rowKey encodes the NULL) instead of conflicting with none.
	nullsEqual bool
}

// computedKey is the key of a unique index on expressions or a partial
// one, computed from a row by ComputeIndexKey.
type computedKey struct {
	cat *catalog.Catalog
	def *catalog.TableDef
	ix  *catalog.IndexDef
	// sig is the rule's signature: the index's name, key and predicate.
	sig string
	// types are the key's SQL types; names is the key as its stored
	// text names it ("lower(email)", "email"), which an error's DETAIL
	// prints when IndexKeyNames is unset.
	types []types.T
	names string
}

// ComputeIndexKey computes the key of index ix of table def in catalog
// cat (a unique index on expressions, on keys mixing columns and
// expressions, or a partial one) for the rows of a batch whose
// columns cols have the IDs colIDs (every column ix reads is among
// them): one array per key column, in key order, NULL in the rows ix's
// predicate does not hold for, so that those conflict with nothing.
// Storage evaluates no SQL; package exec sets this when it is loaded. A
// table with such an index can be written only when it is set.
var ComputeIndexKey func(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef, colIDs []int, cols []arrow.Array) ([]arrow.Array, error)

// IndexKeyNames names the keys of index ix of table def in catalog cat
// (one ComputeIndexKey computes) as a unique violation's DETAIL names
// them: "lower(email), tenant_id", each expression printed as
// PostgreSQL's ruleutils prints it. Package exec sets it; unset, the
// keys are named by their stored text.
var IndexKeyNames func(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef) string

// keyNames names the key's columns for an error's DETAIL.
func (k *computedKey) keyNames() string {
	if IndexKeyNames == nil {
		return k.names
	}
	return IndexKeyNames(k.cat, k.def, k.ix)
}

// compute computes the key of the rows of a batch laid out by colIDs.
func (k *computedKey) compute(colIDs []int, cols []arrow.Array) ([]arrow.Array, error) {
	if ComputeIndexKey == nil {
		return nil, pgerr.NotSupported("unique index %q on expressions or a predicate without an expression evaluator", k.ix.Name)
	}
	return ComputeIndexKey(k.cat, k.def, k.ix, colIDs, cols)
}

// sig identifies the rule by its columns: two rules over the same columns
// share one hash index, unless one is NULLS NOT DISTINCT, whose index
// holds the keys with NULLs too ("n:" before the columns). A computed key
// is identified by its index.
func (c constraint) sig() string {
	if c.key != nil {
		return c.key.sig
	}
	if c.nullsEqual {
		return string(appendSig([]byte("n:"), c.cols))
	}
	return string(appendSig(nil, c.cols))
}

// rowKey encodes row i's key of the rule over the arrays at pos (of
// types ts); ok is false when the key has a NULL and the rule is not
// NULLS NOT DISTINCT (the key then conflicts with none).
func (c constraint) rowKey(buf []byte, ts []types.T, cols []arrow.Array, pos []int, i int) ([]byte, bool) {
	return rowKey(buf, ts, cols, pos, i, c.nullsEqual)
}

// byValue reports whether the rule's keys may be handled as integer
// values (intKeyValues) when its key is one integer column: not when
// NULLs count as equal, as a NULL has no integer value.
func (c constraint) byValue() bool { return !c.nullsEqual }

// computedConstraint is the rule of a unique index on expressions or a
// partial one of t in c; ok is false when t no longer has a column it reads.
func computedConstraint(c *catalog.Catalog, t *catalog.TableDef, ix *catalog.IndexDef) (constraint, bool) {
	k := &computedKey{cat: c, def: t, ix: ix}
	cols := slices.Clone(ix.Columns)
	for _, id := range ix.Columns {
		if _, c := t.ColumnByID(id); c == nil {
			return constraint{}, false
		}
	}
	var names []string
	switch {
	case ix.Expr != "":
		if ix.ExprType == nil {
			return constraint{}, false
		}
		names, k.types = []string{ix.Expr}, []types.T{*ix.ExprType}
	case len(ix.Keys) > 0:
		for _, key := range ix.Keys {
			if key.Expr != "" {
				if key.Type == nil {
					return constraint{}, false
				}
				names, k.types = append(names, key.Expr), append(k.types, *key.Type)
				continue
			}
			_, c := t.ColumnByID(key.Column)
			if c == nil {
				return constraint{}, false
			}
			names, k.types = append(names, c.Name), append(k.types, c.Type)
		}
	default:
		for _, id := range ix.Columns {
			_, c := t.ColumnByID(id)
			names, k.types = append(names, c.Name), append(k.types, c.Type)
		}
	}
	k.names = strings.Join(names, ", ")
	for _, id := range ix.PredColumns {
		if _, c := t.ColumnByID(id); c == nil {
			return constraint{}, false
		}
		if !slices.Contains(cols, id) {
			cols = append(cols, id)
		}
	}
	if len(k.types) == 0 {
		return constraint{}, false
	}
	sig := []byte("index " + ix.Schema + "." + ix.Name + "\x00" + ix.Expr + "\x00" + ix.Pred + "\x00")
	for _, key := range ix.Keys {
		sig = append(strconv.AppendInt(sig, int64(key.Column), 10), ":"+key.Expr+"\x00"...)
	}
	k.sig = string(appendSig(sig, cols))
	return constraint{name: ix.Name, cols: cols, key: k}, true
}

// keyColumns returns the arrays con's key is read from in a batch whose
// columns cols have the IDs colIDs, and the key's positions in them: the
// batch's own columns, or the key computed from them (constraint.key).
// ok is false if the batch lacks a column the key needs.
func keyColumns(con constraint, colIDs []int, cols []arrow.Array) (kc []arrow.Array, pos []int, ok bool, err error) {
	pos, ok = keyCols(con, colIDs)
	if !ok || con.key == nil {
		return cols, pos, ok, nil
	}
	if kc, err = con.key.compute(colIDs, cols); err != nil {
		return nil, nil, false, err
	}
	pos = make([]int, len(kc))
	for i := range pos {
		pos[i] = i
	}
	return kc, pos, true, nil
}

// appendSig appends the signature of a rule over the columns cols.
func appendSig(b []byte, cols []int) []byte {
	for i, id := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return b
}

// constraintsOf lists the unique rules of t in c (nil: no indexes), skipping any that name a
// column t no longer has.
func constraintsOf(c *catalog.Catalog, t *catalog.TableDef) []constraint {
	var out []constraint
	seen := map[string]bool{}
	add := func(name string, cols []int, nullsEqual bool) {
		if len(cols) == 0 {
			return
		}
		for _, id := range cols {
			if i, _ := t.ColumnByID(id); i < 0 {
				return
			}
		}
		con := constraint{name: name, cols: slices.Clone(cols), nullsEqual: nullsEqual}
		if seen[con.sig()] {
			return
		}
		seen[con.sig()] = true
		out = append(out, con)
	}
	add(t.PrimaryKeyConstraint(), t.PrimaryKey, false)
	for _, u := range t.Uniques {
		add(u.Name, u.Columns, u.NullsNotDistinct)
	}
	if c != nil {
		for _, ix := range c.IndexesOf(t.ID) {
			if ix.PlainUnique() {
				add(ix.Name, ix.Columns, ix.NullsNotDistinct)
			} else if ix.ComputedKey() {
				if con, ok := computedConstraint(c, t, ix); ok && !seen[con.sig()] {
					seen[con.sig()] = true
					out = append(out, con)
				}
			}
		}
	}
	return out
}

// marshalCatalog is the JSON form of c.
func marshalCatalog(c *catalog.Catalog) ([]byte, error) { return json.Marshal(c) }

func unmarshalCatalog(b []byte) (*catalog.Catalog, error) {
	c := &catalog.Catalog{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, err
	}
	c.Normalize()
	return c, nil
}

func tableDefsEqual(a, b *catalog.TableDef) bool { return reflect.DeepEqual(a, b) }
