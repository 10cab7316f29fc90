package wire

import (
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
		Message:             msg,
		Detail:              pe.Detail,
		Hint:                pe.Hint,
		Position:            pe.Position,
		Where:               pe.Where,
	}
}
