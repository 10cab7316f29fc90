package wire

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// Message length limits, as PostgreSQL's (src/include/libpq/libpq.h and
// the maxmsglen choices in postgres.c): a start-up packet carries at most
// maxStartupPacket bytes after its length word, a message that has no
// reason to be long (Sync, Execute, Describe...) at most
// smallMessageLimit bytes, a password or SASL message at most
// authMessageLimit, and the rest (Query, Parse, Bind, CopyData) the
// server's MaxMessageSize.
const (
	maxStartupPacket  = 10000 // MAX_STARTUP_PACKET_LENGTH
	smallMessageLimit = 10000 // PQ_SMALL_MESSAGE_LIMIT
	authMessageLimit  = 65535 // PG_MAX_AUTH_TOKEN_LENGTH
)

// Read buffer sizes: small messages are cut from a shared slab of
// slabSize bytes; a body longer than directReadThreshold is read into a
// buffer of its own that starts at firstChunk bytes and doubles as the
// bytes arrive, so that what a connection holds for one message is at
// most about twice what the client has actually sent, whatever length it
// declared (a 50 MB body costs 12 doublings, some 100 MB of copying).
const (
	slabSize            = 8 << 10
	directReadThreshold = 64 << 10
	firstChunk          = 16 << 10
)

// frameReader is the pgproto3.ChunkReader under the connection's Backend.
// pgproto3's own (jackc/chunkreader) allocates a message's declared length
// up front, before the body arrives: a 20-byte packet declaring 1 GiB
// would make the server allocate 1 GiB. frameReader instead checks each
// message header as soon as it is read (a known type, a length within
// that type's limit) and reads a long body progressively.
//
// Backend.Receive calls Next twice per message, first for the 5-byte
// header and then for the body; inBody tracks which one comes next.
type frameReader struct {
	r      io.Reader
	max    int // the longest message accepted, length word included
	buf    []byte
	rp, wp int // unread data is buf[rp:wp]
	inBody bool
	// failed is set once reading failed (the client left, a timeout, a
	// header out of bounds): an error the Backend returns when failed is
	// clear is its decoder's, a malformed body.
	failed bool
	// typ and body are the type and body of the message read last
	// (body valid as long as what Next returned), for checkBody.
	typ  byte
	body []byte
	// borrow is set while the bodies read are cut from copyBuf, reused
	// once they are consumed (see setBorrow).
	borrow  bool
	copyBuf []byte
}

// copyBufSize is the buffer of a COPY FROM's messages: reads of the
// connection that large.
const copyBufSize = 256 << 10

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: r, max: max}
}

// syncNext reports whether the next message, already read from the
// connection, is a Sync (between messages; false when its header has not
// arrived yet).
func (f *frameReader) syncNext() bool {
	if f.inBody || f.wp-f.rp < 5 {
		return false
	}
	b := f.buf[f.rp:f.wp]
	return b[0] == 'S' && binary.BigEndian.Uint32(b[1:5]) == 4
}

// Next implements pgproto3.ChunkReader: the returned slice belongs to the
// caller and is never reused, unless borrowing (see setBorrow).
func (f *frameReader) Next(n int) (b []byte, err error) {
	defer func() { f.failed = f.failed || err != nil }()
	if f.inBody {
		f.inBody = false
		f.body, err = f.read(n)
		return f.body, err
	}
	hdr, err := f.read(n)
	if err != nil || n != 5 {
		return hdr, err
	}
	if err := f.checkHeader(hdr[0], int32(binary.BigEndian.Uint32(hdr[1:]))); err != nil {
		return nil, err
	}
	f.inBody, f.typ, f.body = true, hdr[0], nil
	return hdr, nil
}

// checkHeader refuses an unknown message type or a length outside the
// type's limits, before any byte of the body is read.
func (f *frameReader) checkHeader(typ byte, length int32) error {
	limit := f.max
	switch typ {
	case 'Q', 'P', 'B', 'F', 'd':
	case 'C', 'D', 'E', 'H', 'S', 'X', 'c', 'f':
		limit = min(limit, smallMessageLimit)
	case 'p':
		limit = min(limit, authMessageLimit)
	default:
		return pgerr.New(pgerrcode.ProtocolViolation, "invalid frontend message type %d", typ)
	}
	if length < 4 || int64(length) > int64(limit) {
		return &lengthError{typ: typ, length: int64(length), limit: limit}
	}
	return nil
}

