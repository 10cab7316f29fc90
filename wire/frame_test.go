package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// header is a message header: type and length word.
func header(typ byte, length uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{typ}, length)
}

// TestMessageLengthRefusedAtHeader checks that a length out of bounds is
// refused with FATAL 08P01 "invalid message length" as soon as the header
// arrives (the body is never sent), and that only that connection ends.
func TestMessageLengthRefusedAtHeader(t *testing.T) {
	ts := startServer(t)
	bystander := ts.rawConnect(t)
	const badLength = "invalid message length"
	for name, c := range map[string]struct {
		raw  []byte
		want string
	}{
		"over 1 GiB":         {header('Q', 1<<30), badLength},
		"2 GiB":              {header('d', 0x7fffffff), badLength},
		"negative":           {header('P', 0x80000000), badLength},
		"all ones":           {header('B', 0xffffffff), badLength},
		"below 4":            {header('Q', 3), badLength},
		"zero":               {header('S', 0), badLength},
		"long Sync":          {header('S', smallMessageLimit+1), badLength},
		"long Execute":       {header('E', 1<<20), badLength},
		"long password":      {header('p', authMessageLimit+1), badLength},
		"unknown type (Z)":   {header('Z', 4), "invalid frontend message type 90"},
		"unknown type (NUL)": {header(0, 8), "invalid frontend message type 0"},
	} {
		rc := ts.rawConnect(t)
		start := time.Now()
		rc.write(c.raw)
		rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := rc.fe.Receive()
		elapsed := time.Since(start)
		e, ok := msg.(*pgproto3.ErrorResponse)
		if err != nil || !ok || e.Severity != "FATAL" || e.Code != "08P01" {
			t.Errorf("%s: got %#v %v, want FATAL 08P01", name, msg, err)
			continue
		}
		if e.Message != c.want {
			t.Errorf("%s: message %q, want %q", name, e.Message, c.want)
		}
		t.Logf("%s: refused in %v", name, elapsed)
		expect(t, name+": then closed", rc.readUntilClosed())
	}
	bystander.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "bystander", bystander.readUntilReady(), "RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestDeclaredLengthNotAllocated checks that a header declaring a body
// of nearly 1 GiB (within the limit) makes the server hold only what has
// arrived, not the declared length: pgproto3's chunk reader allocated it
// up front, so a handful of 5-byte headers took gigabytes.
func TestDeclaredLengthNotAllocated(t *testing.T) {
	ts := startServer(t)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const conns = 4
	for i := 0; i < conns; i++ {
		rc := ts.rawConnect(t)
		rc.write(append(header('Q', DefaultMaxMessageSize), "SELECT "...))
	}
	time.Sleep(300 * time.Millisecond) // let the server read the headers
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("heap in use grew by %d KiB for %d connections declaring 1 GiB each", grown>>10, conns)
	if grown > 64<<20 {
		t.Fatalf("heap in use grew by %d MiB for %d half-sent messages", grown>>20, conns)
	}
	// The connections are waiting for their bodies, not refused.
	bystander := ts.rawConnect(t)
	bystander.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "bystander", bystander.readUntilReady(), "RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestFrameReaderBodies reads messages of many sizes, arriving one byte
// at a time, and checks each body and that no slice handed out is
// overwritten by a later read.
func TestFrameReaderBodies(t *testing.T) {
	var stream []byte
	var want [][]byte
	for i, n := range []int{0, 1, 100, slabSize - 1, slabSize, slabSize + 1, directReadThreshold, directReadThreshold + 1, 1<<20 + 17, 5, 10, directReadThreshold + 1, 10, 7} {
		body := bytes.Repeat([]byte{byte('a' + i)}, n)
		want = append(want, body)
		stream = append(stream, header('d', uint32(n+4))...)
		stream = append(stream, body...)
	}
	for name, r := range map[string]*frameReader{
		"whole":    newFrameReader(bytes.NewReader(stream), DefaultMaxMessageSize),
		"one byte": newFrameReader(iotest.OneByteReader(bytes.NewReader(stream)), DefaultMaxMessageSize),
		"half":     newFrameReader(iotest.HalfReader(bytes.NewReader(stream)), DefaultMaxMessageSize),
	} {
		var got [][]byte
		for range want {
			hdr, err := r.Next(5)
			if err != nil {
				t.Fatalf("%s: header: %v", name, err)
			}
			body, err := r.Next(int(binary.BigEndian.Uint32(hdr[1:])) - 4)
			if err != nil {
				t.Fatalf("%s: body: %v", name, err)
			}
			got = append(got, body)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: body %d (%d bytes) differs", name, i, len(want[i]))
			}
		}
	}
}

// TestStartupPacketLength checks PostgreSQL's bounds on a start-up packet:
// 8 to 10,004 bytes, length word included.
func TestStartupPacketLength(t *testing.T) {
	ts := startServer(t)
	for _, n := range []uint32{0, 7, maxStartupPacket + 5, 1 << 30, 0xffffffff} {
		rc := ts.dial(t)
		rc.write(binary.BigEndian.AppendUint32(nil, n))
		rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := rc.fe.Receive()
		e, ok := msg.(*pgproto3.ErrorResponse)
		if err != nil || !ok || e.Code != "08P01" || e.Severity != "FATAL" || e.Message != "invalid length of startup packet" {
			t.Errorf("length %d: got %#v %v", n, msg, err)
		}
	}
}

// TestFrameReaderRandom reads a random mix of small and long messages
// through a reader that returns random amounts, keeping every body, and
// checks them all at the end: no body handed out is ever overwritten.
func TestFrameReaderRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var stream []byte
	var want [][]byte
	for i := range 300 {
		n := rng.IntN(200)
		if rng.IntN(8) == 0 {
			n = directReadThreshold - 100 + rng.IntN(1<<20)
		}
		body := make([]byte, n)
		for j := range body {
			body[j] = byte(i + j)
		}
		want = append(want, body)
		stream = append(stream, header('d', uint32(n+4))...)
		stream = append(stream, body...)
	}
	r := newFrameReader(&randomReader{data: stream, rng: rng}, DefaultMaxMessageSize)
	var got [][]byte
	for range want {
		hdr, err := r.Next(5)
		if err != nil {
			t.Fatal(err)
		}
		body, err := r.Next(int(binary.BigEndian.Uint32(hdr[1:])) - 4)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, body)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("body %d (%d bytes) differs", i, len(want[i]))
		}
	}
}

// randomReader returns between 1 byte and 100 KiB per Read.
type randomReader struct {
	data []byte
	rng  *rand.Rand
}

func (r *randomReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.data), 1+r.rng.IntN(100<<10))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}
