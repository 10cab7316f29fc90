package objstore

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Local is a Store in a directory of the local filesystem: key "a/b" is the
// file dir/a/b. A write goes to a temporary file beside its target (named
// with a leading dot, which keys may not have), is fsynced, and is then
// renamed (Put, PutIfMatch) or hard-linked (PutIfAbsent, which link makes
// atomic) into place before the directory is fsynced, so a crash leaves the
// old or the new object. Unlike S3, a directory cannot hold both "a" and
// "a/b": the second put fails. A directory belongs to one process (storage locks
// the data directory): PutIfMatch compares and replaces under a lock of this
// process.
type Local struct {
	dir string
	// casMu makes PutIfMatch's compare and rename one step.
	casMu sync.Mutex
}

// NewLocal returns the store rooted at dir, creating dir if needed.
func NewLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("objstore: empty directory name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := MkdirAllDurable(abs); err != nil {
		return nil, fmt.Errorf("objstore: %w", err)
	}
	return &Local{dir: abs}, nil
}

// Dir returns the store's root directory.
func (l *Local) Dir() string { return l.dir }

// path maps a checked key to its file.
func (l *Local) path(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.dir, filepath.FromSlash(key)), nil
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	f, info, err := l.open(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	return ctxReadCloser{ctx: ctx, r: f, c: f}, info, nil
}

// GetRange implements Store.
func (l *Local) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if off < 0 || n <= 0 {
		return nil, fmt.Errorf("objstore: range %d+%d of %q: %w", off, n, key, ErrInvalidRange)
	}
	f, info, err := l.open(ctx, key)
	if err != nil {
		return nil, err
	}
	if off >= info.Size {
		f.Close()
		return nil, fmt.Errorf("objstore: range %d+%d of %q (%d bytes): %w", off, n, key, info.Size, ErrInvalidRange)
	}
	return ctxReadCloser{ctx: ctx, r: io.NewSectionReader(f, off, n), c: f}, nil
}

// open opens key's file, which must be a regular file.
func (l *Local) open(ctx context.Context, key string) (*os.File, Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, Info{}, err
	}
	p, err := l.path(key)
	if err != nil {
		return nil, Info{}, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, Info{}, notExist(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, Info{}, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return f, fileInfo(key, st), nil
}

// Stat implements Store.
func (l *Local) Stat(ctx context.Context, key string) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return Info{}, notExist(err)
	}
	if !st.Mode().IsRegular() {
		return Info{}, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return fileInfo(key, st), nil
}

// Put implements Store.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (Info, error) {
	p, tmp, err := l.writeTemp(ctx, key, r)
	if err != nil {
		return Info{}, err
	}
	return l.rename(key, tmp, p)
}

// PutIfAbsent implements Store: link(2) fails with EEXIST when the key
// exists, so exactly one of racing creators wins.
func (l *Local) PutIfAbsent(ctx context.Context, key string, r io.Reader) (Info, error) {
	p, tmp, err := l.writeTemp(ctx, key, r)
	if err != nil {
		return Info{}, err
	}
	defer os.Remove(tmp)
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Info{}, fmt.Errorf("objstore: put-if-absent %q: %w", key, ErrPreconditionFailed)
		}
		return Info{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return Info{}, err
	}
	// The link is the commit point; removing the temporary name after it
	// only tidies up, and the fsync makes the new name durable.
	if err := os.Remove(tmp); err != nil {
		return Info{}, err
	}
	if err := SyncDir(filepath.Dir(p)); err != nil {
		return Info{}, err
	}
	return fileInfo(key, st), nil
}

