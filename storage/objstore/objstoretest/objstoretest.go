// Package objstoretest serves S3 to tests: gofakes3 (a Go module, so
// nothing to install) over an in-memory backend, on 127.0.0.1 in the test
// process, stopped by t.Cleanup, with the standard AWS environment pointed
// at it, so that objstore.Open, iceberg-go and the server processes a test
// spawns (which inherit the environment) all reach it through the real AWS
// SDK. Only tests import it; the binaries do not carry it.
package objstoretest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Serve starts a fresh in-memory S3 holding the named (empty) buckets on
// 127.0.0.1, closed when the test ends, and points the AWS environment at
// it (ConfigureAWS).
func Serve(t testing.TB, buckets ...string) {
	t.Helper()
	srv := httptest.NewServer(Handler(t, buckets...))
	t.Cleanup(srv.Close)
	ConfigureAWS(t, srv.URL)
}

// Handler is gofakes3, not logging, over a fresh in-memory backend holding
// the named (empty) buckets: for tests that put a front of their own
// before it (to inject S3's errors) and serve it themselves.
func Handler(t testing.TB, buckets ...string) http.Handler {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	return gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
}

// ConfigureAWS points the standard AWS environment at the S3 server at
// endpoint, with static credentials, and away from any configuration of
// the machine's user (config files, profile, region, a service-specific
// endpoint, session token, instance metadata), for the rest of the test
// (t.Setenv).
func ConfigureAWS(t testing.TB, endpoint string) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_PROFILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL": endpoint, "AWS_ENDPOINT_URL_S3": "",
		"AWS_ACCESS_KEY_ID": "cairn", "AWS_SECRET_ACCESS_KEY": "cairn-secret", "AWS_SESSION_TOKEN": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}
