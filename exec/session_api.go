package exec

// This file is the contract between exec and wire: how a wire session
// prepares, binds and runs statements. Bodies live in session.go.

import (
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

// The session API (implemented in session.go):
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
//	func (s *Session) Bind(st *Statement, params []any) (*Portal, error)
//	func (s *Session) Execute(ctx context.Context, p *Portal, maxRows int,
//	        emit func(arrow.Record) error) (tag string, suspended bool, err error)
//	func (s *Session) ClosePortal(p *Portal)
