package storage

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
)

// A record that is cut short or fails its checksum is what a crash in the
// middle of a write leaves at the end of the log: recovery drops it (the
// commit was never acknowledged). The same damage followed by intact
// records is not a crash artifact: the records after it were acknowledged,
// so recovery refuses to start rather than lose them silently.

// walScanWindow bounds how far from the last good record's LSN a later
// record's LSN may be for findIntactRecord to consider it.
const walScanWindow = 1 << 20

// findIntactRecord looks for a well-formed record (plausible length, WAL
// version byte, an LSN near lastLSN, matching checksum) anywhere in path
// after offset from. It returns the offset of the first one.
func findIntactRecord(path string, from int64, lastLSN uint64) (int64, bool, error) {
	lo := uint64(0)
	if lastLSN > walScanWindow {
		lo = lastLSN - walScanWindow
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false, err
	}
	if from >= int64(len(data)) {
		return 0, false, nil
	}
	for o := from + 1; o+walHeaderSize+9 <= int64(len(data)); o++ {
		p := data[o+walHeaderSize:]
		if p[0] != walVersion {
			continue
		}
		lsn := binary.LittleEndian.Uint64(p[1:9])
		if lsn <= lo || lsn > lastLSN+walScanWindow {
			continue
		}
		n := int64(binary.LittleEndian.Uint32(data[o:]))
		if n < 9 || o+walHeaderSize+n > int64(len(data)) {
			continue
		}
		if crc32.Checksum(data[o+walHeaderSize:o+walHeaderSize+n], crcTable) == binary.LittleEndian.Uint32(data[o+4:]) {
			return o, true, nil
		}
	}
	return 0, false, nil
}

// checkWALTail decides what to do with a bad record at offset good of
// files[i]: nil when it ends the log (everything after it is damage or a
// torn write, to be dropped), an error naming the file when intact records
// follow it, in this file or a later one.
func checkWALTail(files []walFileRef, i int, good int64, lastLSN uint64) error {
	f := files[i]
	off, found, err := findIntactRecord(f.path, good, lastLSN)
	if err != nil {
		return err
	}
	if found {
		return fmt.Errorf("wal %s: corrupt record at offset %d, followed by an intact record at offset %d: "+
			"refusing to start, since transactions committed after the damaged one would be lost; "+
			"to start anyway without them, truncate the file to %d bytes and move any later wal file away",
			f.path, good, off, good)
	}
	for _, later := range files[i+1:] {
		n, _, err := readWALFile(later.path, func([]byte) error { return nil })
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("wal %s: corrupt record at offset %d, followed by wal file %s holding intact records: "+
				"refusing to start, since transactions committed after the damaged one would be lost; "+
				"to start anyway without them, truncate %s to %d bytes and move the later wal files away",
				f.path, good, later.path, f.path, good)
		}
	}
	return nil
}
