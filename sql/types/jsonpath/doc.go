// Package jsonpath is PostgreSQL 15's SQL/JSON path language: the parser
// of jsonpath text (its syntax errors worded as PostgreSQL words them) and
// the printer of its canonical form. It knows no JSON values: the
// evaluator of paths over jsonb lives with the jsonb functions.
package jsonpath
