package wire

// http_admit.go admits a request to the HTTP API: its body is read whole
// first, under deadlines of its own, and only then does it take one of
// the --http-max-concurrency slots; its answer is written under a write
// deadline. A client that trickles or stalls its body, or stops reading
// its answer, so holds at most its connection, not for long a slot that
// another client's request could have run in.

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// DefaultBodyIdleTimeout bounds the wait for the next bytes of a request
// body when HTTPOptions.BodyIdleTimeout is 0: as Apache's mod_reqtimeout
// waits 20 seconds for a body's data.
const DefaultBodyIdleTimeout = 20 * time.Second

// DefaultBodyTimeout bounds reading a whole request body when
// HTTPOptions.BodyTimeout is 0: enough for the largest body the API takes
// (DefaultMaxBodyBytes, 64 MiB) over a link of about 1 Mbit/s.
const DefaultBodyTimeout = 10 * time.Minute

// uiMaxBody bounds a request body of the memory explorer, whose forms
// (its login, a signal to a backend) are a few short fields: its
// requests are read before the explorer checks their cookie.
const uiMaxBody = 1 << 20

// bufferedBody is a request body that admit has read whole; readBody
// takes its bytes without copying them.
type bufferedBody struct {
	*bytes.Reader
	buf []byte
}

func (*bufferedBody) Close() error { return nil }

// admit reads r's body whole (readAll: at most limit bytes, under the
// body deadlines), then takes a slot: at most MaxConcurrency requests run
// at once, and one more is answered at once with 503, Retry-After and
// 53300, as PostgreSQL refuses a connection beyond max_connections. It
// reports whether the request was admitted, with the writer its answer
// goes through (pacedWriter) and the function that gives its slot and its
// body's bytes back; when not, the answer has been written.
func (a *httpAPI) admit(w http.ResponseWriter, r *http.Request, limit int64) (_ http.ResponseWriter, release func(), ok bool) {
	held, err := a.readAll(w, r, limit)
	if err != nil {
		a.unhold(held)
		a.fail(w, err)
		return nil, nil, false
	}
	select {
	case a.slots <- struct{}{}:
		return &pacedWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: a.writeTimeout}, func() {
			<-a.slots
			a.unhold(held)
		}, true
	default:
		a.unhold(held)
		a.fail(w, errBusy(strconv.Itoa(cap(a.slots))+" requests at once"))
		return nil, nil, false
	}
}

// bodyHold is what one request body counts in httpAPI.buffered and
// httpAPI.preallocated.
type bodyHold struct{ read, prealloc int64 }

// unhold gives back what a request body counted.
func (a *httpAPI) unhold(h bodyHold) {
	a.buffered.Add(-h.read)
	a.preallocated.Add(-h.prealloc)
}

// errBusy is the 503 of a request that the server is too busy to take:
// it serves at most what at once.
func errBusy(what string) error {
	return &requestError{http.StatusServiceUnavailable, codeBusy, pgerr.New(pgerrcode.TooManyConnections, "sorry, too many concurrent HTTP requests already").
		WithHint("The server serves at most %s (--http-max-concurrency); retry later.", what)}
}

