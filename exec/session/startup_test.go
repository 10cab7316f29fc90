package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// TestProcessSwitches checks how the options startup parameter is split
// and read, against what PostgreSQL 15 did with each (its settings, or
// its FATAL error's SQLSTATE and message).
func TestProcessSwitches(t *testing.T) {
	for _, tc := range []struct {
		options string
		want    string // the settings made, or the error
	}{
		{`-c search_path=foo`, "search_path=foo"},
		{`-csearch_path=foo  -c	work_mem=8MB`, "search_path=foo work_mem=8MB"},
		{`--search-path=foo --Application_Name=x`, "search_path=foo Application_Name=x"},
		{`-c x-y.z-w=a-b`, "x_y.z_w=a-b"},
		{`-c a.b=x\ y\\z\`, `a.b=x y\z`},
		{`-c a.b= -c c.d==1`, "a.b= c.d==1"},
		{`-e -S 1000 -fs -N 10`, "datestyle=euro work_mem=1000 enable_seqscan=off max_connections=10"},
		{`-ec a.b=1`, "datestyle=euro a.b=1"},
		{`-c search_path`, "42601 -c search_path requires a value"},
		{`--search_path`, "42601 --search_path requires a value"},
		{`-c`, "42601 invalid command-line argument for server process: -c"},
		{`-x`, "42601 invalid command-line argument for server process: -x"},
		{`-ex`, "datestyle=euro 42601 invalid command-line argument for server process: -ex"},
		{`-xe`, "42601 invalid command-line argument for server process: postgres"},
		{`-fx`, "42601 invalid command-line argument for server process: -fx"},
		{`garbage`, "42601 invalid command-line argument for server process: garbage"},
		{`-c a.b=1 garbage -c c.d=2`, "a.b=1 c.d=2 42601 invalid command-line argument for server process: garbage"},
		{`-- -c a.b=1`, "42601 invalid command-line argument for server process: -c"},
		{`-B 10`, `55P02 parameter "shared_buffers" cannot be changed without restarting the server`},
		{`-F`, `55P02 parameter "fsync" cannot be changed now`},
		{`-d 3`, "0A000 the -d switch in the options startup parameter is not supported"},
		{"", ""},
	} {
		var got []string
		err := processSwitches(splitOptions(tc.options), func(name, value string) error {
			got = append(got, name+"="+value)
			return nil
		})
		if err != nil {
			e := pgerr.From(err)
			got = append(got, e.Code+" "+e.Message)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("options %q: got %q, want %q", tc.options, s, tc.want)
		}
	}
}

// TestSplitOptions checks pg_split_opts' white space and escapes.
func TestSplitOptions(t *testing.T) {
	for in, want := range map[string][]string{
		"  -c  a=b\t\n-d ": {"-c", "a=b", "-d"},
		`a\ b\\ c`:         {`a b\`, "c"},
		`\\\ `:             {`\ `},
		"":                 nil,
	} {
		if got := splitOptions(in); !slices.Equal(got, want) {
			t.Errorf("splitOptions(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoginStartupFailure checks that a login whose startup parameters
// fail opens no session and gives its connection slot back.
func TestLoginStartupFailure(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := NewEngine(db, Options{})
	s, err := e.Login("tester", "testdb", map[string]string{"options": "-c myapp.n=1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := e.Login("tester", "testdb", map[string]string{"options": "-c myapp.n=2", "nope": "1"}); err == nil {
		t.Fatal("a login with an unknown setting succeeded")
	}
	if n := len(e.sessions.sessions()); n != 1 || e.limits.total != 1 {
		t.Errorf("after a failed login: %d sessions, %d connection slots taken; want 1, 1", n, e.limits.total)
	}
	if v, _ := s.Setting("myapp.n"); v != "1" {
		t.Errorf("myapp.n of the open session = %q, want 1", v)
	}
}
