package storage

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-db/cairn/storage/objstore"
)

// writeFileAtomic replaces path with data so that a crash leaves either the
// old or the new content: write a temporary file, fsync it, rename it over
// path, fsync the directory.
func writeFileAtomic(path string, data []byte) error {
	return writeFileAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomicFunc is writeFileAtomic for content that write streams
// (through a buffer) instead of a byte slice.
func writeFileAtomicFunc(path string, write func(w io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return renameDurable(tmp, path)
}

// syncFile fsyncs the file at path.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// renameDurable renames from to to and fsyncs the directory of to.
func renameDurable(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	return syncDir(filepath.Dir(to))
}

// syncDir fsyncs a directory so that entries created, renamed or removed in
// it survive a crash; the local object store makes its writes durable the
// same way.
func syncDir(dir string) error { return objstore.SyncDir(dir) }

// mkdirAllDurable creates dir and its missing parents, fsyncing each parent
// whose entries changed.
func mkdirAllDurable(dir string) error { return objstore.MkdirAllDurable(dir) }
