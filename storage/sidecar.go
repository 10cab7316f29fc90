package storage

// A segment's sidecar files (its text index, its vector indexes) share one
// frame: a magic string; the segment's row count, first and last row ID
// and file size (zig-zag varints), which tie the file to that segment; the
// body; a CRC-32C of everything before it. A sidecar is written to a
// temporary name, fsynced and renamed, and removed again if its segment
// was removed meanwhile; a sidecar that is missing, torn or written for
// another segment is rebuilt from the segment.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// sidecarCRC is the CRC-32C table of sidecar files.
var sidecarCRC = crc32.MakeTable(crc32.Castagnoli)

// sidecarHead starts a sidecar of seg: magic, then the segment's identity.
func sidecarHead(magic []byte, seg *segment) []byte {
	buf := append([]byte(nil), magic...)
	for _, v := range []int64{seg.rows, seg.minRow, seg.maxRow, seg.bytes} {
		buf = binary.AppendVarint(buf, v)
	}
	return buf
}

// writeSidecar seals buf (sidecarHead and the body) with its checksum and
// writes it to path, beside seg.
func writeSidecar(path string, seg *segment, buf []byte) error {
	return writeSidecarFunc(path, seg, buf, func(io.Writer) error { return nil })
}

// writeSidecarFunc is writeSidecar for a body that body streams after head
// (sidecarHead), so that a large one (a vector index) is never a second
// copy in memory.
func writeSidecarFunc(path string, seg *segment, head []byte, body func(w io.Writer) error) error {
	err := writeFileAtomicFunc(path, func(w io.Writer) error {
		sum := crc32.New(sidecarCRC)
		mw := io.MultiWriter(w, sum)
		if _, err := mw.Write(head); err != nil {
			return err
		}
		if err := body(mw); err != nil {
			return err
		}
		_, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
		return err
	})
	if err != nil {
		return err
	}
	if seg.gone() {
		os.Remove(path)
	}
	return nil
}

// readSidecar reads the sidecar at path of seg and returns its body, or an
// error: one wrapping os.ErrNotExist when there is none, one naming what
// (a kind of file, for messages) when it is corrupt or not seg's.
func readSidecar(path, what string, magic []byte, seg *segment) ([]byte, error) {
	if err := seg.local(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return checkSidecar(b, path, what, magic, seg)
}

// mapSidecar is readSidecar for a body the caller decodes into memory of
// its own (a vector index): the file is mapped rather than read onto the
// heap where the system allows, and release, which the caller calls when
// it is done with the body, unmaps it.
func mapSidecar(path, what string, magic []byte, seg *segment) (body []byte, release func(), err error) {
	if err := seg.local(path); err != nil {
		return nil, nil, err
	}
	b, unmap, err := mapFileReadOnly(path)
	if err != nil {
		return nil, nil, err
	}
	if body, err = checkSidecar(b, path, what, magic, seg); err != nil {
		unmap()
		return nil, nil, err
	}
	return body, unmap, nil
}

// checkSidecar checks b, the sidecar at path, and returns its body.
func checkSidecar(b []byte, path, what string, magic []byte, seg *segment) ([]byte, error) {
	corrupt := func(why string) error { return fmt.Errorf("corrupt %s %s: %s", what, path, why) }
	if len(b) < len(magic)+4 || !bytes.HasPrefix(b, magic) {
		return nil, corrupt("bad header")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, sidecarCRC) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, corrupt("checksum mismatch")
	}
	body = body[len(magic):]
	var head [4]int64
	for i := range head {
		v, n := binary.Varint(body)
		if n <= 0 {
			return nil, corrupt("bad header")
		}
		head[i] = v
		body = body[n:]
	}
	if head != [4]int64{seg.rows, seg.minRow, seg.maxRow, seg.bytes} {
		return nil, corrupt("written for another segment")
	}
	return body, nil
}
