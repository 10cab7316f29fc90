package catalog

import "slices"

// CommentKind is the kind of object a CommentTarget names.
type CommentKind int

// The objects COMMENT ON sets the comment of through SetComment (tables,
// views, their columns, schemas and functions keep theirs through their
// own definitions' ALTER).
const (
	CommentIndex      CommentKind = iota // Schema.Name: an index, or a key constraint's
	CommentSequence                      // Schema.Name
	CommentType                          // Schema.Name: a user type
	CommentConstraint                    // Table's constraint Name
	CommentTrigger                       // Table's (or view Schema.Relation's) trigger Name
	CommentRole                          // Name
	CommentDatabase                      // the database
	CommentExtension                     // Name
)

// CommentTarget names the object of a COMMENT ON that SetComment sets.
type CommentTarget struct {
	Kind         CommentKind
	Schema, Name string
	// Table is the ID of a constraint's or trigger's table; a view's
	// trigger has none and names its view by Schema and Relation.
	Table    uint64
	Relation string
}

// SetComment sets the comment on the object t names to text ("" removes
// it), in place: c must be a catalog being changed (a Clone). ok is false
// when the object does not exist.
func (c *Catalog) SetComment(t CommentTarget, text string) (ok bool) {
	switch t.Kind {
	case CommentIndex:
		if ix := c.Indexes[Key(t.Schema, t.Name)]; ix != nil {
			ix.Comment = text
			return true
		}
		for _, tab := range c.Tables {
			if tab.Schema != t.Schema {
				continue
			}
			if i := slices.IndexFunc(tab.Uniques, func(u UniqueDef) bool { return u.Name == t.Name }); i >= 0 {
				tab.Uniques[i].IndexComment = text
				return true
			}
		}
	case CommentSequence:
		if s := c.Sequences[Key(t.Schema, t.Name)]; s != nil {
			s.Comment = text
			return true
		}
	case CommentType:
		if td := c.Types[Key(t.Schema, t.Name)]; td != nil {
			td.Comment = text
			return true
		}
	case CommentConstraint:
		tab := c.Tables[t.Table]
		if tab == nil {
			return false
		}
		if i := slices.IndexFunc(tab.Uniques, func(u UniqueDef) bool { return u.Name == t.Name }); i >= 0 {
			tab.Uniques[i].Comment = text
			return true
		}
		if i := slices.IndexFunc(tab.Checks, func(k CheckDef) bool { return k.Name == t.Name }); i >= 0 {
			tab.Checks[i].Comment = text
			return true
		}
		if i := slices.IndexFunc(tab.ForeignKeys, func(f ForeignKeyDef) bool { return f.Name == t.Name }); i >= 0 {
			tab.ForeignKeys[i].Comment = text
			return true
		}
	case CommentTrigger:
		var trs []TriggerDef
		if tab := c.Tables[t.Table]; t.Table != 0 && tab != nil {
			trs = tab.Triggers
		} else if v := c.View(t.Schema, t.Relation); t.Table == 0 && v != nil {
			trs = v.Triggers
		}
		if i := slices.IndexFunc(trs, func(tr TriggerDef) bool { return tr.Name == t.Name }); i >= 0 {
			trs[i].Comment = text
			return true
		}
	case CommentRole:
		if r := c.Roles[t.Name]; r != nil {
			r.Comment = text
			return true
		}
	case CommentDatabase:
		c.DatabaseComment = text
		return true
	case CommentExtension:
		if c.ExtensionComments == nil {
			c.ExtensionComments = map[string]string{}
		}
		c.ExtensionComments[t.Name] = text
		return true
	}
	return false
}
