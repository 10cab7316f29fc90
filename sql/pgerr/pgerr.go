package pgerr

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgerrcode"
)

// Error is a PostgreSQL error: SQLSTATE code, primary message and optional
// detail, hint, 1-based cursor position in the statement text and context
// (where the error happened, as "COPY t, line 3, column a: ...").
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int32
	Where    string
	// Severity is "ERROR" unless set (for example "FATAL" for a startup
	// failure).
	Severity string
	// Schema, Table, Column and Constraint name the object an integrity
	// error is about, as PostgreSQL reports them in the ErrorResponse's
	// fields s, t, c and n: drivers expose them (psycopg's diag, asyncpg's
	// constraint_name, pgx's ConstraintName) and ORMs map a 23505 or 23503
	// to the model field by the constraint's name.
	Schema, Table, Column, Constraint string
	// Routine is the PostgreSQL source function that raises this error,
	// set only where clients tell errors apart by it (asyncpg knows a
	// prepared statement a DDL invalidated by RevalidateCachedQuery).
	Routine string
	// FailedRow is 1 + the index of the row that broke a constraint in
	// the batch of rows the check was given (0: not known). It is never
	// sent: a caller that knows where that batch's rows came from (COPY
	// FROM: their lines) turns it into the error's CONTEXT.
	FailedRow int
}

// New returns an error with the given SQLSTATE and a printf-style message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// WithDetail returns e with Detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint returns e with Hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithConstraint returns e naming the constraint (unique, check or
// foreign key) of table schema.table that the error is about.
func (e *Error) WithConstraint(schema, table, constraint string) *Error {
	e.Schema, e.Table, e.Constraint = schema, table, constraint
	return e
}

// WithColumn returns e naming the column of table schema.table that the
// error is about (a not-null violation).
func (e *Error) WithColumn(schema, table, column string) *Error {
	e.Schema, e.Table, e.Column = schema, table, column
	return e
}

// AtRow returns e marking row i (0-based) of the batch checked as the one
// that failed (see FailedRow).
func (e *Error) AtRow(i int) *Error {
	e.FailedRow = i + 1
	return e
}

// WithRoutine returns e with Routine set.
func (e *Error) WithRoutine(routine string) *Error {
	e.Routine = routine
	return e
}

// WithPosition returns e with the 1-based statement position set.
func (e *Error) WithPosition(pos int32) *Error {
	e.Position = pos
	return e
}

// WithPositionIfUnset returns e with the position set unless it has one:
// a call or operator reports its own position for an error only when a
// part of it (a literal that is no valid input, say) has not.
func (e *Error) WithPositionIfUnset(pos int32) *Error {
	if e.Position == 0 {
		e.Position = pos
	}
	return e
}

// NotSupported is the 0A000 error for a feature cairn parses but does not
// implement; feature names it, e.g. "LATERAL joins".
func NotSupported(format string, args ...any) *Error {
	return New(pgerrcode.FeatureNotSupported, format+" is not supported", args...)
}

// From converts any error into an *Error: a wrapped *Error is returned as
// is, context cancellation becomes 57014 and anything else XX000.
func From(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) {
		return New(pgerrcode.QueryCanceled, "canceling statement due to user request")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return New(pgerrcode.QueryCanceled, "canceling statement due to statement timeout")
	}
	return New(pgerrcode.InternalError, "%s", err.Error())
}

// Code returns the SQLSTATE of err, or "" when err is nil.
func Code(err error) string {
	if err == nil {
		return ""
	}
	return From(err).Code
}