// startupPacket reads one start-up packet (SSLRequest, StartupMessage,
// CancelRequest...) and returns its body, at least the 4-byte code. A
// length outside PostgreSQL's bounds is refused before the body is read.
func (f *frameReader) startupPacket() ([]byte, error) {
	hdr, err := f.read(4)
	if err != nil {
		return nil, err
	}
	n := int64(int32(binary.BigEndian.Uint32(hdr))) - 4
	if n < 4 || n > maxStartupPacket {
		return nil, pgerr.New(pgerrcode.ProtocolViolation, "invalid length of startup packet").
			WithDetail("the packet declares %d bytes; a start-up packet has 8 to %d", n+4, maxStartupPacket+4)
	}
	return f.read(int(n))
}

// buffered is how many bytes were read from the connection and not yet
// consumed.
func (f *frameReader) buffered() int { return f.wp - f.rp }

// setBorrow starts (on) or ends borrowing: meanwhile what Next returns is
// valid only until the next call, as the bytes are read into one buffer
// that is reused once they are consumed. A COPY FROM borrows: it copies
// each CopyData's payload out before it reads the next message, and its
// data (most of what a server reads) then costs no allocation and comes
// in large reads. The unread bytes move into the buffer of the new mode.
func (f *frameReader) setBorrow(on bool) {
	if on == f.borrow {
		return
	}
	f.borrow = on
	var dst []byte
	switch {
	case f.wp-f.rp > copyBufSize:
		dst = make([]byte, f.wp-f.rp)
	case on:
		if f.copyBuf == nil {
			f.copyBuf = make([]byte, copyBufSize)
		}
		dst = f.copyBuf
	default:
		dst = make([]byte, max(slabSize, f.wp-f.rp))
	}
	f.wp, f.rp, f.buf = copy(dst, f.buf[f.rp:f.wp]), 0, dst
}

// read returns the next n bytes.
func (f *frameReader) read(n int) ([]byte, error) {
	if f.wp-f.rp >= n {
		b := f.buf[f.rp : f.rp+n : f.rp+n]
		f.rp += n
		return b, nil
	}
	if n > directReadThreshold {
		return f.readLong(n)
	}
	if f.borrow && f.rp == f.wp {
		f.rp, f.wp = 0, 0
	}
	if len(f.buf)-f.rp < n {
		// Start a new slab (the old one stays with the slices handed out
		// of it) holding the unread rest; when borrowing, move the rest to
		// the start of the buffer.
		var slab []byte
		if f.borrow && n <= len(f.buf) {
			slab = f.buf
		} else {
			slab = make([]byte, max(slabSize, n))
		}
		f.wp = copy(slab, f.buf[f.rp:f.wp])
		f.rp = 0
		f.buf = slab
	}
	m, err := io.ReadAtLeast(f.r, f.buf[f.wp:], n-(f.wp-f.rp))
	f.wp += m
	if err != nil {
		return nil, err
	}
	b := f.buf[f.rp : f.rp+n : f.rp+n]
	f.rp += n
	return b, nil
}

// readLong reads a long body into a buffer of its own that grows as the
// bytes arrive, never reading past the body.
func (f *frameReader) readLong(n int) ([]byte, error) {
	out := make([]byte, 0, max(min(n, firstChunk), f.wp-f.rp))
	out = append(out, f.buf[f.rp:f.wp]...)
	f.rp = f.wp // the slab's free space stays after wp: what it handed out is never overwritten
	for len(out) < n {
		if len(out) == cap(out) {
			grown := make([]byte, len(out), min(n, 2*cap(out)))
			copy(grown, out)
			out = grown
		}
		m, err := f.r.Read(out[len(out):cap(out)])
		out = out[:len(out)+m]
		if err != nil && len(out) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return out, nil
}

// lengthError is a message header whose length is out of bounds.
type lengthError struct {
	typ    byte
	length int64
	limit  int
}

func (e *lengthError) Error() string {
	return fmt.Sprintf("message of type %q declares %d bytes; the limit is %d", e.typ, e.length, e.limit)
}

// pgError is what the client is told: PostgreSQL's "invalid message
// length", with the numbers in the detail.
func (e *lengthError) pgError() *pgerr.Error {
	return pgerr.New(pgerrcode.ProtocolViolation, "invalid message length").WithDetail("%s", e.Error())
}
