package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// logProcess is a cairn server child process whose log lines are kept.
type logProcess struct {
	cmd  *exec.Cmd
	addr string
	dir  string        // the data directory
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, once done

	mu   sync.Mutex
	logs strings.Builder
}

// startLogged runs the cairn binary over dataDir on a free port. It waits
// for the "listening" line, or for the process to exit (addr is then "",
// and the log says why).
func startLogged(t testing.TB, dataDir string, extra ...string) *logProcess {
	t.Helper()
	return startLoggedBin(t, cairnBinary(t), dataDir, extra...)
}

// startLoggedBin is startLogged with the binary to run.
func startLoggedBin(t testing.TB, bin, dataDir string, extra ...string) *logProcess {
	t.Helper()
	args := append([]string{"--data-dir", dataDir, "--listen", "127.0.0.1:0", "--http", "off"}, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &logProcess{cmd: cmd, dir: dataDir, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.logs.WriteString(line)
			p.logs.WriteByte('\n')
			p.mu.Unlock()
			if m := listenLine.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	select {
	case p.addr = <-found:
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not report its listening address:\n%s", p.log())
	}
	return p
}

// log returns what the process logged so far.
func (p *logProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// kill sends SIGKILL and waits for the exit.
func (p *logProcess) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// wait waits up to d for the process to exit and returns its exit code
// (-1 on timeout or when it died of a signal).
func (p *logProcess) wait(d time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(d):
		return -1
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// connString is the process's libpq connection string.
func (p *logProcess) connString() string {
	return "postgres://cairn@" + p.addr + "/cairn?sslmode=disable"
}

func (p *logProcess) connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.connString())
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.log())
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// sqlState is the SQLSTATE of a server error, "" for any other error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// noPanic fails the test when a log shows a Go panic or a fatal runtime
// error.
func noPanic(t testing.TB, log string) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "fatal error:"} {
		if strings.Contains(log, s) {
			t.Fatalf("the server log shows %q:\n%s", s, log)
		}
	}
}
