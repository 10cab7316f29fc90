package objstore_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/storage/objstore"
)

// crashWriterEnv names the directory a child test binary writes to, in
// crashWriter, until it is killed.
const crashWriterEnv = "CAIRN_OBJSTORE_CRASH_WRITER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashWriterEnv); dir != "" {
		crashWriter(dir)
	}
	os.Exit(m.Run())
}

// crashBody is write i's content: one letter, a length that varies, so a
// torn or mixed object shows.
func crashBody(i int) []byte {
	return bytes.Repeat([]byte{byte('a' + i%26)}, 1<<20+i%4099)
}

// crashWriter replaces "seg" and creates "m/<i>" in a loop, printing i once
// both are acknowledged, until the process is killed.
func crashWriter(dir string) {
	st, err := objstore.NewLocal(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		if _, err := st.Put(ctx, "seg", bytes.NewReader(crashBody(i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if _, err := st.PutIfAbsent(ctx, fmt.Sprintf("m/%06d", i), bytes.NewReader(crashBody(i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(i)
	}
}

// TestLocalCrash kills a writing process (SIGKILL) at varying moments and
// checks that every object is one whole version and every acknowledged
// write survived.
func TestLocalCrash(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashWriterEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		acked := -1
		for acked < 3 && lines.Scan() {
			acked, _ = strconv.Atoi(lines.Text())
		}
		time.Sleep(time.Duration(round*7) * time.Millisecond)
		cmd.Process.Kill()
		for lines.Scan() { // acknowledged before the kill landed
			acked, _ = strconv.Atoi(lines.Text())
		}
		cmd.Wait()
		if acked < 3 {
			t.Fatalf("round %d: writer acknowledged %d writes; stderr: %s", round, acked+1, stderr.String())
		}
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		seg := getString(t, st, "seg")
		if !isCrashBody(seg) {
			t.Fatalf("round %d: seg is torn (%d bytes)", round, len(seg))
		}
		for in, err := range st.List(ctx, "m/") {
			if err != nil {
				t.Fatal(err)
			}
			if !isCrashBody(getString(t, st, in.Key)) {
				t.Fatalf("round %d: %s is torn", round, in.Key)
			}
		}
		for i := 0; i <= acked; i++ {
			if _, err := st.Stat(ctx, fmt.Sprintf("m/%06d", i)); err != nil {
				t.Fatalf("round %d: acknowledged write %d lost: %v", round, i, err)
			}
		}
		// The next round's writer starts over: it must find its keys free.
		for in, err := range st.List(ctx, "") {
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Delete(ctx, in.Key); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// isCrashBody reports whether b is crashBody(j) for some j: one letter
// repeated, 1 MiB plus j%4099 bytes long, the letter 'a'+j%26.
func isCrashBody(b string) bool {
	extra := len(b) - 1<<20
	if extra < 0 || extra >= 4099 || b != strings.Repeat(b[:1], len(b)) {
		return false
	}
	for j := extra; j < 4099*26; j += 4099 {
		if b[0] == byte('a'+j%26) {
			return true
		}
	}
	return false
}
