package session

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/syscat"
)

// statementEnv is the session as one statement's functions and operators
// see it (functions.SessionInfo, exec.SessionViews): a copy taken when the
// statement starts, so that a parallel plan's partitions and a suspended
// portal read a session that cannot change under them. Only set_config
// and pg_prepared_statements reach the session itself: set_config is
// volatile, so its plan runs on the session's goroutine, and the system
// view is built there too.
type statementEnv struct {
	sess                          *Session
	user, database, currentSchema string
	searchPath                    []string
	// tempSchema is the session's temporary schema when it exists,
	// implicitTemp whether searchPath leads with it without naming it.
	tempSchema   string
	implicitTemp bool
	// values are the session's settings when the statement started; the
	// session never changes a values map in place (setValue copies it).
	values              map[string]string
	isolation, readOnly string
}

// env takes the environment of the statement about to run.
func (s *Session) env() *statementEnv {
	readOnly := "off"
	if s.currentReadOnly() {
		readOnly = "on"
	}
	cat := s.catalog()
	path, implicitTemp := s.effectiveSearchPath(cat)
	var temp string
	if t := s.tempSchema(); t != "" && s.tempMade && cat.Schemas[t] != nil {
		temp = t
	}
	return &statementEnv{
		sess:          s,
		user:          s.parsedSettings().bind.user,
		database:      s.database,
		currentSchema: s.CurrentSchema(),
		searchPath:    path,
		tempSchema:    temp,
		implicitTemp:  implicitTemp,
		values:        s.values,
		isolation:     s.currentIsolation(),
		readOnly:      readOnly,
	}
}

// ListeningChannels implements functions.ChannelLister, sorted. The
// session changes what it listens on only when a transaction commits,
// between statements, so its statements may read it from any goroutine.
func (e *statementEnv) ListeningChannels() []string {
	return slices.Sorted(maps.Keys(e.sess.listening))
}

// TempSchema implements functions.TempSchemaInfo.
func (e *statementEnv) TempSchema() (string, bool) { return e.tempSchema, e.implicitTemp }

// User implements functions.SessionInfo.
func (e *statementEnv) User() string { return e.user }

// Database implements functions.SessionInfo.
func (e *statementEnv) Database() string { return e.database }

// CurrentSchema implements functions.SessionInfo.
func (e *statementEnv) CurrentSchema() string { return e.currentSchema }

// SearchPath implements functions.SessionInfo.
func (e *statementEnv) SearchPath() []string { return slices.Clone(e.searchPath) }

// Setting implements functions.SessionInfo (current_setting): a known or
// custom (dotted) setting's value as SHOW shows it, false for names no
// setting has.
func (e *statementEnv) Setting(name string) (string, bool) {
	v, ok := e.storedSetting(name)
	if st := settings[strings.ToLower(name)]; ok && st.show != nil {
		v = st.show(v)
	}
	return v, ok
}

// storedSetting is a setting's value as stored (pg_settings' setting).
func (e *statementEnv) storedSetting(name string) (string, bool) {
	name = strings.ToLower(name)
	switch name {
	case "transaction_isolation":
		return e.isolation, true
	case "transaction_read_only":
		return e.readOnly, true
	}
	if _, ok := lookupSetting(name); !ok {
		return "", false
	}
	if v, ok := e.values[name]; ok {
		return v, true
	}
	if _, known := settings[name]; !known {
		return "", false
	}
	return e.sess.engine.settingDefault(name), true
}

// SetSetting implements functions.SettingWriter: set_config runs as the
// SET (or RESET) statement would, and returns the new value, which the
// rest of the statement then sees.
func (e *statementEnv) SetSetting(name, value string, reset, local bool) (string, error) {
	name = strings.ToLower(name)
	s := e.sess
	if local && s.tx == nil && name != "role" && name != "session_authorization" {
		// Outside a transaction the statement is its own: the value
		// holds for the rest of it and goes with it, as PostgreSQL's
		// transaction does, without SET LOCAL's warning.
		values, parsed, changed := s.values, s.parsed, maps.Clone(s.changed)
		err := s.runSet(&sql.Set{Name: name, Value: value, Reset: reset})
		e.values = s.values
		s.values, s.parsed, s.changed = values, parsed, changed
		if err != nil {
			return "", err
		}
		v, _ := e.Setting(name)
		return v, nil
	}
	if err := s.runSet(&sql.Set{Name: name, Value: value, Local: local, Reset: reset}); err != nil {
		return "", err
	}
	e.values = s.values
	v, _ := e.Setting(name)
	return v, nil
}

// SettingRows implements exec.SessionViews: pg_settings.
func (e *statementEnv) SettingRows() []syscat.Setting {
	out := make([]syscat.Setting, 0, len(settings))
	for name := range settings {
		v, _ := e.storedSetting(name)
		out = append(out, syscat.Setting{Name: name, Value: v, Default: e.sess.engine.settingDefault(name)})
	}
	return out
}

// PreparedStatements implements exec.SessionViews:
// pg_prepared_statements, read from the session when the view is built.
func (e *statementEnv) PreparedStatements() []syscat.PreparedStatement {
	return e.sess.preparedStatements()
}

// Cursors implements exec.SessionViews: pg_cursors, the session's open
// named portals.
func (e *statementEnv) Cursors() []syscat.Cursor { return e.sess.cursorRows() }

// Activity implements exec.SessionViews: pg_stat_activity, the engine's
// sessions as they are when the view is built.
func (e *statementEnv) Activity() []syscat.Activity { return e.sess.engine.Activity() }

// BackendPID implements functions.BackendPIDer: pg_backend_pid().
func (e *statementEnv) BackendPID() int32 { return e.sess.pid }

// ClientEndpoint implements functions.Endpoints: inet_client_addr() and
// inet_client_port().
func (e *statementEnv) ClientEndpoint() (string, int) {
	a := &e.sess.act
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.backend.ClientAddr, a.backend.ClientPort
}

// ServerEndpoint implements functions.Endpoints: inet_server_addr() and
// inet_server_port().
func (e *statementEnv) ServerEndpoint() (string, int) {
	a := &e.sess.act
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.backend.ServerAddr, a.backend.ServerPort
}

// StatementContext implements functions.StatementContexter: the running
// statement's context, which pg_sleep's wait ends with.
func (e *statementEnv) StatementContext() context.Context { return e.sess.stmtCtx }
