package wire

import (
	"bytes"
	"encoding/binary"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// badMessage is a message whose frame was right (a known type, a length
// within bounds, the whole body read) but whose body is malformed. As in
// PostgreSQL the connection goes on: the message fails with ERROR 08P01,
// and in the extended protocol the messages up to Sync are skipped.
type badMessage struct {
	typ byte
	err *pgerr.Error
	// stmt is a Bind's prepared statement name, when the body holds it
	// (PostgreSQL looks the statement up before it reads on).
	stmt    string
	hasStmt bool
}

func (e *badMessage) Error() string { return e.err.Error() }

func (e *badMessage) Unwrap() error { return e.err }

// newBadMessage is the badMessage of a message of type typ with body
// whose fault is err.
func newBadMessage(typ byte, body []byte, err *pgerr.Error) *badMessage {
	bad := &badMessage{typ: typ, err: err}
	if typ == 'B' {
		if i := bytes.IndexByte(body, 0); i >= 0 {
			rest := body[i+1:]
			if j := bytes.IndexByte(rest, 0); j >= 0 {
				bad.stmt, bad.hasStmt = string(rest[:j]), true
			}
		}
	}
	return bad
}

// checkBody reads the body of a message of type typ as PostgreSQL's
// backend reads it (pq_getmsgstring, pq_getmsgint, pq_getmsgbytes,
// pq_getmsgend) and returns its complaint, in its words, about the first
// thing wrong: a string without its terminator, a field or a value that
// runs past the end, bytes left over. Nil for a well-formed body, and for
// the types it does not check (COPY's, Terminate, the password
// messages), which pgproto3's decoders judge alone.
func checkBody(typ byte, body []byte) *pgerr.Error {
	r := &bodyReader{b: body}
	switch typ {
	case 'Q':
		r.str()
	case 'P':
		r.str()
		r.str()
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			r.skip(4)
		}
	case 'B':
		r.str()
		r.str()
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			r.skip(2)
		}
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			if size := r.int32(); size != -1 {
				r.bytes(int64(size))
			}
		}
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			r.skip(2)
		}
	case 'F':
		r.skip(4)
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			r.skip(2)
		}
		for n := r.uint16(); n > 0 && r.err == nil; n-- {
			if size := r.int32(); size != -1 {
				r.bytes(int64(size))
			}
		}
		r.skip(2)
	case 'E':
		r.str()
		r.skip(4)
	case 'D', 'C':
		if len(r.b) == 0 {
			r.fail("no data left in message")
		}
		r.skip(1)
		r.str()
	case 'S', 'H':
	default:
		return nil
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("invalid message format")
	}
	return r.err
}

// bodyReader walks a message body; after the first complaint (err) it
// reads nothing more.
type bodyReader struct {
	b   []byte
	err *pgerr.Error
}

func (r *bodyReader) fail(msg string) {
	if r.err == nil {
		r.err = pgerr.New(pgerrcode.ProtocolViolation, "%s", msg)
	}
	r.b = nil
}

// str skips a NUL-terminated string.
func (r *bodyReader) str() {
	if r.err != nil {
		return
	}
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		r.fail("invalid string in message")
		return
	}
	r.b = r.b[i+1:]
}

// bytes skips n bytes of a value; a negative n runs past the end too.
func (r *bodyReader) bytes(n int64) {
	if r.err != nil {
		return
	}
	if n < 0 || n > int64(len(r.b)) {
		r.fail("insufficient data left in message")
		return
	}
	r.b = r.b[n:]
}

// skip skips a fixed-size field of n bytes.
func (r *bodyReader) skip(n int) { r.bytes(int64(n)) }

func (r *bodyReader) uint16() int {
	if r.err != nil || len(r.b) < 2 {
		r.skip(2)
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return int(v)
}

func (r *bodyReader) int32() int32 {
	if r.err != nil || len(r.b) < 4 {
		r.skip(4)
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}
