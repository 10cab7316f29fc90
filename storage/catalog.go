package storage

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"

	"github.com/cairn-db/cairn/sql/catalog"
)

// constraint is a uniqueness rule storage enforces: a primary key, a UNIQUE
// constraint or a unique index.
type constraint struct {
	name string
	cols []int // column IDs
}

// sig identifies the rule by its columns: two rules over the same columns
// share one hash index.
func (c constraint) sig() string { return string(appendSig(nil, c.cols)) }

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
	add := func(name string, cols []int) {
		if len(cols) == 0 {
			return
		}
		for _, id := range cols {
			if i, _ := t.ColumnByID(id); i < 0 {
				return
			}
		}
		con := constraint{name: name, cols: slices.Clone(cols)}
		if seen[con.sig()] {
			return
		}
		seen[con.sig()] = true
		out = append(out, con)
	}
	add(t.PrimaryKeyConstraint(), t.PrimaryKey)
	for _, u := range t.Uniques {
		add(u.Name, u.Columns)
	}
	if c != nil {
		for _, ix := range c.IndexesOf(t.ID) {
			if ix.Unique {
				add(ix.Name, ix.Columns)
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
