package objstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/storage/objstore"
	"github.com/cairn-db/cairn/storage/objstore/objstoretest"
)

// The conformance suite runs every behaviour the Store contract promises
// against both homes: the local filesystem, and S3 as served by gofakes3
// over HTTP on loopback (a third-party S3 server that implements
// If-None-Match and If-Match under its backend lock), driven by the real
// AWS SDK client. gofakes3 needs no installation (it is a Go module) and
// starts in microseconds. The same suite has also passed, run by hand,
// against versitygw v1.8.0 (posix backend) and moto_server 5, which differ
// from gofakes3 where the comments in s3.go say.

func TestLocal(t *testing.T) {
	runConformance(t, func(t *testing.T) objstore.Store {
		st, err := objstore.NewLocal(filepath.Join(t.TempDir(), "data"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { checkNoTempFiles(t, st.Dir()) })
		return st
	})
}

func TestS3(t *testing.T) {
	runConformance(t, func(t *testing.T) objstore.Store {
		objstoretest.Serve(t, "cairn-test")
		st, err := objstore.NewS3(context.Background(), "cairn-test", "some/prefix", objstore.S3Options{PartSize: 5 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func runConformance(t *testing.T, newStore func(t *testing.T) objstore.Store) {
	ctx := context.Background()
	t.Run("PutGetStatReplace", func(t *testing.T) {
		st := newStore(t)
		in := mustPut(t, st, "tables/t/seg-1.parquet", "hello world")
		if in.Key != "tables/t/seg-1.parquet" || in.Size != 11 || in.ETag == "" {
			t.Fatalf("put returned %+v", in)
		}
		rc, got, err := st.Get(ctx, in.Key)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, rc); body != "hello world" || got != in {
			t.Fatalf("get = %q %+v, want %q %+v", body, got, "hello world", in)
		}
		if s, err := st.Stat(ctx, in.Key); err != nil || s != in {
			t.Fatalf("stat = %+v, %v; want %+v", s, err, in)
		}
		again := mustPut(t, st, in.Key, "replaced")
		if again.ETag == in.ETag || again.Size != 8 {
			t.Fatalf("replacement %+v kept the old ETag or size of %+v", again, in)
		}
		if body := getString(t, st, in.Key); body != "replaced" {
			t.Fatalf("after replace got %q", body)
		}
		empty := mustPut(t, st, "empty", "")
		if empty.Size != 0 || getString(t, st, "empty") != "" {
			t.Fatalf("empty object: %+v", empty)
		}
	})

	t.Run("RangeReads", func(t *testing.T) {
		st := newStore(t)
		data := make([]byte, 1000)
		for i := range data {
			data[i] = byte(i % 251)
		}
		mustPut(t, st, "r", string(data))
		for _, c := range []struct{ off, n, want int64 }{
			{0, 1, 1}, {10, 20, 20}, {999, 1, 1}, {990, 100, 10}, {0, 5000, 1000},
		} {
			rc, err := st.GetRange(ctx, "r", c.off, c.n)
			if err != nil {
				t.Fatalf("range %d+%d: %v", c.off, c.n, err)
			}
			if got := readAll(t, rc); got != string(data[c.off:c.off+c.want]) {
				t.Fatalf("range %d+%d: got %d bytes, want %d", c.off, c.n, len(got), c.want)
			}
		}
		for _, c := range []struct{ off, n int64 }{{1000, 1}, {5000, 10}, {-1, 10}, {0, 0}} {
			if _, err := st.GetRange(ctx, "r", c.off, c.n); !errors.Is(err, objstore.ErrInvalidRange) {
				t.Fatalf("range %d+%d: got %v, want ErrInvalidRange", c.off, c.n, err)
			}
		}
		// ReaderAt, as Parquet readers use it.
		ra := objstore.NewReaderAt(ctx, st, "r", 1000)
		p := make([]byte, 100)
		if n, err := ra.ReadAt(p, 450); n != 100 || err != nil || !bytes.Equal(p, data[450:550]) {
			t.Fatalf("ReadAt(450) = %d, %v", n, err)
		}
		if n, err := ra.ReadAt(p, 960); n != 40 || err != io.EOF || !bytes.Equal(p[:40], data[960:]) {
			t.Fatalf("ReadAt(960) = %d, %v; want 40, EOF", n, err)
		}
		if n, err := ra.ReadAt(p, 1000); n != 0 || err != io.EOF {
			t.Fatalf("ReadAt(1000) = %d, %v; want 0, EOF", n, err)
		}
		sec, err := io.ReadAll(io.NewSectionReader(ra, 0, ra.Size()))
		if err != nil || !bytes.Equal(sec, data) {
			t.Fatalf("sequential read through ReaderAt: %d bytes, %v", len(sec), err)
		}
	})

	t.Run("MissingKeys", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "dir/present", "x")
		for _, key := range []string{"absent", "dir/absent", "dir/present/below", "dir"} {
			if _, _, err := st.Get(ctx, key); !errors.Is(err, objstore.ErrNotExist) {
				t.Fatalf("get %q: %v, want ErrNotExist", key, err)
			}
			if _, err := st.GetRange(ctx, key, 0, 1); !errors.Is(err, objstore.ErrNotExist) {
				t.Fatalf("get range %q: %v, want ErrNotExist", key, err)
			}
			if _, err := st.Stat(ctx, key); !errors.Is(err, objstore.ErrNotExist) {
				t.Fatalf("stat %q: %v, want ErrNotExist", key, err)
			}
			if _, err := st.PutIfMatch(ctx, key, strings.NewReader("y"), `"0123"`); !errors.Is(err, objstore.ErrPreconditionFailed) {
				t.Fatalf("put-if-match %q: %v, want ErrPreconditionFailed", key, err)
			}
		}
		if err := st.Delete(ctx, "absent"); err != nil {
			t.Fatalf("delete of a missing key: %v", err)
		}
		if err := st.Delete(ctx, "dir/present"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Stat(ctx, "dir/present"); !errors.Is(err, objstore.ErrNotExist) {
			t.Fatalf("stat after delete: %v", err)
		}
		if keys := listKeys(t, st, ""); len(keys) != 0 {
			t.Fatalf("list after delete: %v", keys)
		}
	})

	t.Run("InvalidKeys", func(t *testing.T) {
		st := newStore(t)
		for _, key := range []string{"", "/abs", "a//b", "a/", "a/./b", "../up", "a/../b", ".hidden", "a/.tmp"} {
			if _, err := st.Put(ctx, key, strings.NewReader("x")); !errors.Is(err, objstore.ErrInvalidKey) {
				t.Fatalf("put %q: %v, want ErrInvalidKey", key, err)
			}
			if _, err := st.Stat(ctx, key); !errors.Is(err, objstore.ErrInvalidKey) {
				t.Fatalf("stat %q: %v, want ErrInvalidKey", key, err)
			}
		}
	})

	t.Run("PutIfAbsentRace", func(t *testing.T) {
		st := newStore(t)
		for round := range 3 {
			key := fmt.Sprintf("_manifests/%020d.json", round)
			const writers = 24
			var wg sync.WaitGroup
			errs := make([]error, writers)
			infos := make([]objstore.Info, writers)
			for w := range writers {
				wg.Go(func() {
					infos[w], errs[w] = st.PutIfAbsent(ctx, key, strings.NewReader(fmt.Sprintf("writer %d", w)))
				})
			}
			wg.Wait()
			winner := -1
			for w, err := range errs {
				switch {
				case err == nil && winner >= 0:
					t.Fatalf("round %d: writers %d and %d both won", round, winner, w)
				case err == nil:
					winner = w
				case !errors.Is(err, objstore.ErrPreconditionFailed):
					t.Fatalf("round %d: writer %d: %v, want ErrPreconditionFailed", round, w, err)
				}
			}
			if winner < 0 {
				t.Fatalf("round %d: no writer won", round)
			}
			rc, info, err := st.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, rc); got != fmt.Sprintf("writer %d", winner) || info != infos[winner] {
				t.Fatalf("round %d: stored %q %+v, winner was %d %+v", round, got, info, winner, infos[winner])
			}
		}
	})

	t.Run("PutIfMatch", func(t *testing.T) {
		st := newStore(t)
		v1 := mustPut(t, st, "_latest", "v1")
		v2, err := st.PutIfMatch(ctx, "_latest", strings.NewReader("v2"), v1.ETag)
		if err != nil {
			t.Fatal(err)
		}
		if v2.ETag == v1.ETag {
			t.Fatalf("replacement kept ETag %s", v1.ETag)
		}
		if _, err := st.PutIfMatch(ctx, "_latest", strings.NewReader("stale"), v1.ETag); !errors.Is(err, objstore.ErrPreconditionFailed) {
			t.Fatalf("put with a stale ETag: %v, want ErrPreconditionFailed", err)
		}
		if got := getString(t, st, "_latest"); got != "v2" {
			t.Fatalf("after a failed put-if-match the object is %q", got)
		}
		// Many writers that all read v2: exactly one replaces it.
		const writers = 16
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				_, errs[w] = st.PutIfMatch(ctx, "_latest", strings.NewReader(fmt.Sprintf("v3 by %d", w)), v2.ETag)
			})
		}
		wg.Wait()
		won := 0
		for w, err := range errs {
			if err == nil {
				won++
				if got := getString(t, st, "_latest"); got != fmt.Sprintf("v3 by %d", w) {
					t.Fatalf("winner %d but object is %q", w, got)
				}
			} else if !errors.Is(err, objstore.ErrPreconditionFailed) {
				t.Fatalf("writer %d: %v", w, err)
			}
		}
		if won != 1 {
			t.Fatalf("%d writers replaced the same version, want 1", won)
		}
		// PutIfAbsent's ETag serves PutIfMatch too.
		c1, err := st.PutIfAbsent(ctx, "created", strings.NewReader("c1"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.PutIfMatch(ctx, "created", strings.NewReader("c2"), c1.ETag); err != nil {
			t.Fatalf("put-if-match with PutIfAbsent's ETag: %v", err)
		}
	})

	t.Run("ListPagination", func(t *testing.T) {
		st := newStore(t)
		const n = 1100 // past S3's 1,000 keys a page
		var want []string
		for i := range n {
			key := fmt.Sprintf("many/k%05d", i)
			if i%2 == 1 {
				key = fmt.Sprintf("many/sub/k%05d", i)
			}
			mustPut(t, st, key, strings.Repeat("x", i%7))
			want = append(want, key)
		}
		// Neighbours that a prefix must exclude, and keys whose order a
		// directory walk would get wrong ("many-b" < "many/" < "many0").
		for _, key := range []string{"many-b", "many0", "man", "other/many/k"} {
			mustPut(t, st, key, "n")
		}
		slices.Sort(want)
		infos := list(t, st, "many/")
		if len(infos) != n {
			t.Fatalf("listed %d keys, want %d", len(infos), n)
		}
		for i, in := range infos {
			if in.Key != want[i] {
				t.Fatalf("key %d is %q, want %q", i, in.Key, want[i])
			}
			var num int
			fmt.Sscanf(in.Key[strings.LastIndexByte(in.Key, 'k')+1:], "%d", &num)
			if in.Size != int64(num%7) || in.ETag == "" {
				t.Fatalf("%q listed as %+v", in.Key, in)
			}
		}
		if got := listKeys(t, st, "many"); !slices.Equal(got, append(append([]string{"many-b"}, want...), "many0")) {
			t.Fatalf("prefix \"many\" listed %d keys, first %v", len(got), got[:3])
		}
		if got := listKeys(t, st, "many/sub/k0000"); !slices.Equal(got, []string{"many/sub/k00001", "many/sub/k00003", "many/sub/k00005", "many/sub/k00007", "many/sub/k00009"}) {
			t.Fatalf("prefix inside a name listed %v", got)
		}
		if got := listKeys(t, st, "nothing/here"); len(got) != 0 {
			t.Fatalf("empty prefix listed %v", got)
		}
		if got := len(listKeys(t, st, "")); got != n+4 {
			t.Fatalf("whole store listed %d keys, want %d", got, n+4)
		}
		// Stopping early stops the listing.
		count := 0
		for _, err := range st.List(ctx, "many/") {
			if err != nil {
				t.Fatal(err)
			}
			if count++; count == 3 {
				break
			}
		}
	})

	t.Run("LargeObject", func(t *testing.T) {
		st := newStore(t)
		data := make([]byte, 12<<20+12345) // three parts of 5 MiB on S3
		rand.Read(data)
		info, err := st.Put(ctx, "big", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != int64(len(data)) {
			t.Fatalf("put size %d, want %d", info.Size, len(data))
		}
		rc, got, err := st.Get(ctx, "big")
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		if sum := sha256.Sum256(data); !bytes.Equal(h.Sum(nil), sum[:]) || got.Size != info.Size || got.ETag != info.ETag {
			t.Fatalf("read back a different object: %+v vs %+v", got, info)
		}
		// A range across the first part boundary.
		rr, err := st.GetRange(ctx, "big", 5<<20-100, 200)
		if err != nil {
			t.Fatal(err)
		}
		if b := readAll(t, rr); b != string(data[5<<20-100:5<<20+100]) {
			t.Fatal("range across a part boundary differs")
		}
	})

	t.Run("ContextCancellation", func(t *testing.T) {
		st := newStore(t)
		mustPut(t, st, "kept", "k")
		done, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.Put(done, "p", strings.NewReader("x")); !errors.Is(err, context.Canceled) {
			t.Fatalf("put: %v", err)
		}
		if _, err := st.PutIfAbsent(done, "p", strings.NewReader("x")); !errors.Is(err, context.Canceled) {
			t.Fatalf("put-if-absent: %v", err)
		}
		if _, _, err := st.Get(done, "kept"); !errors.Is(err, context.Canceled) {
			t.Fatalf("get: %v", err)
		}
		if _, err := st.GetRange(done, "kept", 0, 1); !errors.Is(err, context.Canceled) {
			t.Fatalf("get range: %v", err)
		}
		if _, err := st.Stat(done, "kept"); !errors.Is(err, context.Canceled) {
			t.Fatalf("stat: %v", err)
		}
		if err := st.Delete(done, "kept"); !errors.Is(err, context.Canceled) {
			t.Fatalf("delete: %v", err)
		}
		for _, err := range st.List(done, "") {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("list: %v", err)
			}
		}
		// Cancelled while the body streams, after the first 5 MiB part.
		mid, cancelMid := context.WithCancel(ctx)
		defer cancelMid()
		body := io.MultiReader(io.LimitReader(rand.Reader, 6<<20), cancelReader{cancelMid}, io.LimitReader(rand.Reader, 6<<20))
		if _, err := st.Put(mid, "p", body); !errors.Is(err, context.Canceled) {
			t.Fatalf("put cancelled mid-stream: %v", err)
		}
		if keys := listKeys(t, st, ""); !slices.Equal(keys, []string{"kept"}) {
			t.Fatalf("cancelled writes left %v", keys)
		}
	})
}

// cancelReader cancels its context when read, then reports EOF so that
// the next reader of a MultiReader continues.
type cancelReader struct{ cancel context.CancelFunc }

func (c cancelReader) Read([]byte) (int, error) {
	c.cancel()
	return 0, io.EOF
}

func mustPut(t *testing.T, st objstore.Store, key, body string) objstore.Info {
	t.Helper()
	info, err := st.Put(context.Background(), key, strings.NewReader(body))
	if err != nil {
		t.Fatalf("put %q: %v", key, err)
	}
	return info
}

func getString(t *testing.T, st objstore.Store, key string) string {
	t.Helper()
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return readAll(t, rc)
}

func readAll(t *testing.T, rc io.ReadCloser) string {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func list(t *testing.T, st objstore.Store, prefix string) []objstore.Info {
	t.Helper()
	var infos []objstore.Info
	for in, err := range st.List(context.Background(), prefix) {
		if err != nil {
			t.Fatalf("list %q: %v", prefix, err)
		}
		infos = append(infos, in)
	}
	return infos
}

func listKeys(t *testing.T, st objstore.Store, prefix string) []string {
	t.Helper()
	var keys []string
	for _, in := range list(t, st, prefix) {
		keys = append(keys, in.Key)
	}
	return keys
}

// checkNoTempFiles fails if a write left a temporary file under dir.
func checkNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, loc := range []string{dir, "file://" + dir} {
		st, err := objstore.Open(ctx, loc)
		if err != nil {
			t.Fatalf("open %q: %v", loc, err)
		}
		if l, ok := st.(*objstore.Local); !ok || l.Dir() != dir {
			t.Fatalf("open %q gave %#v", loc, st)
		}
	}
	for _, loc := range []string{"s3://", "s3:///prefix", "s3://bucket/p?region=x", "gs://bucket/x", "file://host/x"} {
		if _, err := objstore.Open(ctx, loc); err == nil {
			t.Fatalf("open %q: no error", loc)
		}
	}
	// s3://bucket/prefix with the AWS environment: what Open writes, a
	// store on another prefix of the bucket sees under that prefix.
	objstoretest.Serve(t, "cairn-open")
	st, err := objstore.Open(ctx, "s3://cairn-open/team/db1/")
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, st, "catalog.json", "{}")
	root, err := objstore.NewS3(ctx, "cairn-open", "", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	if keys := listKeys(t, root, ""); !slices.Equal(keys, []string{"team/db1/catalog.json"}) {
		t.Fatalf("bucket holds %v", keys)
	}
	if _, err := objstore.NewS3(ctx, "cairn-open", "", objstore.S3Options{PartSize: 1 << 20}); err == nil {
		t.Fatal("a part size below S3's minimum was accepted")
	}
	missing, err := objstore.Open(ctx, "s3://no-such-bucket/x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := missing.Stat(ctx, "k"); err == nil {
		t.Fatal("stat in a missing bucket succeeded")
	}
	if _, _, err := missing.Get(ctx, "k"); err == nil || errors.Is(err, objstore.ErrNotExist) {
		t.Fatalf("get in a missing bucket: %v, want an error that is not ErrNotExist", err)
	}
	t.Setenv("AWS_ENDPOINT_URL", "")
	if _, err := objstore.Open(ctx, "s3://cairn-open/x"); err == nil || !strings.Contains(err.Error(), "region") {
		t.Fatalf("open without region or endpoint: %v", err)
	}
	os.Unsetenv("AWS_ENDPOINT_URL")
}

// TestS3ConditionalConflict: S3 answers 409 ConditionalRequestConflict to a
// conditional write that races another in flight, and asks for a retry. A
// front that answers 409 to the first conditional PUT of each key shows
// that the store retries and then reports the real outcome.
func TestS3ConditionalConflict(t *testing.T) {
	fake := objstoretest.Handler(t, "cairn-409")
	var mu sync.Mutex
	conflicted := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && (r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Match") != "") {
			mu.Lock()
			first := !conflicted[r.URL.Path]
			conflicted[r.URL.Path] = true
			mu.Unlock()
			if first {
				w.WriteHeader(http.StatusConflict)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in progress against this resource.</Message></Error>`)
				return
			}
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	objstoretest.ConfigureAWS(t, srv.URL)
	st, err := objstore.NewS3(context.Background(), "cairn-409", "", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v1, err := st.PutIfAbsent(ctx, "m/1", strings.NewReader("one"))
	if err != nil {
		t.Fatalf("put-if-absent after a 409: %v", err)
	}
	if _, err := st.PutIfMatch(ctx, "m/1", strings.NewReader("two"), v1.ETag); err != nil {
		t.Fatalf("put-if-match after a 409: %v", err)
	}
	mustPut(t, st, "m/2", "taken")
	if _, err := st.PutIfAbsent(ctx, "m/2", strings.NewReader("late")); !errors.Is(err, objstore.ErrPreconditionFailed) {
		t.Fatalf("put-if-absent of a taken key after a 409: %v", err)
	}
	if got := getString(t, st, "m/1") + getString(t, st, "m/2"); got != "twotaken" {
		t.Fatalf("objects hold %q", got)
	}
	// A 409 that never ends gives way to the caller's deadline.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	srvAlways := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, `<Error><Code>ConditionalRequestConflict</Code></Error>`)
	}))
	t.Cleanup(srvAlways.Close)
	objstoretest.ConfigureAWS(t, srvAlways.URL)
	busy, err := objstore.NewS3(ctx, "cairn-409", "", objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := busy.PutIfAbsent(short, "m/3", strings.NewReader("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("put-if-absent against endless 409s: %v, want the deadline", err)
	}
}
