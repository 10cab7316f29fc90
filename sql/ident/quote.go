package ident

import "strings"

// Quote returns name as PostgreSQL's quote_ident does: unchanged when it is
// a lower-case identifier (a letter or '_', then letters, digits or '_')
// that is not a keyword the grammar reserves in some position, otherwise
// in double quotes with embedded quotes doubled. Any keyword that is not
// unreserved is quoted, as ruleutils.c's quote_identifier does, so the
// result reads back as the same name wherever an identifier may stand.
func Quote(name string) string {
	if isPlain(name) && !reserved[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QualifiedName is schema.name with each part quoted as Quote does.
func QualifiedName(schema, name string) string { return Quote(schema) + "." + Quote(name) }

// isPlain reports whether name needs no quotes apart from keywords.
func isPlain(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// reserved are the keywords Quote quotes: every category but unreserved.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range Keywords {
		if k.Category != "U" {
			m[k.Word] = true
		}
	}
	return m
}()

// QuoteLiteral returns s as a string literal the way PostgreSQL's
// catalog functions print one (ruleutils.c's simple_quote_literal, with
// standard_conforming_strings on): in single quotes, embedded quotes
// doubled, backslashes as they are.
func QuoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
