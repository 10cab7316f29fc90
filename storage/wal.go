package storage

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The write-ahead log is a sequence of files wal/000001.log, 000002.log, ...
// Each holds records framed as [len u32][crc32c u32][payload], little
// endian, where crc32c covers the payload. A record is one committed
// transaction (or one sequence reservation); its payload starts with its
// LSN. Open starts a new file; a checkpoint starts a new file and deletes
// the older ones once everything they hold is in segments and catalog.json.

const walHeaderSize = 8

// maxWALRecord bounds a record's payload (the length field is 32 bits).
const maxWALRecord = 1<<32 - 1

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// walFile is the WAL file being appended to.
type walFile struct {
	f    *os.File
	path string
	seq  int
	size int64
}

func walFileName(seq int) string { return fmt.Sprintf("%06d.log", seq) }

// createWALFile creates wal file number seq in dir and fsyncs dir.
func createWALFile(dir string, seq int) (*walFile, error) {
	path := filepath.Join(dir, walFileName(seq))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return &walFile{f: f, path: path, seq: seq}, nil
}

// append writes one record; frame is walHeaderSize bytes of room for the
// header followed by the payload. It does not fsync.
func (w *walFile) append(frame []byte) error {
	payload := frame[walHeaderSize:]
	if len(payload) > maxWALRecord {
		return fmt.Errorf("wal record of %d bytes is too large", len(payload))
	}
	binary.LittleEndian.PutUint32(frame[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:], crc32.Checksum(payload, crcTable))
	n, err := w.f.Write(frame)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return nil
}

func (w *walFile) sync() error {
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", w.path, err)
	}
	return nil
}

func (w *walFile) close() error { return w.f.Close() }

// walFileRef names one existing WAL file.
type walFileRef struct {
	seq  int
	path string
}

// listWALFiles returns the WAL files in dir in order.
func listWALFiles(dir string) ([]walFileRef, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []walFileRef
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".log") || e.IsDir() {
			continue
		}
		seq, err := strconv.Atoi(strings.TrimSuffix(name, ".log"))
		if err != nil {
			continue
		}
		out = append(out, walFileRef{seq: seq, path: filepath.Join(dir, name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out, nil
}

// errTornRecord reports a record that is cut short or fails its checksum.
var errTornRecord = errors.New("torn or corrupt wal record")

// readWALFile calls fn with the payload of each record in path, in order.
// It returns the offset just past the last intact record; torn is true when
// the file continues past that offset with a record that is cut short or
// fails its checksum. An error from fn stops the read and is returned.
func readWALFile(path string, fn func(payload []byte) error) (good int64, torn bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	size := st.Size()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr [walHeaderSize]byte
	for {
		if good == size {
			return good, false, nil
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return good, true, nil
		}
		n := int64(binary.LittleEndian.Uint32(hdr[0:]))
		sum := binary.LittleEndian.Uint32(hdr[4:])
		if n == 0 || good+walHeaderSize+n > size {
			return good, true, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return good, true, nil
		}
		if crc32.Checksum(payload, crcTable) != sum {
			return good, true, nil
		}
		if err := fn(payload); err != nil {
			return good, false, err
		}
		good += walHeaderSize + n
	}
}
