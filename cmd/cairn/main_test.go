package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	cfg, err := parseConfig(nil, getenv, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{dataDir: "./cairn-data", listen: "127.0.0.1:5432", http: "127.0.0.1:8080", memoryLimit: "2.25GiB", logMinDuration: "-1", statementMem: "1GB"}); cfg != want {
		t.Errorf("defaults: %+v, want %+v", cfg, want)
	}

	env["CAIRN_DATA_DIR"] = "/env/dir"
	env["CAIRN_LISTEN"] = "127.0.0.1:6000"
	env["CAIRN_HTTP"] = "off"
	env["CAIRN_PASSWORD"] = "pw"
	env["CAIRN_MEMORY_LIMIT"] = "1GiB"
	env["CAIRN_LOG_MIN_DURATION_STATEMENT"] = "250ms"
	env["CAIRN_STATEMENT_MEM"] = "512MB"
	env["CAIRN_HTTP_TOKENS"] = "/env/tokens"
	cfg, err = parseConfig(nil, getenv, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{dataDir: "/env/dir", listen: "127.0.0.1:6000", http: "off", password: "pw", memoryLimit: "1GiB", logMinDuration: "250ms", statementMem: "512MB", httpTokens: "/env/tokens"}); cfg != want {
		t.Errorf("environment: %+v, want %+v", cfg, want)
	}

	cfg, err = parseConfig([]string{"--data-dir", "/flag/dir", "--listen=127.0.0.1:0", "-http", "127.0.0.1:0", "--statement-mem", "2GB"}, getenv, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (config{dataDir: "/flag/dir", listen: "127.0.0.1:0", http: "127.0.0.1:0", password: "pw", memoryLimit: "1GiB", logMinDuration: "250ms", statementMem: "2GB", httpTokens: "/env/tokens"}); cfg != want {
		t.Errorf("flags over environment: %+v, want %+v", cfg, want)
	}

	if _, err := parseConfig([]string{"--nope"}, getenv, io.Discard, io.Discard); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, err := parseConfig([]string{"extra"}, getenv, io.Discard, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"CAIRN_PASSWORD": "secret-value"}
	_, err := parseConfig([]string{"--help"}, func(k string) string { return env[k] }, &out, io.Discard)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"--data-dir", "CAIRN_DATA_DIR", "--listen", "CAIRN_LISTEN", "--http", "CAIRN_HTTP", "--password", "CAIRN_PASSWORD"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %s:\n%s", s, out.String())
		}
	}
	if strings.Contains(out.String(), "secret-value") {
		t.Error("help shows the password")
	}
	if code := run(context.Background(), []string{"--help"}, io.Discard, io.Discard); code != 0 {
		t.Errorf("--help exit code %d", code)
	}
}

func TestCheckAuth(t *testing.T) {
	for _, tc := range []struct {
		cfg config
		ok  bool
	}{
		{config{listen: "127.0.0.1:5432", http: "127.0.0.1:8080"}, true},
		{config{listen: "localhost:0", http: "off"}, true},
		{config{listen: "[::1]:5432", http: "OFF"}, true},
		{config{listen: "0.0.0.0:5432", http: "off"}, false},
		{config{listen: ":5432", http: "off"}, false},
		{config{listen: "127.0.0.1:5432", http: ":8080"}, false},
		{config{listen: "127.0.0.1:5432", http: "off", password: "pw"}, true},
		// Off loopback: a password, and TLS or --insecure-listen.
		{config{listen: "0.0.0.0:5432", http: "off", password: "pw"}, false},
		{config{listen: "0.0.0.0:5432", http: "off", password: "pw", insecureListen: "true"}, true},
		{config{listen: "0.0.0.0:5432", http: "off", password: "pw", tlsCert: "c", tlsKey: "k"}, true},
		{config{listen: "0.0.0.0:5432", http: "off", password: "pw", tlsSelfSigned: "1"}, true},
		{config{listen: "0.0.0.0:5432", http: "off", password: "pw", tlsSelfSigned: "false"}, false},
		{config{listen: "0.0.0.0:5432", http: "off", tlsSelfSigned: "true"}, false},
		{config{listen: "0.0.0.0:5432", http: "0.0.0.0:8080", password: "pw", insecureListen: "true"}, false},
		{config{listen: "0.0.0.0:5432", http: "0.0.0.0:8080", password: "pw", httpToken: "t", insecureListen: "true"}, true},
		{config{listen: "0.0.0.0:5432", http: "0.0.0.0:8080", password: "pw", httpToken: "t", tlsSelfSigned: "true"}, true},
		{config{listen: "127.0.0.1:5432", http: "0.0.0.0:8080", password: "pw", httpToken: "t"}, false},
		{config{listen: "nonsense", http: "off"}, false},
	} {
		err := checkAuth(tc.cfg)
		if (err == nil) != tc.ok {
			t.Errorf("checkAuth(%+v) = %v", tc.cfg, err)
		}
	}
	if code := run(context.Background(), []string{"--listen", "0.0.0.0:0", "--data-dir", t.TempDir()}, io.Discard, io.Discard); code != 1 {
		t.Errorf("non-loopback listen: exit code %d, want 1", code)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRun starts the whole server on free ports, talks to both listeners
// and stops it as a signal would.
func TestRun(t *testing.T) {
	var logs syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}, io.Discard, &logs)
	}()

	re := regexp.MustCompile(`listening postgres=(127\.0\.0\.1:\d+) http=(127\.0\.0\.1:\d+)`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		select {
		case code := <-exited:
			t.Fatalf("exited with %d:\n%s", code, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line:\n%s", logs.String())
		}
		m = re.FindStringSubmatch(logs.String())
	}
	if n := strings.Count(logs.String(), "listening"); n != 1 {
		t.Errorf("%d listening lines:\n%s", n, logs.String())
	}

	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	host, port, _ := strings.Cut(m[1], ":")
	c, err := pgconn.Connect(cctx, fmt.Sprintf("host=%s port=%s user=u sslmode=disable", host, port))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(cctx); err != nil {
		t.Errorf("Ping: %v", err)
	}

	resp, err := http.Get("http://" + m[2] + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/health: %d", resp.StatusCode)
	}

	stop() // as SIGINT does
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit code %d:\n%s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("did not stop")
	}
	if _, err := c.Exec(cctx, "SELECT 1").ReadAll(); err == nil {
		t.Error("connection still usable after shutdown")
	}
	c.Close(cctx)
}

func TestRunHTTPOff(t *testing.T) {
	var logs syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "off"}, io.Discard, &logs)
	}()
	re := regexp.MustCompile(`listening postgres=127\.0\.0\.1:\d+ http=off`)
	for deadline := time.Now().Add(10 * time.Second); !re.MatchString(logs.String()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no listening line:\n%s", logs.String())
		}
	}
	stop()
	if code := <-exited; code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2.5GiB": 5 << 29, "512MiB": 512 << 20, "1GB": 1e9, "4096": 4096, "off": 0, "0": 0, " 1 KiB ": 1024} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1GiB", "1.5XB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}
