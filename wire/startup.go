package wire

import (
	"crypto/tls"
	"encoding/binary"
	"maps"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// Startup packet codes (the first word after the length).
const (
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
	cancelRequestCode = 80877102
)

// startup runs the connection's start-up phase: an SSLRequest starts TLS
// when the server has a certificate (and is refused with 'N' otherwise),
// a GSSENCRequest is refused with 'N', a CancelRequest is handled and
// ends the connection, and a StartupMessage is authenticated and
// answered with the session's parameters, the cancel key and
// ReadyForQuery. It reports whether the connection proceeds to the query
// loop.
func (c *conn) startup() bool {
	var sslDone, gssDone bool
	for {
		body, err := c.cr.startupPacket()
		if err != nil {
			c.receiveFailed(err)
			return false
		}
		code := binary.BigEndian.Uint32(body)
		switch {
		case code == sslRequestCode && !sslDone && c.srv.TLSConfig != nil:
			sslDone = true
			if !c.startTLS() {
				return false
			}
			continue
		case code == sslRequestCode && !sslDone, code == gssEncRequestCode && !gssDone:
			// 'N' tells the client to go on in the clear (or give up,
			// per its sslmode): no certificate, or GSSAPI encryption,
			// which cairn does not speak. Each may be asked once; a
			// repeat is taken, as PostgreSQL takes it, for an
			// unsupported protocol version below.
			sslDone = sslDone || code == sslRequestCode
			gssDone = gssDone || code == gssEncRequestCode
			c.out = append(c.out, 'N')
			if c.flush() != nil {
				return false
			}
			continue
		case code == cancelRequestCode:
			if len(body) == 12 {
				c.srv.cancel(binary.BigEndian.Uint32(body[4:]), binary.BigEndian.Uint32(body[8:]))
			}
			return false // a cancel connection gets no answer
		}
		major, minor := code>>16, code&0xffff
		if major != 3 {
			c.fatal(pgerr.New(pgerrcode.FeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor))
			return false
		}
		// Decode as 3.0; a newer 3.x minor version is negotiated down below.
		binary.BigEndian.PutUint32(body, pgproto3.ProtocolVersionNumber)
		var sm pgproto3.StartupMessage
		if err := sm.Decode(body); err != nil {
			c.fatal(pgerr.New(pgerrcode.ProtocolViolation, "invalid startup packet layout: %s", err.Error()))
			return false
		}
		var unknown []string
		for k := range sm.Parameters {
			if strings.HasPrefix(k, "_pq_.") {
				unknown = append(unknown, k)
				delete(sm.Parameters, k)
			}
		}
		if minor > 0 || len(unknown) > 0 {
			sort.Strings(unknown)
			c.out = appendNegotiateProtocolVersion(c.out, pgproto3.ProtocolVersionNumber, unknown)
		}
		return c.open(sm.Parameters)
	}
}

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake,
// after which the connection reads and writes through TLS. Bytes the
// client sent after its SSLRequest, before the handshake, end the
// connection as PostgreSQL ends it (they would be read as if encrypted:
// a man in the middle could inject them, CVE-2021-23214). It reports
// whether the handshake succeeded.
func (c *conn) startTLS() bool {
	if c.cr.buffered() > 0 {
		c.fatal(pgerr.New(pgerrcode.ProtocolViolation, "received unencrypted data after SSL request").
			WithDetail("This could be either a client-software bug or evidence of an attempted man-in-the-middle attack."))
		return false
	}
	c.out = append(c.out, 'S')
	if c.flush() != nil {
		return false
	}
	tc := tls.Server(c.nc, c.srv.TLSConfig)
	// The handshake's reads have the start-up phase's deadline; its
	// writes get one of their own.
	c.nc.SetWriteDeadline(time.Now().Add(c.srv.writeTimeout()))
	if err := tc.Handshake(); err != nil {
		c.log.Info("could not accept SSL connection", "err", err)
		return false
	}
	c.tls, c.w = tc, tc
	c.cr = newFrameReader(tc, c.srv.maxMessageSize())
	c.be = pgproto3.NewBackend(c.cr, tc)
	return true
}

// open authenticates the client and starts its session.
func (c *conn) open(params map[string]string) bool {
	user := params["user"]
	if user == "" {
		c.fatal(pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet"))
		return false
	}
	database := params["database"]
	if database == "" {
		database = user
	}
	switch strings.ToLower(params["replication"]) {
	case "", "false", "off", "no", "0":
	default:
		c.fatal(pgerr.NotSupported("replication connections"))
		return false
	}
	if c.srv.TLSRequired && c.tls == nil {
		c.fatal(pgerr.New(pgerrcode.InvalidAuthorizationSpecification,
			"no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", no encryption", c.remoteHost(), user, database))
		return false
	}
	if c.srv.LogConnections {
		c.log.Info("connection received")
	}
	if c.srv.Auth != nil {
		if err := c.srv.Auth.Authenticate(authExchange{c}, user, database); err != nil {
			c.fatal(err)
			return false
		}
	}
	// The rest are settings, and options (session.Engine.Login).
	settings := maps.Clone(params)
	delete(settings, "user")
	delete(settings, "database")
	delete(settings, "replication")
	sess, err := c.srv.Engine.Login(user, database, settings)
	if err != nil {
		c.log.Info("connection refused", "user", user, "err", err)
		c.fatal(err)
		return false
	}
	if c.srv.LogConnections {
		c.log.Info("connection authorized", "user", user, "database", database)
	}
	c.send(&pgproto3.AuthenticationOk{})
	c.sess = sess
	c.pid = uint32(c.sess.PID())
	c.sess.SetBackend(c.backend())
	c.sess.OnNotify(c.notified)
	c.srv.trackPID(c)
	c.sendParameters(c.sess.ParameterStatus())
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})
	c.readyForQuery()
	return c.werr == nil
}

// remoteHost is the client's address as PostgreSQL's messages name it:
// the IP address without the port, or [local] for a Unix socket.
func (c *conn) remoteHost() string {
	switch a := c.nc.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UnixAddr:
		return "[local]"
	default:
		return a.String()
	}
}

// appendNegotiateProtocolVersion appends a NegotiateProtocolVersion
// message ('v'), which pgproto3/v2 lacks: the newest protocol version the
// server supports, as a whole version number (major << 16 | minor, 3.0
// is 196608) as PostgreSQL sends it, and the protocol options it did not
// recognise. libpq 18 and later refuse a bare minor number there (0:
// "server requested downgrade to pre-3.0 protocol version"), so a client
// that asks for 3.2 (max_protocol_version) could not connect.
func appendNegotiateProtocolVersion(dst []byte, version uint32, unknown []string) []byte {
	start := len(dst)
	dst = append(dst, 'v', 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, version)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(unknown)))
	for _, o := range unknown {
		dst = append(dst, o...)
		dst = append(dst, 0)
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-1))
	return dst
}
