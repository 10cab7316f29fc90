// Package functions holds every SQL scalar function, operator, aggregate
// and set-returning function cairn evaluates, one SQL name (or small
// family) per file, each registering itself in init(). Resolve,
// ResolveAggregate and Cast choose overloads and convert values with
// PostgreSQL 15's rules; an Overload evaluates rows through Eval and, for
// the hot operators, batches through a vectorised Kernel over Arrow
// columns; a SetReturning types a call's columns and generates its rows.
package functions
