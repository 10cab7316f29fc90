package session

import (
	"slices"
	"sync"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// LISTEN, UNLISTEN and NOTIFY (and pg_notify) as in PostgreSQL: a
// transaction's LISTEN and UNLISTEN take effect, and its notifications go
// out, when it commits (none of them if it rolls back); a notification
// reaches every session listening on its channel then, the sender too,
// once per distinct channel and payload of the transaction, in the order
// they were sent. The wire layer takes a session's notifications with
// Notifications when it is between transactions, and OnNotify tells it
// one came while it waits for its client. Only the sessions of one server
// hear each other, so on an object store several servers share they are
// 0A000.

// Notification is one NotificationResponse: the sending session's pid,
// the channel and the payload.
type Notification struct {
	PID     int32
	Channel string
	Payload string
}

// maxNotifyPayload is PostgreSQL's limit on a payload (NAMEDATALEN-sized
// queue pages aside: 8000 bytes).
const maxNotifyPayload = 8000

// listeners is the engine's map of channels to the sessions listening.
type listeners struct {
	mu sync.Mutex
	by map[string]map[*Session]struct{}
}

func (l *listeners) listen(s *Session, channel string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]map[*Session]struct{}{}
	}
	if l.by[channel] == nil {
		l.by[channel] = map[*Session]struct{}{}
	}
	l.by[channel][s] = struct{}{}
}

func (l *listeners) unlisten(s *Session, channel string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by[channel], s)
	if len(l.by[channel]) == 0 {
		delete(l.by, channel)
	}
}

func (l *listeners) unlistenAll(s *Session, channels []string) {
	for _, c := range channels {
		l.unlisten(s, c)
	}
}

// deliver hands n to every session listening on its channel.
func (l *listeners) deliver(n Notification) {
	l.mu.Lock()
	targets := make([]*Session, 0, len(l.by[n.Channel]))
	for s := range l.by[n.Channel] {
		targets = append(targets, s)
	}
	l.mu.Unlock()
	for _, s := range targets {
		s.inbox.add(n)
	}
}

// inbox is a session's notifications not yet sent to its client; other
// sessions' commits add to it.
type inbox struct {
	mu    sync.Mutex
	notes []Notification
	wake  func()
}

func (b *inbox) add(n Notification) {
	b.mu.Lock()
	b.notes = append(b.notes, n)
	wake := b.wake
	b.mu.Unlock()
	if wake != nil {
		wake()
	}
}

func (b *inbox) take() []Notification {
	b.mu.Lock()
	defer b.mu.Unlock()
	notes := b.notes
	b.notes = nil
	return notes
}

// notifyState is what the session's open transaction has asked of
// LISTEN/NOTIFY, applied when tx commits.
type notifyState struct {
	tx       *storage.Tx
	notes    []Notification
	changes  []listenChange
	unlisten bool // UNLISTEN * came first, then changes
}

type listenChange struct {
	channel string
	listen  bool
}

// pendingNotify is the notification state of tx, started anew for a new
// transaction.
func (s *Session) pendingNotify(tx *storage.Tx) (*notifyState, error) {
	if !s.engine.db.LocalOnly() {
		return nil, pgerr.NotSupported("LISTEN and NOTIFY on a server that shares its storage with other servers (--storage): notifications would reach only this server's sessions")
	}
	if s.notify.tx != tx {
		s.notify = notifyState{tx: tx}
	}
	return &s.notify, nil
}

// notifyMark is how far a transaction's LISTEN/NOTIFY had gone at a
// savepoint, which ROLLBACK TO goes back to.
type notifyMark struct {
	tx             *storage.Tx
	notes, changes int
	unlisten       bool
}

// notifyMark is the mark of the session's transaction now.
func (s *Session) notifyMark() notifyMark {
	return notifyMark{tx: s.notify.tx, notes: len(s.notify.notes), changes: len(s.notify.changes), unlisten: s.notify.unlisten}
}

// rollbackNotify forgets the LISTEN/NOTIFY of the transaction since m.
func (s *Session) rollbackNotify(m notifyMark) {
	if s.notify.tx == nil || s.notify.tx != s.tx {
		return
	}
	if m.tx != s.notify.tx {
		s.notify = notifyState{tx: s.notify.tx}
		return
	}
	s.notify.notes = s.notify.notes[:m.notes]
	s.notify.changes = s.notify.changes[:m.changes]
	s.notify.unlisten = m.unlisten
}

// checkChannel refuses a channel name PostgreSQL refuses.
func checkChannel(channel string) error {
	switch {
	case channel == "":
		return pgerr.New(pgerrcode.InvalidParameterValue, "channel name cannot be empty")
	case len(channel) >= 64:
		return pgerr.New(pgerrcode.InvalidParameterValue, "channel name too long")
	}
	return nil
}

// queueNotify is NOTIFY channel, payload in tx.
func (s *Session) queueNotify(tx *storage.Tx, channel, payload string) error {
	if err := checkChannel(channel); err != nil {
		return err
	}
	if len(payload) >= maxNotifyPayload {
		return pgerr.New(pgerrcode.InvalidParameterValue, "payload string too long")
	}
	st, err := s.pendingNotify(tx)
	if err != nil {
		return err
	}
	n := Notification{PID: s.pid, Channel: channel, Payload: payload}
	if !slices.Contains(st.notes, n) {
		st.notes = append(st.notes, n)
	}
	return nil
}

// queueListen is LISTEN channel (listen) or UNLISTEN channel in tx;
// UNLISTEN * when channel is "" and !listen.
func (s *Session) queueListen(tx *storage.Tx, channel string, listen bool) error {
	if channel != "" || listen {
		if err := checkChannel(channel); err != nil {
			return err
		}
	}
	st, err := s.pendingNotify(tx)
	if err != nil {
		return err
	}
	if channel == "" {
		st.unlisten, st.changes = true, nil
		return nil
	}
	st.changes = append(st.changes, listenChange{channel: channel, listen: listen})
	return nil
}

// committedNotify applies, after tx committed, its LISTEN/UNLISTEN and
// sends its notifications.
func (s *Session) committedNotify(tx *storage.Tx) {
	if s.notify.tx != tx {
		return
	}
	st := s.notify
	s.notify = notifyState{}
	l := &s.engine.listeners
	if st.unlisten {
		s.unlistenAll()
	}
	for _, c := range st.changes {
		if c.listen {
			if s.listening == nil {
				s.listening = map[string]bool{}
			}
			s.listening[c.channel] = true
			l.listen(s, c.channel)
		} else {
			delete(s.listening, c.channel)
			l.unlisten(s, c.channel)
		}
	}
	for _, n := range st.notes {
		l.deliver(n)
	}
}

// unlistenAll stops every LISTEN of the session (its end, DISCARD ALL).
func (s *Session) unlistenAll() {
	channels := make([]string, 0, len(s.listening))
	for c := range s.listening {
		channels = append(channels, c)
	}
	s.engine.listeners.unlistenAll(s, channels)
	s.listening = nil
}

// Notifications takes the notifications that reached the session and
// were not taken yet, oldest first. The wire layer sends them between
// transactions, as PostgreSQL does.
func (s *Session) Notifications() []Notification { return s.inbox.take() }

// OnNotify sets the function called (on the sending session's goroutine)
// when a notification reaches the session, so that a connection waiting
// for its client can send it at once.
func (s *Session) OnNotify(wake func()) {
	s.inbox.mu.Lock()
	s.inbox.wake = wake
	s.inbox.mu.Unlock()
}
