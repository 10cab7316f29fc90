package session

import (
	"fmt"
	"sync"
	"time"

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

// DefaultNotifyQueueBytes is the NOTIFY queue's size when Options gives
// none.
const DefaultNotifyQueueBytes = 256 << 20

// The NOTIFY queue. PostgreSQL keeps every committed notification in one
// queue (8 GB of pages on disk) until the slowest listening session has
// read it; when a commit would overflow it, the commit fails with 54000
// "too many notifications in the NOTIFY queue", and past half full each
// sender is warned who holds it back. cairn hands a committed
// notification to the inbox of each session listening on its channel,
// where it stays until that session is idle, so a listener that sits in
// an open transaction (or never reads) holds notifications in memory as
// PostgreSQL's holds queue pages: the queue here is the bytes the inboxes
// hold, each notification counted once however many inboxes share it
// (noteBytes, with slotBytes per inbox), bounded by Options'
// NotifyQueueBytes, and a commit that would overflow it fails as in
// PostgreSQL. A transaction's own notifications, kept until it commits,
// never exceed that bound either (they could not commit).

// noteBytes is what a notification takes in the queue: its strings and
// the bookkeeping around them.
func noteBytes(n Notification) int64 { return int64(len(n.Channel)+len(n.Payload)) + 96 }

// slotBytes is what one inbox's reference to a notification takes.
const slotBytes = 16

// queuedNote is a committed notification in the inboxes of refs sessions.
type queuedNote struct {
	Notification
	refs int32 // under listeners.mu
}

// listeners is the engine's map of channels to the sessions listening,
// and the NOTIFY queue's accounting.
type listeners struct {
	mu sync.Mutex
	by map[string]map[*Session]struct{}
	// queued is the bytes the inboxes hold and committing transactions
	// reserved; max bounds it.
	queued, max int64
	// warned is when a sender was last warned that the queue is half
	// full (PostgreSQL warns at most every 5 seconds).
	warned time.Time
}

// errQueueFull is PostgreSQL's error for a commit the NOTIFY queue cannot
// take.
func errQueueFull() error {
	return pgerr.New(pgerrcode.ProgramLimitExceeded, "too many notifications in the NOTIFY queue")
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

// reserve takes n bytes of the queue for a transaction about to commit,
// or fails with 54000 when they do not fit. Past half full it returns the
// warning PostgreSQL gives the sender (at most every 5 seconds), naming
// a session whose inbox holds the most.
func (l *listeners) reserve(n int64) (*Notice, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.queued+n > l.max {
		return nil, errQueueFull()
	}
	l.queued += n
	if l.queued*2 < l.max || time.Since(l.warned) < 5*time.Second {
		return nil, nil
	}
	l.warned = time.Now()
	w := &Notice{Severity: "WARNING", Code: pgerrcode.Warning,
		Message: fmt.Sprintf("NOTIFY queue is %.0f%% full", 100*float64(l.queued)/float64(l.max))}
	var most *Session
	var mostBytes int64
	for _, ss := range l.by {
		for s := range ss {
			if b := s.inbox.held(); b > mostBytes {
				most, mostBytes = s, b
			}
		}
	}
	if most != nil {
		w.Detail = fmt.Sprintf("The server process with PID %d is among those with the oldest transactions.", most.pid)
	}
	return w, nil
}

// release gives n reserved bytes back.
func (l *listeners) release(n int64) {
	if n == 0 {
		return
	}
	l.mu.Lock()
	l.queued -= n
	l.mu.Unlock()
}

// usage is pg_notification_queue_usage(): the fraction of the queue in
// use.
func (l *listeners) usage() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max <= 0 {
		return 0
	}
	return float64(l.queued) / float64(l.max)
}

// deliver hands notes, for which a committed transaction reserved
// reserved bytes, to every session listening on each one's channel,
// charging the queue what they take in place of the reservation. The
// inboxes are filled under mu, so that a session that stops listening
// (and empties its inbox, as one that ends does) either is no target or
// finds them there: none is left in the inbox of a session gone.
func (l *listeners) deliver(notes []Notification, reserved int64) {
	type delivery struct {
		s     *Session
		notes []*queuedNote
	}
	l.mu.Lock()
	l.queued -= reserved
	var to []delivery
	at := map[*Session]int{}
	for _, n := range notes {
		ss := l.by[n.Channel]
		if len(ss) == 0 {
			continue
		}
		q := &queuedNote{Notification: n, refs: int32(len(ss))}
		l.queued += noteBytes(n) + slotBytes*int64(len(ss))
		for s := range ss {
			i, ok := at[s]
			if !ok {
				i = len(to)
				at[s] = i
				to = append(to, delivery{s: s})
			}
			to[i].notes = append(to[i].notes, q)
		}
	}
	wakes := make([]func(), 0, len(to))
	for _, d := range to {
		if wake := d.s.inbox.add(d.notes); wake != nil {
			wakes = append(wakes, wake)
		}
	}
	l.mu.Unlock()
	for _, wake := range wakes {
		wake()
	}
}

// drop gives back the queue space of notes taken from one inbox.
func (l *listeners) drop(notes []*queuedNote) {
	if len(notes) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range notes {
		l.queued -= slotBytes
		if q.refs--; q.refs == 0 {
			l.queued -= noteBytes(q.Notification)
		}
	}
}

// inbox is a session's notifications not yet sent to its client; other
// sessions' commits add to it.
type inbox struct {
	mu    sync.Mutex
	notes []*queuedNote
	bytes int64
	wake  func()
}

// add puts notes in the inbox, returning the function that tells its
// connection (to call once no lock is held), if any.
func (b *inbox) add(notes []*queuedNote) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notes = append(b.notes, notes...)
	for _, q := range notes {
		b.bytes += noteBytes(q.Notification)
	}
	return b.wake
}

