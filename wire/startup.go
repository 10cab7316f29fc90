package wire

import (
	"encoding/binary"
	"sort"
	"strings"

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

// startup runs the connection's start-up phase: encryption requests are
// refused with 'N', a CancelRequest is handled and ends the connection,
// and a StartupMessage is authenticated and answered with the session's
// parameters, the cancel key and ReadyForQuery. It reports whether the
// connection proceeds to the query loop.
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
		case code == sslRequestCode && !sslDone, code == gssEncRequestCode && !gssDone:
			// cairn speaks no TLS or GSSAPI encryption: 'N' tells the
			// client to go on in the clear (or give up, per its sslmode).
			// Each may be asked once; a repeat is taken, as PostgreSQL
			// takes it, for an unsupported protocol version below.
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
			c.out = appendNegotiateProtocolVersion(c.out, 0, unknown)
		}
		return c.open(sm.Parameters)
	}
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
	if c.srv.Auth != nil {
		if err := c.srv.Auth.Authenticate(authExchange{c}, user, database); err != nil {
			c.fatal(err)
			return false
		}
	}
	c.send(&pgproto3.AuthenticationOk{})
	c.sess = c.srv.Engine.NewSession(user, database, params)
	c.pid = uint32(c.sess.PID())
	c.sess.SetBackend(c.backend())
	c.srv.trackPID(c)
	c.sendParameters(c.sess.ParameterStatus())
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})
	c.readyForQuery()
	return c.werr == nil
}

// appendNegotiateProtocolVersion appends a NegotiateProtocolVersion
// message ('v'), which pgproto3/v2 lacks: the newest minor version the
// server supports and the protocol options it did not recognise.
func appendNegotiateProtocolVersion(dst []byte, minor uint32, unknown []string) []byte {
	start := len(dst)
	dst = append(dst, 'v', 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, minor)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(unknown)))
	for _, o := range unknown {
		dst = append(dst, o...)
		dst = append(dst, 0)
	}
	binary.BigEndian.PutUint32(dst[start+1:], uint32(len(dst)-start-1))
	return dst
}
