package wire

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPreparedOutputFollowsSessionSettings checks that prepared lookups,
// whose plan, RowDescription and text output options are kept from one
// execution to the next, print their values as their own session's
// TimeZone, DateStyle and extra_float_digits say, with sessions of
// different settings running them at the same time, and as a SET in
// between changes them. The expected texts are PostgreSQL 15's.
func TestPreparedOutputFollowsSessionSettings(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	setup := ts.connect(t)
	for _, q := range []string{
		"CREATE TABLE s (id bigint PRIMARY KEY, at timestamptz, f float8, d date)",
		"INSERT INTO s VALUES (1, '2024-03-05 12:34:56.5+00', 0.1::float8 + 0.2::float8, '2024-03-05')",
	} {
		if err := setup.Exec(ctx, q).Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const query = "SELECT id, at, f, d FROM s WHERE id = $1"
	// run executes the prepared lookup n times (Bind, Describe portal,
	// Execute, Sync, results in text) and checks each row.
	run := func(c *pgconn.PgConn, n int, want string) error {
		for i := 0; i < n; i++ {
			res := c.ExecPrepared(ctx, "q", [][]byte{[]byte("1")}, nil, nil).Read()
			if res.Err != nil {
				return res.Err
			}
			if len(res.Rows) != 1 {
				return fmt.Errorf("%d rows", len(res.Rows))
			}
			got := fmt.Sprintf("%s|%s|%s|%s", res.Rows[0][0], res.Rows[0][1], res.Rows[0][2], res.Rows[0][3])
			if got != want {
				return fmt.Errorf("execution %d: got %q, want %q", i, got, want)
			}
		}
		return nil
	}
	conns := make([]*pgconn.PgConn, 2)
	for i := range conns {
		conns[i] = ts.connect(t)
		if _, err := conns[i].Prepare(ctx, "q", query, nil); err != nil {
			t.Fatal(err)
		}
	}
	set := func(c *pgconn.PgConn, q string) {
		t.Helper()
		if err := c.Exec(ctx, q).Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	set(conns[1], "SET TimeZone = 'America/New_York'")
	set(conns[1], "SET DateStyle = 'SQL, DMY'")
	set(conns[1], "SET extra_float_digits = 0")
	wants := []string{
		"1|2024-03-05 12:34:56.5+00|0.30000000000000004|2024-03-05",
		"1|05/03/2024 07:34:56.5 EST|0.3|05/03/2024",
	}
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = run(c, 200, wants[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	// A SET between two executions of the same prepared statement.
	set(conns[1], "SET DateStyle = 'German'")
	set(conns[1], "SET TimeZone = 'Asia/Tokyo'")
	if err := run(conns[1], 3, "1|05.03.2024 21:34:56.5 JST|0.3|05.03.2024"); err != nil {
		t.Fatal(err)
	}
	set(conns[0], "SET extra_float_digits = 0")
	if err := run(conns[0], 3, "1|2024-03-05 12:34:56.5+00|0.3|2024-03-05"); err != nil {
		t.Fatal(err)
	}
	set(conns[0], "RESET extra_float_digits")
	if err := run(conns[0], 3, wants[0]); err != nil {
		t.Fatal(err)
	}
}

// TestPreparedDescribeFormats checks the RowDescription kept from one
// Describe of a portal to the next: executions of one prepared statement
// that alternate text and binary results, and another statement in
// between, each get the formats and columns they asked for.
func TestPreparedDescribeFormats(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.connect(t)
	for _, q := range []string{
		"CREATE TABLE d (id bigint PRIMARY KEY, task text)",
		"INSERT INTO d VALUES (1, 'one')",
	} {
		if err := c.Exec(ctx, q).Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for name, q := range map[string]string{"a": "SELECT id, task FROM d WHERE id = $1", "b": "SELECT task AS t FROM d WHERE id = $1"} {
		if _, err := c.Prepare(ctx, name, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 6; i++ {
		name, cols, format := "a", []string{"id", "task"}, int16(i%2)
		if i%3 == 2 {
			name, cols = "b", []string{"t"}
		}
		var formats []int16
		if format == 1 {
			formats = []int16{1}
		}
		res := c.ExecPrepared(ctx, name, [][]byte{[]byte("1")}, nil, formats).Read()
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if len(res.FieldDescriptions) != len(cols) {
			t.Fatalf("execution %d: %d columns, want %d", i, len(res.FieldDescriptions), len(cols))
		}
		for j, fd := range res.FieldDescriptions {
			if fd.Name != cols[j] || fd.Format != format {
				t.Errorf("execution %d column %d: %s in format %d, want %s in %d", i, j, fd.Name, fd.Format, cols[j], format)
			}
		}
		if got := string(res.Rows[0][len(cols)-1]); got != "one" {
			t.Errorf("execution %d: task %q", i, got)
		}
	}
}
