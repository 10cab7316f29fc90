package catalog

import (
	"slices"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// FunctionDef is a function made by CREATE FUNCTION: its signature and
// the source of its body, which is compiled again wherever it is used
// (LANGUAGE sql bodies are inlined into the calling query, LANGUAGE
// plpgsql ones run as triggers).
type FunctionDef struct {
	Schema   string    `json:"schema"`
	Name     string    `json:"name"`
	ArgNames []string  `json:"arg_names,omitempty"`
	ArgTypes []types.T `json:"arg_types,omitempty"`
	// Returns is the result type; Trigger marks RETURNS trigger.
	Returns  types.T `json:"returns"`
	Trigger  bool    `json:"trigger,omitempty"`
	Language string  `json:"language"`
	Body     string  `json:"body"`
	// Volatility is pg_proc.provolatile: "i", "s" or "v".
	Volatility string `json:"volatility"`
	Strict     bool   `json:"strict,omitempty"`
	Owner      uint32 `json:"owner,omitempty"`
	// ArgDefaults are the parameters' DEFAULT expressions as SQL text,
	// "" for one without (only trailing parameters have them); nil when
	// none has one. A call may leave out the parameters that have one.
	ArgDefaults []string `json:"arg_defaults,omitempty"`
	// Setof marks a function returning a set of rows (RETURNS SETOF t,
	// RETURNS TABLE (...)), called in FROM. Columns are RETURNS TABLE's
	// columns; SetofSchema and SetofTable name the table of RETURNS
	// SETOF table, whose columns the rows have (read at each call);
	// otherwise Returns is the type of the one column.
	Setof       bool             `json:"setof,omitempty"`
	Columns     []FunctionColumn `json:"columns,omitempty"`
	SetofSchema string           `json:"setof_schema,omitempty"`
	SetofTable  string           `json:"setof_table,omitempty"`
	// Comment is COMMENT ON FUNCTION's text ("" for none); CREATE OR
	// REPLACE FUNCTION keeps it.
	Comment string `json:"comment,omitempty"`
}

// FunctionColumn is a column of RETURNS TABLE (name type, ...).
type FunctionColumn struct {
	Name string  `json:"name"`
	Type types.T `json:"type"`
}

// RequiredArgs is how many arguments a call must give: the parameters
// before the first with a DEFAULT.
func (f *FunctionDef) RequiredArgs() int {
	for i, d := range f.ArgDefaults {
		if d != "" {
			return i
		}
	}
	return len(f.ArgTypes)
}

// Key is the function's key in Catalog.Functions: its schema, name and
// argument types, which together identify it (overloads differ in
// their arguments).
func (f *FunctionDef) Key() string {
	return FunctionKey(f.Schema, f.Name, f.ArgTypes)
}

// FunctionKey is the Catalog.Functions key of schema.name(args).
func FunctionKey(schema, name string, args []types.T) string {
	var b strings.Builder
	b.WriteString(schema + "." + name + "(")
	for i, t := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Clone copies the definition.
func (f *FunctionDef) Clone() *FunctionDef {
	n := *f
	n.ArgNames = slices.Clone(f.ArgNames)
	n.ArgTypes = slices.Clone(f.ArgTypes)
	n.ArgDefaults = slices.Clone(f.ArgDefaults)
	n.Columns = slices.Clone(f.Columns)
	return &n
}

// FunctionsNamed lists the functions called name in schema.
func (c *Catalog) FunctionsNamed(schema, name string) []*FunctionDef {
	var out []*FunctionDef
	for _, f := range c.Functions {
		if f.Schema == schema && f.Name == name {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b *FunctionDef) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// TriggerDef is a trigger of CREATE TRIGGER on its table or view:
// BEFORE, AFTER or INSTEAD OF the events it names, running Function (a
// key of Catalog.Functions).
type TriggerDef struct {
	Name     string `json:"name"`
	Function string `json:"function"`
	// Before is BEFORE, Instead INSTEAD OF (a view's row trigger, which
	// runs in place of the write of each row); neither is AFTER. Events
	// are INSERT, DELETE, UPDATE, TRUNCATE (a statement trigger's only).
	Before  bool     `json:"before,omitempty"`
	Instead bool     `json:"instead,omitempty"`
	Events  []string `json:"events"`
	// ForEachRow is FOR EACH ROW (else FOR EACH STATEMENT).
	ForEachRow bool `json:"for_each_row,omitempty"`
	// When is the WHEN condition's text ("" for none): the trigger fires
	// only where it is true.
	When string `json:"when,omitempty"`
	// Args are the arguments CREATE TRIGGER gives the function, as
	// strings: its body reads them as TG_ARGV[0], TG_ARGV[1], ...
	Args []string `json:"args,omitempty"`
	// Columns are the IDs of UPDATE OF's columns (nil for none): the
	// trigger fires for an UPDATE only when it sets one of them.
	Columns []int `json:"columns,omitempty"`
	// Enabled is pg_trigger.tgenabled as ALTER TABLE ... ENABLE / DISABLE
	// TRIGGER set it: "" (O: enabled), D (disabled), R (ENABLE REPLICA:
	// fires only in a replica session, which cairn's never are) or A
	// (ENABLE ALWAYS).
	Enabled string `json:"enabled,omitempty"`
	// Comment is COMMENT ON TRIGGER's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// Timing is the trigger's timing as CREATE TRIGGER writes it (and
// TG_WHEN and information_schema.triggers show it): BEFORE, AFTER or
// INSTEAD OF.
func (t *TriggerDef) Timing() string {
	switch {
	case t.Before:
		return "BEFORE"
	case t.Instead:
		return "INSTEAD OF"
	}
	return "AFTER"
}

// Fires reports whether the trigger fires for event (INSERT, DELETE,
// UPDATE, TRUNCATE): it is one of its events and the trigger is enabled.
func (t *TriggerDef) Fires(event string) bool {
	return slices.Contains(t.Events, event) && t.Enabled != "D" && t.Enabled != "R"
}

// FiresOn reports whether the trigger fires for event when the statement
// sets the columns whose IDs are set (an UPDATE's; ignored for the other
// events): an UPDATE OF trigger only when it sets one of its columns.
func (t *TriggerDef) FiresOn(event string, set []int) bool {
	if !t.Fires(event) {
		return false
	}
	return event != "UPDATE" || t.Columns == nil || slices.ContainsFunc(t.Columns, func(id int) bool { return slices.Contains(set, id) })
}
