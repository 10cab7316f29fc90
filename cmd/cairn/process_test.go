package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// cairnBinary builds the cairn binary once per test run.
func cairnBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "cairn")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("go build: %s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build cairn: %v", buildErr)
	}
	return binPath
}

// process is a cairn server running as a child process.
type process struct {
	cmd  *exec.Cmd
	addr string
}

var listenLine = regexp.MustCompile(`postgres=([0-9.]+:[0-9]+)`)

// startProcess runs the cairn binary over dataDir on a free port and waits
// for its "listening" log line.
func startProcess(t testing.TB, dataDir string, extra ...string) *process {
	t.Helper()
	args := append([]string{"--data-dir", dataDir, "--listen", "127.0.0.1:0", "--http", "off"}, extra...)
	cmd := exec.Command(cairnBinary(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd}
	t.Cleanup(func() { p.kill() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case p.addr = <-found:
	case <-time.After(60 * time.Second):
		t.Fatal("server did not report its listening address")
	}
	return p
}

// kill sends SIGKILL and waits for the process to exit.
func (p *process) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// stop sends SIGTERM and waits for a clean exit, returning its error.
func (p *process) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	return p.cmd.Wait()
}

func (p *process) connect(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), "postgres://cairn@"+p.addr+"/cairn?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
