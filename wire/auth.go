package wire

import (
	"net"

	"github.com/jackc/pgproto3/v2"
)

// Authenticator decides whether a client may connect. Authenticate runs
// after the startup message and before AuthenticationOk, which the server
// sends itself when Authenticate returns nil. It may exchange messages
// with the client through ex (an AuthenticationSASL round trip for
// SCRAM-SHA-256, say). A returned error ends the connection with a FATAL
// ErrorResponse carrying the error's SQLSTATE (use pgerr with 28P01 for a
// wrong password). Authenticate is called from the connection's goroutine,
// concurrently for different connections.
type Authenticator interface {
	Authenticate(ex AuthExchange, user, database string) error
}

// AuthExchange is the client connection as an Authenticator sees it.
type AuthExchange interface {
	// Send sends an authentication request (AuthenticationSASL,
	// AuthenticationSASLContinue, ...) and flushes it.
	Send(msg pgproto3.BackendMessage) error
	// Receive reads the client's next message. authType is the
	// pgproto3.AuthType* of the request just sent; it tells pgproto3 how to
	// decode the client's 'p' message.
	Receive(authType uint32) (pgproto3.FrontendMessage, error)
	// RemoteAddr is the client's address.
	RemoteAddr() net.Addr
}

// authExchange adapts a conn to AuthExchange.
type authExchange struct{ c *conn }

func (a authExchange) Send(msg pgproto3.BackendMessage) error {
	a.c.send(msg)
	return a.c.flush()
}

func (a authExchange) Receive(authType uint32) (pgproto3.FrontendMessage, error) {
	if err := a.c.be.SetAuthType(authType); err != nil {
		return nil, err
	}
	return a.c.be.Receive()
}

func (a authExchange) RemoteAddr() net.Addr { return a.c.nc.RemoteAddr() }
