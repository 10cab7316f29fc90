package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

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
func (c constraint) sig() string {
	var b strings.Builder
	for i, id := range c.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
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