// take empties the inbox, returning what it held.
func (b *inbox) take() []*queuedNote {
	b.mu.Lock()
	defer b.mu.Unlock()
	notes := b.notes
	b.notes, b.bytes = nil, 0
	return notes
}

// held is the bytes of the notifications in the inbox.
func (b *inbox) held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

// forget takes out of the inbox the notifications whose channel drop
// reports true (all of them when drop is nil), returning them.
func (b *inbox) forget(drop func(channel string) bool) []*queuedNote {
	b.mu.Lock()
	defer b.mu.Unlock()
	if drop == nil {
		notes := b.notes
		b.notes, b.bytes = nil, 0
		return notes
	}
	var gone []*queuedNote
	kept := b.notes[:0]
	for _, q := range b.notes {
		if drop(q.Channel) {
			gone = append(gone, q)
			b.bytes -= noteBytes(q.Notification)
		} else {
			kept = append(kept, q)
		}
	}
	clear(b.notes[len(kept):])
	b.notes = kept
	return gone
}

// notifyState is what the session's open transaction has asked of
// LISTEN/NOTIFY, applied when tx commits.
type notifyState struct {
	tx    *storage.Tx
	notes []Notification
	// sent indexes notes, which hold each distinct notification once;
	// bytes is their size in the queue, reserved of which the queue
	// holds for the commit.
	sent            map[Notification]struct{}
	bytes, reserved int64
	changes         []listenChange
	unlisten        bool // UNLISTEN * came first, then changes
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
		s.forgetNotify()
		s.notify = notifyState{tx: tx}
	}
	return &s.notify, nil
}

// forgetNotify drops what the session's transaction asked of
// LISTEN/NOTIFY (it did not commit), giving back its reservation.
func (s *Session) forgetNotify() {
	s.engine.listeners.release(s.notify.reserved)
	s.notify = notifyState{}
}

// reserveNotify takes the queue space of tx's notifications not reserved
// yet, before it commits: 54000 when the queue cannot take them.
func (s *Session) reserveNotify(tx *storage.Tx) error {
	st := &s.notify
	if st.tx != tx || st.bytes == st.reserved {
		return nil
	}
	w, err := s.engine.listeners.reserve(st.bytes - st.reserved)
	if err != nil {
		return err
	}
	st.reserved = st.bytes
	if w != nil {
		s.notices = append(s.notices, *w)
	}
	return nil
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
		s.forgetNotify()
		s.notify = notifyState{tx: m.tx}
		return
	}
	st := &s.notify
	for _, n := range st.notes[m.notes:] {
		delete(st.sent, n)
		st.bytes -= noteBytes(n)
	}
	clear(st.notes[m.notes:])
	st.notes = st.notes[:m.notes]
	if st.reserved > st.bytes {
		s.engine.listeners.release(st.reserved - st.bytes)
		st.reserved = st.bytes
	}
	st.changes = st.changes[:m.changes]
	st.unlisten = m.unlisten
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

// queueNotify is NOTIFY channel, payload in tx. A transaction's
// notifications that could not fit in the queue even were it empty fail
// here rather than at its commit, so that they are never all held; an
// autocommit statement's (s.tx nil) take their queue space at once,
// since the end of a read-only statement cannot fail.
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
	if _, dup := st.sent[n]; dup {
		return nil
	}
	b := noteBytes(n)
	if st.bytes+b > s.engine.listeners.max {
		return errQueueFull()
	}
	if st.sent == nil {
		st.sent = map[Notification]struct{}{}
	}
	st.sent[n] = struct{}{}
	st.notes = append(st.notes, n)
	st.bytes += b
	if s.tx == nil {
		return s.reserveNotify(tx)
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
// sends its notifications. Notifications that reached the session on a
// channel it no longer listens on are not sent to its client, as
// PostgreSQL checks the channel when the session reads the queue.
func (s *Session) committedNotify(tx *storage.Tx) {
	if s.notify.tx != tx {
		return
	}
	st := s.notify
	s.notify = notifyState{}
	l := &s.engine.listeners
	stopped := st.unlisten
	if st.unlisten {
		s.stopListening()
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
			stopped = true
		}
	}
	if stopped {
		l.drop(s.inbox.forget(func(channel string) bool { return !s.listening[channel] }))
	}
	l.deliver(st.notes, st.reserved)
}

// unlistenAll stops every LISTEN of the session (its end, DISCARD ALL),
// dropping the notifications it has not sent yet.
func (s *Session) unlistenAll() {
	s.stopListening()
	s.engine.listeners.drop(s.inbox.forget(nil))
}

// stopListening takes the session off every channel it listens on.
func (s *Session) stopListening() {
	for c := range s.listening {
		s.engine.listeners.unlisten(s, c)
	}
	s.listening = nil
}

// Notifications takes the notifications that reached the session and
// were not taken yet, oldest first. The wire layer sends them between
// transactions, as PostgreSQL does.
func (s *Session) Notifications() []Notification {
	notes := s.inbox.take()
	if len(notes) == 0 {
		return nil
	}
	s.engine.listeners.drop(notes)
	out := make([]Notification, len(notes))
	for i, q := range notes {
		out[i] = q.Notification
	}
	return out
}

// OnNotify sets the function called (on the sending session's goroutine)
// when a notification reaches the session, so that a connection waiting
// for its client can send it at once.
func (s *Session) OnNotify(wake func()) {
	s.inbox.mu.Lock()
	s.inbox.wake = wake
	s.inbox.mu.Unlock()
}

// NotifyQueueUsage implements functions.NotifyQueueUser:
// pg_notification_queue_usage().
func (e *statementEnv) NotifyQueueUsage() float64 { return e.sess.engine.listeners.usage() }
