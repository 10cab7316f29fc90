package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"net/url"
	"strings"
)

// Store is a flat namespace of immutable-by-convention objects named by
// '/'-separated keys. Every method is safe for concurrent use, honours ctx
// (a cancelled context fails the call with ctx's error and leaves no
// partial object behind), and reports a missing object with an error that
// matches ErrNotExist under errors.Is.
type Store interface {
	// Get opens the whole object for reading; the caller closes the reader.
	// Info describes the version being read.
	Get(ctx context.Context, key string) (io.ReadCloser, Info, error)
	// GetRange opens bytes [off, off+n) of the object, cut short at its end;
	// the caller closes the reader. An off at or past the end of the object,
	// or an n that is not positive, fails with ErrInvalidRange.
	GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
	// Stat describes the object without reading it.
	Stat(ctx context.Context, key string) (Info, error)
	// Put stores r's bytes under key, replacing any object there. Readers
	// see the old or the new object, never a mix; once Put returns, the new
	// object is durable.
	Put(ctx context.Context, key string, r io.Reader) (Info, error)
	// PutIfAbsent is Put that only creates: if key already holds an object
	// it fails with ErrPreconditionFailed and changes nothing. Of several
	// racing PutIfAbsent calls for one key, exactly one succeeds.
	PutIfAbsent(ctx context.Context, key string, r io.Reader) (Info, error)
	// PutIfMatch is Put that only replaces the version whose ETag is etag:
	// if the object is missing or has another ETag it fails with
	// ErrPreconditionFailed and changes nothing.
	PutIfMatch(ctx context.Context, key string, r io.Reader, etag string) (Info, error)
	// List yields the objects whose keys start with prefix, in byte order of
	// their keys. It stops at the first error, which it yields.
	List(ctx context.Context, prefix string) iter.Seq2[Info, error]
	// Delete removes the object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Info describes one version of an object.
type Info struct {
	// Key is the object's name, relative to the store.
	Key string
	// Size is the object's length in bytes.
	Size int64
	// ETag identifies this version of the object: a replacement gets
	// another one. It is opaque; pass it to PutIfMatch as it is.
	ETag string
}

var (
	// ErrPreconditionFailed is the error of a conditional put whose
	// condition did not hold: the key existed (PutIfAbsent) or held another
	// version (PutIfMatch). The commit protocol treats it as "someone else
	// won".
	ErrPreconditionFailed = errors.New("precondition failed")
	// ErrNotExist is matched by the error of an operation on a missing key.
	ErrNotExist = fs.ErrNotExist
	// ErrInvalidRange is the error of a GetRange that starts at or past the
	// end of the object.
	ErrInvalidRange = errors.New("range not satisfiable")
	// ErrInvalidKey is the error of an operation on a key that is empty,
	// absolute, or has an empty, "." , ".." or dot-prefixed element (those
	// names are the local store's own).
	ErrInvalidKey = errors.New("invalid object key")
)

// Open returns the store that location names: "s3://bucket/prefix" for
// S3-compatible storage configured from the standard AWS environment (see
// NewS3), or a directory ("/path" or "file:///path") for the local
// filesystem.
func Open(ctx context.Context, location string) (Store, error) {
	u, err := url.Parse(location)
	if err != nil || u.Scheme == "" || len(u.Scheme) == 1 { // "C:\..." is a path
		return NewLocal(location)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("objstore: file URL %q names a host; use file:///path", location)
		}
		return NewLocal(u.Path)
	case "s3":
		if u.Host == "" {
			return nil, fmt.Errorf("objstore: %q names no bucket; use s3://bucket/prefix", location)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("objstore: %q: S3 locations take no query or fragment; configure the client with the AWS_* environment", location)
		}
		return NewS3(ctx, u.Host, strings.Trim(u.Path, "/"), S3Options{})
	}
	return nil, fmt.Errorf("objstore: unsupported storage location %q (want s3://bucket/prefix or a directory)", location)
}

// checkKey enforces the key rules that ErrInvalidKey describes.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") {
		return fmt.Errorf("%w %q", ErrInvalidKey, key)
	}
	for elem := range strings.SplitSeq(key, "/") {
		if elem == "" || elem[0] == '.' || strings.ContainsRune(elem, 0) {
			return fmt.Errorf("%w %q", ErrInvalidKey, key)
		}
	}
	return nil
}

// ReaderAt reads one object through GetRange, as Parquet readers want:
// each ReadAt is one ranged read. Size is the object's length (from Stat or
// List), so that reads near the end need no extra request.
type ReaderAt struct {
	ctx   context.Context
	store Store
	key   string
	size  int64
}

// NewReaderAt returns a ReaderAt over the object key of the given size;
// ctx bounds every read made through it.
func NewReaderAt(ctx context.Context, s Store, key string, size int64) *ReaderAt {
	return &ReaderAt{ctx: ctx, store: s, key: key, size: size}
}

// Size returns the object's length.
func (r *ReaderAt) Size() int64 { return r.size }

// ReadAt implements io.ReaderAt: it fills p from off, returning io.EOF when
// the object ends first.
func (r *ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("objstore: read %q at negative offset %d", r.key, off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), r.size-off)
	if want == 0 {
		return 0, nil
	}
	rc, err := r.store.GetRange(r.ctx, r.key, off, want)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.ReadFull(rc, p[:want])
	if err != nil {
		return n, fmt.Errorf("objstore: read %q at %d: %w", r.key, off, err)
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
