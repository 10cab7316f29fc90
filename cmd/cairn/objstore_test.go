package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/cairn-db/cairn/storage/objstore"
)

// startFakeS3 serves an in-memory S3 bucket (gofakes3, on 127.0.0.1) from
// the test process and points the standard AWS environment, which the
// server processes the test starts inherit, at it. gofakes3 is a Go module,
// so the test needs nothing installed.
func startFakeS3(t *testing.T, bucket string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_PROFILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL": srv.URL,
		"AWS_ACCESS_KEY_ID": "cairn", "AWS_SECRET_ACCESS_KEY": "cairn-secret", "AWS_SESSION_TOKEN": "",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// TestKill9DurabilityObjectStore is TestKill9Durability with the durable
// state in S3 (--storage): every server starts on an empty data
// directory, so whatever it serves came from the bucket — after a SIGKILL
// (the log objects of acknowledged commits) and after a clean stop (the
// final checkpoint).
func TestKill9DurabilityObjectStore(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	startFakeS3(t, "cairn-e2e")
	kill9Durability(t, func() *process { return startProcess(t, t.TempDir(), "--storage", "s3://cairn-e2e/db") })
	st, err := objstore.Open(context.Background(), "s3://cairn-e2e/db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(context.Background(), "checkpoint"); err != nil {
		t.Fatalf("no checkpoint object in the bucket: %v", err)
	}
}
