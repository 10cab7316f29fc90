package wire

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// errorResponse is the one place where an error becomes an ErrorResponse:
// pgerr.From gives it a SQLSTATE (57014 for a cancelled context, XX000 for
// anything that carries none). fatal forces severity FATAL, for errors
// that end the connection.
func errorResponse(err error, fatal bool) *pgproto3.ErrorResponse {
	pe := pgerr.From(err)
	sev := pe.Severity
	switch {
	case fatal:
		sev = "FATAL"
	case sev == "":
		sev = "ERROR"
	}
	code := pe.Code
	if code == "" {
		code = pgerrcode.InternalError
	}
	msg := pe.Message
	if msg == "" {
		msg = err.Error()
	}
	return &pgproto3.ErrorResponse{
		Severity:            sev,
		SeverityUnlocalized: sev,
		Code:                code,
		Message:             validUTF8(msg),
		Detail:              validUTF8(pe.Detail),
		Hint:                validUTF8(pe.Hint),
		Position:            pe.Position,
		Where:               validUTF8(pe.Where),
		SchemaName:          pe.Schema,
		TableName:           pe.Table,
		ColumnName:          pe.Column,
		ConstraintName:      pe.Constraint,
		Routine:             pe.Routine,
	}
}

// validUTF8 replaces what is not UTF-8 in s: an error that quotes the
// client's bad bytes back must not itself be text the client cannot
// decode.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
