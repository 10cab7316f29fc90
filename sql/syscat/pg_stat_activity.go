package syscat

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// Activity is one session as pg_stat_activity shows it (the engine's
// sessions: connections and HTTP API requests). Zero times and empty
// strings are NULL.
type Activity struct {
	PID                                    int32
	User, Database, ApplicationName        string
	ClientAddr                             string
	ClientPort                             int // -1 for a Unix socket, 0 unknown
	BackendStart, XactStart                time.Time
	QueryStart, StateChange                time.Time
	State, WaitEventType, WaitEvent, Query string
	// TLS is the connection's TLS session, nil for none.
	TLS *TLSInfo
}

// TLSInfo is what pg_stat_ssl shows of a connection's TLS session: the
// protocol version ("TLSv1.3"), the cipher suite and its key bits.
type TLSInfo struct {
	Version, Cipher string
	Bits            int
}

func init() {
	// PostgreSQL 15's columns; backend_xid/backend_xmin are xid there.
	register("pg_catalog", "pg_stat_activity", 0, "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, usename name, application_name text, client_addr inet, client_hostname text, client_port int4, backend_start timestamptz, xact_start timestamptz, query_start timestamptz, state_change timestamptz, wait_event_type text, wait_event text, state text, backend_xid oid, backend_xmin oid, query_id int8, query text, backend_type text", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Activity))
		viewer := v.roleOID(v.User)
		for _, a := range v.Activity {
			usesysid := v.roleOID(a.User)
			if !v.Cat.IsMemberOf(viewer, usesysid, true) {
				// PostgreSQL shows a session of a role whose privileges
				// the viewer does not have only by who and what it is:
				// its query may hold another user's secrets.
				rows = append(rows, []any{int64(DatabaseOID), a.Database, int64(a.PID), nil, int64(usesysid), a.User,
					a.ApplicationName, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "<insufficient privilege>", nil})
				continue
			}
			var port any
			if a.ClientPort != 0 {
				port = int64(a.ClientPort)
			}
			rows = append(rows, []any{int64(DatabaseOID), a.Database, int64(a.PID), nil, int64(usesysid), a.User,
				a.ApplicationName, inetOrNull(a.ClientAddr), nil, port,
				timeOrNull(a.BackendStart), timeOrNull(a.XactStart), timeOrNull(a.QueryStart), timeOrNull(a.StateChange),
				nullIfEmpty(a.WaitEventType), nullIfEmpty(a.WaitEvent), nullIfEmpty(a.State), nil, nil, nil, a.Query, "client backend"})
		}
		return rows
	})
	// Each connection's TLS session (none for a client that did not ask
	// for one, and for HTTP API requests); cairn asks for no client
	// certificates, so their fields are NULL.
	register("pg_catalog", "pg_stat_ssl", 0, "pid int4, ssl bool, version text, cipher text, bits int4, client_dn text, client_serial numeric, issuer_dn text", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Activity))
		for _, a := range v.Activity {
			if t := a.TLS; t != nil {
				rows = append(rows, []any{int64(a.PID), true, t.Version, t.Cipher, int64(t.Bits), nil, nil, nil})
			} else {
				rows = append(rows, []any{int64(a.PID), false, nil, nil, nil, nil, nil, nil})
			}
		}
		return rows
	})
	// No session authenticates with GSSAPI: pgAdmin reads this row of its
	// own backend when it connects.
	register("pg_catalog", "pg_stat_gssapi", 0, "pid int4, gss_authenticated bool, principal text, encrypted bool", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Activity))
		for _, a := range v.Activity {
			rows = append(rows, []any{int64(a.PID), false, nil, false})
		}
		return rows
	})
}

// roleOID is the OID of the role called name, the bootstrap superuser's
// for a login name that is no role (which acts as it).
func (v *View) roleOID(name string) uint32 {
	if r := v.Cat.Role(name); r != nil {
		return r.OID
	}
	return BootstrapUserOID
}

func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return types.TimestampFromTime(t)
}

// inetOrNull is a client's address as an inet datum, NULL for none (a
// Unix socket).
func inetOrNull(addr string) any {
	if v, ok := types.HostAddr(addr); ok {
		return v
	}
	return nil
}