// admitted wraps a handler that authenticates its requests itself (the
// memory explorer) in admit, with a body of at most limit bytes.
func (a *httpAPI) admitted(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w, release, ok := a.admit(w, r, limit)
		if !ok {
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// readAll replaces r's body with its bytes, read whole: a body over limit
// is a 413; one whose next bytes do not come within bodyIdle, or that is
// not all there bodyTimeout after admit began reading it, is a 408 with
// SQLSTATE 57P05 (as an idle session is ended), and its connection is
// closed. The deadlines are the connection's read deadline, moved on
// before each read; net/http clears it once the body has been read, so
// that a statement then runs, and its client may wait for it, as long as
// the statement's own timeout lets it.
//
// The bytes of the bodies read and not yet answered, counted in
// a.buffered as they come, stay within a.bodyBudget: a body that would
// take more is a 503 (53300), as a request beyond the slots is. Only
// bytes received count there, so that clients announcing large bodies
// and sending them slowly keep no one else out. The room allocated ahead
// for announced lengths, counted in a.preallocated, stays within
// a.bodyBudget too; past it a body's buffer grows as its bytes come.
// held is what r's body counted, the caller's to give back (unhold),
// error or not.
func (a *httpAPI) readAll(w http.ResponseWriter, r *http.Request, limit int64) (held bodyHold, err error) {
	var buf bytes.Buffer
	if r.Body == nil || r.Body == http.NoBody {
		// Nothing to wait for: no deadline is set, which would outlive
		// the request (net/http has already cleared the connection's).
		r.Body = &bufferedBody{bytes.NewReader(nil), nil}
		return held, nil
	}
	if n := min(r.ContentLength, limit, maxBodyPrealloc); n > 0 {
		// One allocation for a body of announced length, rather than
		// ReadAll's growth and copies (a tenth of an ingest's time);
		// MinRead is the room ReadFrom wants to see the end.
		if a.preallocated.Add(n) <= a.bodyBudget {
			held.prealloc = n
			buf.Grow(int(n) + bytes.MinRead)
		} else {
			a.preallocated.Add(-n)
		}
	}
	body := &pacedBody{body: http.MaxBytesReader(w, r.Body, limit), rc: http.NewResponseController(w),
		idle: a.bodyIdle, end: time.Now().Add(a.bodyTimeout), api: a}
	_, err = buf.ReadFrom(body)
	held.read = body.read
	if err != nil {
		var busy *requestError
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			return held, &requestError{http.StatusRequestTimeout, codeTimeout, pgerr.New(pgerrcode.IdleSessionTimeout,
				"request body not received in time: no data for %s, or not all of it within %s", a.bodyIdle, a.bodyTimeout)}
		case errors.As(err, &busy):
			// Not all read: the connection cannot take another request.
			w.Header().Set("Connection", "close")
			return held, err
		}
		return held, bodyError(err)
	}
	// net/http has cleared the deadline at the body's end already; an
	// HTTP/2 stream keeps it.
	body.rc.SetReadDeadline(time.Time{})
	r.Body = &bufferedBody{bytes.NewReader(buf.Bytes()), buf.Bytes()}
	return held, nil
}

// pacedBody reads a request body under the deadlines of readAll, and
// counts its bytes in api.buffered as they come.
type pacedBody struct {
	body io.Reader
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
	api  *httpAPI
	read int64 // bytes read, and counted in api.buffered
}

func (p *pacedBody) Read(b []byte) (int, error) {
	deadline := time.Now().Add(p.idle)
	if deadline.After(p.end) {
		deadline = p.end
	}
	// A connection that cannot take a deadline (none of net/http's
	// own) is read as it is.
	p.rc.SetReadDeadline(deadline)
	n, err := p.body.Read(b)
	p.read += int64(n)
	if p.api.buffered.Add(int64(n)) > p.api.bodyBudget {
		return n, errBusy(strconv.FormatInt(p.api.bodyBudget>>20, 10) + " MiB of request bodies at once")
	}
	return n, err
}

// writeChunk is the most of a response pacedWriter writes under one
// deadline: a client reading at writeChunk bytes per write timeout, however
// slowly that is, is never cut off.
const writeChunk = 64 << 10

// pacedWriter writes a response in pieces of at most writeChunk bytes,
// each under a write deadline timeout away: a client that stops reading
// its answer while the socket's buffers are full loses its connection
// then, as a PostgreSQL client does after Server.WriteTimeout, and its
// request gives its slot back, instead of keeping it for as long as the
// client keeps the connection. The deadline bounds the flush net/http
// does after the handler too; net/http clears it then, before the next
// request on a kept-alive connection.
type pacedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (p *pacedWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		// A connection that cannot take a deadline (none of net/http's
		// own) is written as it is.
		p.rc.SetWriteDeadline(time.Now().Add(p.timeout))
		k, err := p.ResponseWriter.Write(b[:min(len(b), writeChunk)])
		n += k
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// Flush sends what the response has buffered, under the deadline too
// (the MCP SDK flushes the events it streams).
func (p *pacedWriter) Flush() {
	p.rc.SetWriteDeadline(time.Now().Add(p.timeout))
	p.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (p *pacedWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }
