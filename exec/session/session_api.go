package session

// This file is the contract between exec and wire: how a wire session
// prepares, binds and runs statements. Bodies live in session.go.

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
func (t Tag) String() string {
	switch {
	case !t.HasRows:
		return t.Command
	case t.Command == "INSERT":
		return "INSERT 0 " + strconv.FormatInt(t.Rows, 10)
	}
	return t.Command + " " + strconv.FormatInt(t.Rows, 10)
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

// The session API (implemented in session.go and, for COPY, copy.go):
//
//	func NewEngine(db *storage.DB, opts Options) *Engine
//	func (e *Engine) NewSession(user, database string, startup map[string]string) *Session
//	func (s *Session) Close()
//	func (s *Session) ParameterStatus() map[string]string        // reported at startup
//	func (s *Session) TakeChangedParameters() map[string]string  // reported after SET ...
//	func (s *Session) TakeNotices() []Notice
//	func (s *Session) TxStatus() TxStatus
//	func (s *Session) Location() *time.Location                  // session TimeZone
//	func (s *Session) Prepare(sql string, paramTypes []types.T) ([]*Statement, error)
//	func (s *Session) StorePrepared(name string, st *Statement) error  // Parse: one namespace
//	func (s *Session) PreparedStatement(name string) (*Statement, bool) // with SQL PREPARE
//	func (s *Session) ClosePrepared(name string)
//	func (s *Session) Bind(st *Statement, params []any) (*Portal, error)
//	func (s *Session) Execute(ctx context.Context, p *Portal, maxRows int,
//	        emit func(arrow.Record) error) (tag string, suspended bool, err error)
//	func (s *Session) ClosePortal(p *Portal)
//	func (p *Portal) Copy() CopyInfo                             // a COPY runs with:
//	func (s *Session) CopyFrom(ctx context.Context, p *Portal, src io.Reader) (tag string, err error)
//	func (s *Session) CopyTo(ctx context.Context, p *Portal, emit func(line []byte) error) (tag string, err error)
