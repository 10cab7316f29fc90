package wire

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"hash"
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
	// ChannelBinding is the connection's tls-server-end-point channel
	// binding data (RFC 5929): the hash of the server's certificate that
	// SCRAM-SHA-256-PLUS binds the authentication to. It is nil on a
	// connection without TLS, or with a certificate whose signature
	// algorithm names no hash (Ed25519).
	ChannelBinding() []byte
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

func (a authExchange) ChannelBinding() []byte {
	cfg := a.c.srv.TLSConfig
	if a.c.tls == nil || len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return nil
	}
	cert := cfg.Certificates[0].Leaf
	if cert == nil {
		var err error
		if cert, err = x509.ParseCertificate(cfg.Certificates[0].Certificate[0]); err != nil {
			return nil
		}
	}
	return tlsServerEndPoint(cert)
}

// tlsServerEndPoint is RFC 5929's tls-server-end-point binding of cert:
// its DER encoding hashed with the hash of its signature algorithm, and
// with SHA-256 where that is MD5 or SHA-1. It is nil for an algorithm
// without a hash of its own (Ed25519), as PostgreSQL offers no channel
// binding then.
func tlsServerEndPoint(cert *x509.Certificate) []byte {
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil
	}
	h.Write(cert.Raw)
	return h.Sum(nil)
}
