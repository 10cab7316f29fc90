package wire

import (
	"sync/atomic"
	"time"

	"github.com/jackc/pgproto3/v2"

	"github.com/cairn-db/cairn/exec/session"
)

// Asynchronous notifications (LISTEN/NOTIFY, exec/session/notify.go) go
// to the client between transactions, as PostgreSQL sends them: before
// ReadyForQuery when the session is idle, and at once when one arrives
// while the connection waits for its client's next message outside a
// transaction (what pgx's WaitForNotification, psycopg's notifies() and
// node-postgres' 'notification' event wait for).

// notifyState is the connection's side of that: waiting is set while the
// connection's goroutine is blocked reading its client's next message,
// idle and with nothing buffered, so that another goroutine may write to
// the socket (under mu) without interleaving with it.
type notifyState struct {
	waiting bool
	// pending is set while a write started by notified has not taken
	// the session's notifications yet.
	pending atomic.Bool
}

// sendNotifications buffers the session's pending notifications when it
// is idle (called just before ReadyForQuery).
func (c *conn) sendNotifications() {
	if c.sess == nil || c.sess.TxStatus() != session.TxIdle {
		return
	}
	for _, n := range c.sess.Notifications() {
		c.send(&pgproto3.NotificationResponse{PID: uint32(n.PID), Channel: n.Channel, Payload: n.Payload})
	}
}

// beginWait marks the connection as waiting for its client while the
// session is idle and nothing is buffered, first writing what arrived
// since ReadyForQuery.
func (c *conn) beginWait() {
	if c.sess == nil || c.inCycle || len(c.out) > 0 || c.werr != nil || c.sess.TxStatus() != session.TxIdle {
		return
	}
	c.notifyMu.Lock()
	c.notify.waiting = true
	c.writeWaiting()
	c.notifyMu.Unlock()
}

// endWait ends what beginWait began: a message came (or the read failed),
// and the connection's goroutine writes again.
func (c *conn) endWait() {
	c.notifyMu.Lock()
	c.notify.waiting = false
	c.notifyMu.Unlock()
}

// notified is the session's OnNotify hook, called on the sending
// session's goroutine: the write happens on a goroutine of its own, so
// that a client that does not read cannot stall the sender's commit.
// At most one such goroutine is pending per connection: a burst of
// notifications to a client that does not read (whose write blocks up to
// the write timeout) starts one, not one each.
func (c *conn) notified() {
	if !c.notify.pending.CompareAndSwap(false, true) {
		return
	}
	go func() {
		c.notifyMu.Lock()
		defer c.notifyMu.Unlock()
		// Notifications that arrive from here on start another write;
		// those before are taken by this one.
		c.notify.pending.Store(false)
		if c.notify.waiting {
			c.writeWaiting()
		}
	}()
}

// writeWaiting writes the session's pending notifications straight to the
// socket while the connection waits (notifyMu held). A failed write leaves
// the socket broken, which the waiting read then reports.
func (c *conn) writeWaiting() {
	notes := c.sess.Notifications()
	if len(notes) == 0 {
		return
	}
	var buf []byte
	for _, n := range notes {
		buf, _ = (&pgproto3.NotificationResponse{PID: uint32(n.PID), Channel: n.Channel, Payload: n.Payload}).Encode(buf)
	}
	c.nc.SetWriteDeadline(time.Now().Add(c.srv.writeTimeout()))
	if _, err := c.w.Write(buf); err != nil {
		c.nc.Close()
	}
}
