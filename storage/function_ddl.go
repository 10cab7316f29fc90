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
		runs := func(tr catalog.TriggerDef) bool { return tr.Function == key }
		var deps []string
		for _, rel := range triggerRels(c) {
			trs, name, kind := rel.triggers(c)
			for _, tr := range trs {
				if runs(tr) {
					deps = append(deps, "trigger "+tr.Name+" on "+kind+" "+name+" depends on function "+functionSignature(f))
					dropped = append(dropped, "trigger "+tr.Name+" on "+kind+" "+name)
				}
			}
		}
		slices.Sort(deps)
		if len(deps) > 0 && !cascade {
			return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", functionSignature(f)).
				WithDetail("%s", strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		for _, rel := range triggerRels(c) {
			if trs, _, _ := rel.triggers(c); slices.ContainsFunc(trs, runs) {
				rel.setTriggers(c, slices.DeleteFunc(slices.Clone(trs), runs))
			}
		}
		slices.Sort(dropped)
		delete(c.Functions, key)
		return nil
	})
	return dropped, err
}

// TriggerRel is the relation a trigger is on: the table of ID Table, or
// (Table 0) the view of key View (catalog.Key).
type TriggerRel struct {
	Table uint64
	View  string
}

// triggerRels are the relations of c that may have triggers: its tables,
// then its views.
func triggerRels(c *catalog.Catalog) []TriggerRel {
	var rels []TriggerRel
	for id := range c.Tables {
		rels = append(rels, TriggerRel{Table: id})
	}
	for key := range c.Views {
		rels = append(rels, TriggerRel{View: key})
	}
	return rels
}

// triggers are the triggers of r in c, with its name and kind ("table",
// "view"); the name is "" when r is not in c.
func (r TriggerRel) triggers(c *catalog.Catalog) ([]catalog.TriggerDef, string, string) {
	if r.Table != 0 {
		if t := c.Tables[r.Table]; t != nil {
			return t.Triggers, t.Name, "table"
		}
		return nil, "", ""
	}
	if v := c.Views[r.View]; v != nil {
		return v.Triggers, v.Name, "view"
	}
	return nil, "", ""
}

// exists is nil when r is in c, else 42P01.
func (r TriggerRel) exists(c *catalog.Catalog) error {
	if _, name, _ := r.triggers(c); name == "" {
		return pgerr.New(pgerrcode.UndefinedTable, "the relation of the trigger does not exist")
	}
	return nil
}

// setTriggers makes trs r's triggers in c.
func (r TriggerRel) setTriggers(c *catalog.Catalog, trs []catalog.TriggerDef) {
	if r.Table != 0 {
		n := c.Tables[r.Table].Clone()
		n.Triggers = trs
		c.Tables[r.Table] = n
		return
	}
	v := *c.Views[r.View]
	v.Triggers = trs
	c.Views[r.View] = &v
}

// CreateTrigger adds a trigger to a table or view, or replaces the one of
// its name when replace is set (42710 otherwise).
func (tx *Tx) CreateTrigger(rel TriggerRel, def catalog.TriggerDef, replace bool) error {
	def.Events = slices.Clone(def.Events)
	return tx.apply(func(c *catalog.Catalog) error {
		if err := rel.exists(c); err != nil {
			return err
		}
		if c.Functions[def.Function] == nil {
			return pgerr.New(pgerrcode.UndefinedFunction, "function %s does not exist", def.Function)
		}
		trs, name, _ := rel.triggers(c)
		trs = slices.Clone(trs)
		i := slices.IndexFunc(trs, func(tr catalog.TriggerDef) bool { return tr.Name == def.Name })
		switch {
		case i >= 0 && !replace:
			return pgerr.New(pgerrcode.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", def.Name, name)
		case i >= 0:
			trs[i] = def
		default:
			trs = append(trs, def)
		}
		rel.setTriggers(c, trs)
		return nil
	})
}

// DropTrigger drops a table's or view's trigger (42704 if missing).
func (tx *Tx) DropTrigger(rel TriggerRel, name string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if err := rel.exists(c); err != nil {
			return err
		}
		trs, relName, _ := rel.triggers(c)
		i := slices.IndexFunc(trs, func(tr catalog.TriggerDef) bool { return tr.Name == name })
		if i < 0 {
			return pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, relName)
		}
		rel.setTriggers(c, slices.Delete(slices.Clone(trs), i, i+1))
		return nil
	})
}

// RenameTrigger renames a view's or table's trigger: 42704 when it has
// none of that name, 42710 when another has the new name.
func (tx *Tx) RenameTrigger(rel TriggerRel, name, newName string) error {
	return tx.apply(func(c *catalog.Catalog) error {
		if err := rel.exists(c); err != nil {
			return err
		}
		trs, relName, _ := rel.triggers(c)
		i := slices.IndexFunc(trs, func(tr catalog.TriggerDef) bool { return tr.Name == name })
		switch {
		case i < 0:
			return pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, relName)
		case slices.ContainsFunc(trs, func(tr catalog.TriggerDef) bool { return tr.Name == newName }):
			return pgerr.New(pgerrcode.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", newName, relName)
		}
		trs = slices.Clone(trs)
		trs[i].Name = newName
		rel.setTriggers(c, trs)
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
