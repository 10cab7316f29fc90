package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// PublicSchema is the schema that exists in every new database.
const PublicSchema = "public"

// RowIDColumn is the name of the hidden row ID column: Scan appends it when
// asked to, and every segment file stores it. No table column may use it.
const RowIDColumn = "__rowid"

// newCatalog returns an empty catalog holding only the public schema.
func newCatalog() *Catalog {
	c := &Catalog{NextID: 1}
	c.normalize()
	c.Schemas[PublicSchema] = &SchemaDef{Name: PublicSchema}
	return c
}

// normalize replaces nil maps (from an old or hand-written catalog.json)
// with empty ones.
func (c *Catalog) normalize() {
	if c.Schemas == nil {
		c.Schemas = map[string]*SchemaDef{}
	}
	if c.Tables == nil {
		c.Tables = map[uint64]*TableDef{}
	}
	if c.Sequences == nil {
		c.Sequences = map[string]*SequenceDef{}
	}
	if c.Indexes == nil {
		c.Indexes = map[string]*IndexDef{}
	}
	if c.Views == nil {
		c.Views = map[string]*ViewDef{}
	}
	if c.NextID == 0 {
		c.NextID = 1
	}
}

// Clone returns a deep copy of c that shares no memory with it (types.T
// values are shared: they are immutable).
func (c *Catalog) Clone() *Catalog {
	n := &Catalog{
		Schemas:   make(map[string]*SchemaDef, len(c.Schemas)),
		Tables:    make(map[uint64]*TableDef, len(c.Tables)),
		Sequences: make(map[string]*SequenceDef, len(c.Sequences)),
		Indexes:   make(map[string]*IndexDef, len(c.Indexes)),
		Views:     make(map[string]*ViewDef, len(c.Views)),
		NextID:    c.NextID,
	}
	for k, v := range c.Views {
		v2 := *v
		v2.Columns = append([]ColumnDef(nil), v.Columns...)
		v2.SearchPath = append([]string(nil), v.SearchPath...)
		v2.QueryColumns = append([]string(nil), v.QueryColumns...)
		n.Views[k] = &v2
	}
	for k, s := range c.Schemas {
		s2 := *s
		n.Schemas[k] = &s2
	}
	for k, t := range c.Tables {
		n.Tables[k] = t.Clone()
	}
	for k, s := range c.Sequences {
		s2 := *s
		n.Sequences[k] = &s2
	}
	for k, ix := range c.Indexes {
		n.Indexes[k] = ix.Clone()
	}
	return n
}

// Table returns the table named name in schema, or nil if there is none.
func (c *Catalog) Table(schema, name string) *TableDef {
	for _, t := range c.Tables {
		if t.Schema == schema && t.Name == name {
			return t
		}
	}
	return nil
}

// View returns the view schema.name, or nil.
func (c *Catalog) View(schema, name string) *ViewDef { return c.Views[objKey(schema, name)] }

// TableByID returns the table with the given ID, or nil if there is none.
func (c *Catalog) TableByID(id uint64) *TableDef { return c.Tables[id] }

// Sequence returns the sequence named name in schema, or nil.
func (c *Catalog) Sequence(schema, name string) *SequenceDef {
	return c.Sequences[objKey(schema, name)]
}

// Index returns the index named name in schema, or nil.
func (c *Catalog) Index(schema, name string) *IndexDef {
	return c.Indexes[objKey(schema, name)]
}

// TableNames returns the names of the tables in schema, sorted.
func (c *Catalog) TableNames(schema string) []string {
	var names []string
	for _, t := range c.Tables {
		if t.Schema == schema {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	return names
}

// IndexesOf returns the indexes defined on the table with the given ID,
// sorted by name.
func (c *Catalog) IndexesOf(tableID uint64) []*IndexDef {
	var out []*IndexDef
	for _, ix := range c.Indexes {
		if ix.Table == tableID {
			out = append(out, ix)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// relationExists reports whether a table, sequence or index called name
// exists in schema (PostgreSQL keeps them in one namespace).
func (c *Catalog) relationExists(schema, name string) bool {
	return c.Table(schema, name) != nil || c.Sequences[objKey(schema, name)] != nil ||
		c.Indexes[objKey(schema, name)] != nil || c.Views[objKey(schema, name)] != nil
}

func objKey(schema, name string) string { return schema + "." + name }

// Clone returns a deep copy of t.
func (t *TableDef) Clone() *TableDef {
	n := *t
	n.Columns = slices.Clone(t.Columns)
	n.PrimaryKey = slices.Clone(t.PrimaryKey)
	n.Uniques = make([]UniqueDef, len(t.Uniques))
	for i, u := range t.Uniques {
		n.Uniques[i] = UniqueDef{Name: u.Name, Columns: slices.Clone(u.Columns)}
	}
	if t.Uniques == nil {
		n.Uniques = nil
	}
	n.Checks = slices.Clone(t.Checks)
	if t.ForeignKeys != nil {
		n.ForeignKeys = make([]ForeignKeyDef, len(t.ForeignKeys))
		for i, f := range t.ForeignKeys {
			f.Columns = slices.Clone(f.Columns)
			f.RefColumns = slices.Clone(f.RefColumns)
			n.ForeignKeys[i] = f
		}
	}
	return &n
}

// Column returns the position and definition of the column called name, or
// (-1, nil) if the table has none.
func (t *TableDef) Column(name string) (int, *ColumnDef) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i, &t.Columns[i]
		}
	}
	return -1, nil
}

// ColumnByID returns the position and definition of the column with the
// given ID, or (-1, nil).
func (t *TableDef) ColumnByID(id int) (int, *ColumnDef) {
	for i := range t.Columns {
		if t.Columns[i].ID == id {
			return i, &t.Columns[i]
		}
	}
	return -1, nil
}

// PrimaryKeyConstraint is the name of the primary key constraint.
func (t *TableDef) PrimaryKeyConstraint() string {
	if t.PrimaryKeyName != "" {
		return t.PrimaryKeyName
	}
	return t.Name + "_pkey"
}

// Clone returns a deep copy of ix.
func (ix *IndexDef) Clone() *IndexDef {
	n := *ix
	n.Columns = slices.Clone(ix.Columns)
	if ix.Options != nil {
		n.Options = make(map[string]string, len(ix.Options))
		for k, v := range ix.Options {
			n.Options[k] = v
		}
	}
	return &n
}

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

// constraintsOf lists the unique rules of t in c, skipping any that name a
// column t no longer has.
func (c *Catalog) constraintsOf(t *TableDef) []constraint {
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
func marshalCatalog(c *Catalog) ([]byte, error) { return json.Marshal(c) }

func unmarshalCatalog(b []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, err
	}
	c.normalize()
	return c, nil
}

func tableDefsEqual(a, b *TableDef) bool { return reflect.DeepEqual(a, b) }