// PutIfMatch implements Store. It checks the ETag before writing, to fail
// fast, and again under the lock before the rename, to be right.
func (l *Local) PutIfMatch(ctx context.Context, key string, r io.Reader, etag string) (Info, error) {
	if err := l.checkETag(ctx, key, etag); err != nil {
		return Info{}, err
	}
	p, tmp, err := l.writeTemp(ctx, key, r)
	if err != nil {
		return Info{}, err
	}
	l.casMu.Lock()
	defer l.casMu.Unlock()
	if err := l.checkETag(ctx, key, etag); err != nil {
		os.Remove(tmp)
		return Info{}, err
	}
	return l.rename(key, tmp, p)
}

// checkETag fails with ErrPreconditionFailed unless key holds the version
// etag.
func (l *Local) checkETag(ctx context.Context, key, etag string) error {
	info, err := l.Stat(ctx, key)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && info.ETag != etag) {
		return fmt.Errorf("objstore: put-if-match %q: %w", key, ErrPreconditionFailed)
	}
	return err
}

// List implements Store. Directories do not order as keys do ("a/b" sorts
// after "a-c"), so List gathers the matching keys and sorts them.
func (l *Local) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
		infos, err := l.list(ctx, prefix)
		if err != nil {
			yield(Info{}, err)
			return
		}
		for _, in := range infos {
			if !yield(in, nil) {
				return
			}
		}
	}
}

func (l *Local) list(ctx context.Context, prefix string) ([]Info, error) {
	// Walk the deepest directory that every matching key lies under.
	root := l.dir
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		root = filepath.Join(l.dir, filepath.FromSlash(prefix[:i]))
	}
	var infos []Info
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(l.dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			// Skip a directory no key under which can match.
			if !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(key, prefix) {
			return nil
		}
		st, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted while listing
		}
		if err != nil {
			return err
		}
		infos = append(infos, fileInfo(key, st))
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Key, b.Key) })
	return infos, nil
}

// Delete implements Store.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(notExist(err), fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return SyncDir(filepath.Dir(p))
}

// writeTemp copies r into a new fsynced temporary file beside key's file,
// creating the directories on the way, and returns both paths.
func (l *Local) writeTemp(ctx context.Context, key string, r io.Reader) (path, tmp string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	path, err = l.path(key)
	if err != nil {
		return "", "", err
	}
	if err := MkdirAllDurable(filepath.Dir(path)); err != nil {
		return "", "", err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp = filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", "", err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	_, err = io.Copy(bw, ctxReader{ctx: ctx, r: r})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", "", fmt.Errorf("objstore: write %q: %w", key, err)
	}
	return path, tmp, nil
}

// rename moves the written temporary file tmp over path durably.
func (l *Local) rename(key, tmp, path string) (Info, error) {
	st, err := os.Stat(tmp)
	if err != nil {
		os.Remove(tmp)
		return Info{}, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return Info{}, err
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return Info{}, err
	}
	return fileInfo(key, st), nil
}

// notExist makes a path through a regular file ("a/b" where "a" is an
// object) a missing key, as it is in a flat namespace.
func notExist(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOTDIR) {
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fs.ErrNotExist}
	}
	return err
}

// fileInfo describes a regular file as an object version. Its ETag is the
// file's identity, modification time and size: every write makes a new
// file (a new inode) and renames it into place, so a replacement changes
// the ETag without the file being read.
func fileInfo(key string, st fs.FileInfo) Info {
	return Info{
		Key:  key,
		Size: st.Size(),
		ETag: fmt.Sprintf("%x-%x-%x", fileID(st), st.ModTime().UnixNano(), st.Size()),
	}
}

// SyncDir fsyncs a directory so that entries created, renamed or removed in
// it survive a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// MkdirAllDurable creates dir and its missing parents, fsyncing each parent
// whose entries changed.
func MkdirAllDurable(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := MkdirAllDurable(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	return SyncDir(parent)
}

// ctxReader fails a copy once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ctxReadCloser is a ctxReader that closes c.
type ctxReadCloser struct {
	ctx context.Context
	r   io.Reader
	c   io.Closer
}

func (c ctxReadCloser) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (c ctxReadCloser) Close() error { return c.c.Close() }
