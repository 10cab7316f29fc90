package storage

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// CreateFunction adds a function, or replaces the one of its signature
// when replace is set (42723 otherwise); a replacement keeps its result
// type (42P13), as in PostgreSQL.
func (tx *Tx) CreateFunction(def *catalog.FunctionDef, replace bool) error {
	d := def.Clone()
	return tx.apply(func(c *catalog.Catalog) error {
		if c.Schemas[d.Schema] == nil {
			return schemaMissing(d.Schema)
		}
		key := d.Key()
		if old := c.Functions[key]; old != nil {
			if !replace {
				return pgerr.New(pgerrcode.DuplicateFunction, "function \"%s\" already exists with same argument types", d.Name)
			}
			if old.Trigger != d.Trigger || !old.Returns.Equal(d.Returns) {
				return pgerr.New(pgerrcode.InvalidFunctionDefinition, "cannot change return type of existing function").
					WithHint("Use DROP FUNCTION %s first.", functionSignature(old))
			}
			d.Owner, d.Comment = old.Owner, old.Comment
		}
		c.Functions[key] = d.Clone()
		return nil
	})
}

// functionSignature is name(argument types), as errors name a function.
func functionSignature(f *catalog.FunctionDef) string {
	ts := make([]string, len(f.ArgTypes))
	for i, t := range f.ArgTypes {
		ts[i] = t.String()
	}
	return f.Name + "(" + strings.Join(ts, ",") + ")"
}

// DropFunction drops the function of key (42883 if missing); the
// triggers that run it go with it when cascade is set, else they are
// 2BP01.
func (tx *Tx) DropFunction(key string, cascade bool) (dropped []string, err error) {
	err = tx.apply(func(c *catalog.Catalog) error {
		dropped = nil
		f := c.Functions[key]
		if f == nil {
			return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", key)
		}
		var deps []string
		for _, t := range c.Tables {
			for _, tr := range t.Triggers {
				if tr.Function == key {
					deps = append(deps, "trigger "+tr.Name+" on table "+t.Name+" depends on function "+functionSignature(f))
				}
			}
		}
		slices.Sort(deps)
		if len(deps) > 0 && !cascade {
			return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", functionSignature(f)).
				WithDetail("%s", strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		for id, t := range c.Tables {
			if !slices.ContainsFunc(t.Triggers, func(tr catalog.TriggerDef) bool { return tr.Function == key }) {
				continue
			}
			n := t.Clone()
			n.Triggers = slices.DeleteFunc(n.Triggers, func(tr catalog.TriggerDef) bool {
				if tr.Function == key {
					dropped = append(dropped, "trigger "+tr.Name+" on table "+t.Name)
				}
				return tr.Function == key
			})
			c.Tables[id] = n
		}
		slices.Sort(dropped)
		delete(c.Functions, key)
		return nil
	})
	return dropped, err
}

// CreateTrigger adds a trigger to a table, or replaces the one of its
// name when replace is set (42710 otherwise).
func (tx *Tx) CreateTrigger(tableID uint64, def catalog.TriggerDef, replace bool) error {
	def.Events = slices.Clone(def.Events)
	return tx.apply(func(c *catalog.Catalog) error {
		t := c.Tables[tableID]
		if t == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "table %d does not exist", tableID)
		}
		if c.Functions[def.Function] == nil {
			return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", def.Function)
		}
		n := t.Clone()
		i := slices.IndexFunc(n.Triggers, func(tr catalog.TriggerDef) bool { return tr.Name == def.Name })
		switch {
		case i >= 0 && !replace:
			return pgerr.New(pgerrcode.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", def.Name, t.Name)
		case i >= 0:
			n.Triggers[i] = def
		default:
			n.Triggers = append(n.Triggers, def)
		}
		c.Tables[tableID] = n
		return nil
	})
}

// DropTrigger drops a table's trigger (42704 if missing).
func (tx *Tx) DropTrigger(tableID uint64, name string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		t := c.Tables[tableID]
		if t == nil {
			return pgerr.New(pgerrcode.UndefinedTable, "table %d does not exist", tableID)
		}
		i := slices.IndexFunc(t.Triggers, func(tr catalog.TriggerDef) bool { return tr.Name == name })
		if i < 0 {
			return pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, t.Name)
		}
		n := t.Clone()
		n.Triggers = slices.Delete(n.Triggers, i, i+1)
		c.Tables[tableID] = n
		return nil
	})
}

// AlterFunctionOwner gives the function of key a new owner.
func (tx *Tx) AlterFunctionOwner(key string, owner uint32) error {
	return tx.alterFunction(key, func(f *catalog.FunctionDef) { f.Owner = owner })
}

// CommentOnFunction sets the comment on the function of key ("" removes
// it).
func (tx *Tx) CommentOnFunction(key, text string) error {
	return tx.alterFunction(key, func(f *catalog.FunctionDef) { f.Comment = text })
}

// alterFunction replaces the function of key by a copy that change
// changed (42883 when it is gone).
func (tx *Tx) alterFunction(key string, change func(*catalog.FunctionDef)) error {
	return tx.apply(func(c *catalog.Catalog) error {
		f := c.Functions[key]
		if f == nil {
			return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", key)
		}
		n := f.Clone()
		change(n)
		c.Functions[key] = n
		return nil
	})
}
