package session

// The values a session hands the wire layer besides rows: result columns,
// command tags, transaction status, notices and the shape of COPY data.

import (
	"strconv"

	"github.com/cairn-db/cairn/sql/types"
)

// Column describes one result column as RowDescription reports it.
type Column struct {
	Name string
	Type types.T
	// TableOID and Attnum identify the source column when the result column
	// is a plain table column; 0 otherwise.
	TableOID uint32
	Attnum   int16
}

// Tag is how a statement completed, as CommandComplete reports it: the
// command, and for the commands whose tag carries one (SELECT, INSERT,
// UPDATE, DELETE, FETCH, MOVE, COPY, CREATE TABLE AS) the rows it
// returned or changed. An empty Command is a statement that completed
// nothing (EXECUTE of an empty query).
type Tag struct {
	Command string
	Rows    int64
	HasRows bool
}

// commandTag is the tag of a command that reports no row count.
func commandTag(command string) Tag { return Tag{Command: command} }

// rowsTag is the tag of a command that reports a row count.
func rowsTag(command string, rows int64) Tag { return Tag{Command: command, Rows: rows, HasRows: true} }

// String is the tag as CommandComplete carries it: "INSERT 0 5",
// "SELECT 3", "CREATE TABLE" (INSERT's 0 is the OID PostgreSQL no longer
// assigns).
func (t Tag) String() string { return string(t.AppendTo(nil)) }

// AppendTo appends the tag as String gives it.
func (t Tag) AppendTo(dst []byte) []byte {
	dst = append(dst, t.Command...)
	switch {
	case !t.HasRows:
		return dst
	case t.Command == "INSERT":
		dst = append(dst, " 0"...)
	}
	return strconv.AppendInt(append(dst, ' '), t.Rows, 10)
}

// TxStatus is the ReadyForQuery transaction indicator.
type TxStatus byte

// Transaction states as ReadyForQuery reports them.
const (
	TxIdle   TxStatus = 'I'
	TxActive TxStatus = 'T'
	TxFailed TxStatus = 'E'
)

// Notice is a NoticeResponse the session wants sent to the client (for
// example "relation already exists, skipping").
type Notice struct {
	Severity string // "NOTICE", "WARNING"
	Code     string
	Message  string
	Detail   string // "" for none
}

// CopyDir is which way the data of a COPY portal flows.
type CopyDir uint8

const (
	// NotCopy marks a portal that is not a COPY.
	NotCopy CopyDir = iota
	// CopyIn is COPY ... FROM STDIN, run with Session.CopyFrom.
	CopyIn
	// CopyOut is COPY ... TO STDOUT, run with Session.CopyTo.
	CopyOut
)

// CopyInfo describes the data of a COPY portal, which the protocol
// announces before it flows (CopyInResponse, CopyOutResponse).
type CopyInfo struct {
	Dir CopyDir
	// Columns is the number of columns of the data.
	Columns int
	// Binary is set for the binary format (text and CSV are text).
	Binary bool
}
