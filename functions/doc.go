// Package functions holds every SQL scalar function, operator and aggregate
// cairn evaluates, one SQL name (or small family) per file, each registering
// its overloads in init(). Resolve, ResolveAggregate and Cast choose
// overloads and convert values with PostgreSQL 15's rules; an Overload
// evaluates rows through Eval and, for the hot operators, batches through
// a vectorised Kernel over Arrow columns.
package functions
