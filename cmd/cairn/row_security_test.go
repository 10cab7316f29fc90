package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Two agents share one memory table under a row-level security policy
// USING (agent = current_user), each logged in as its own role: each
// sees only its rows through SELECT, the vector and hybrid <#> searches
// with LIMIT (first over a scan, then through an hnsw index), COPY TO
// and RETURNING; it updates and deletes none of the other's rows, and
// cannot insert one. The answers under the policy equal a superuser's
// with the agent's WHERE clause written out, and the policy survives a
// restart.
func TestRowSecurityAgents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret")
	admin, err := s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"CREATE ROLE agent_a LOGIN PASSWORD 'a-pw-12345'",
		"CREATE ROLE agent_b LOGIN PASSWORD 'b-pw-12345'",
		"CREATE TABLE memory (id int PRIMARY KEY, agent text NOT NULL, task text, emb real[])",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON memory TO agent_a, agent_b",
		"INSERT INTO memory SELECT i, CASE WHEN i % 2 = 0 THEN 'agent_a' ELSE 'agent_b' END, " +
			"'task ' || (ARRAY['parser','crash','cache','deploy'])[1 + i % 4] || ' ' || i, " +
			"ARRAY[sin(i * 0.37), cos(i * 1.3), sin(i * 0.71), cos(i * 2.9)]::real[] FROM generate_series(1, 400) i",
		"ALTER TABLE memory ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY own_rows ON memory USING (agent = current_user)",
		"SET hnsw.ef_search = 1000",
	} {
		exec(admin, q)
	}
	connect := func(user, pw string) *pgx.Conn {
		t.Helper()
		c, err := s.pgConnect("host=127.0.0.1 user=" + user + " password=" + pw)
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		exec(c, "SET hnsw.ef_search = 1000")
		return c
	}
	agents := map[string]*pgx.Conn{"agent_a": connect("agent_a", "a-pw-12345"), "agent_b": connect("agent_b", "b-pw-12345")}

	// rows runs q on c and returns its rows as "id agent" strings.
	rows := func(c *pgx.Conn, q string, args ...any) []string {
		t.Helper()
		rs, err := c.Query(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for rs.Next() {
			var id int32
			var agent string
			if err := rs.Scan(&id, &agent); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d", agent, id))
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	const (
		vector = "SELECT id, agent FROM memory %s ORDER BY emb <#> $1::real[] LIMIT 7"
		hybrid = "SELECT id, agent FROM memory %s ORDER BY (emb, task)::deeplake_hybrid_record <#> deeplake_hybrid_record($1::real[], 'parser crash', 0.5, 0.5) DESC LIMIT 7"
	)
	query := []float32{0.1, 0.9, 0.2, 0.3}
	searches := func(phase string) {
		t.Helper()
		for name, c := range agents {
			var n int
			if err := c.QueryRow(ctx, "SELECT count(*) FROM memory WHERE agent <> $1", name).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%s: %s sees %d rows of the other agent (%v)", phase, name, n, err)
			}
			if err := c.QueryRow(ctx, "SELECT count(*) FROM memory").Scan(&n); err != nil || n != 200 {
				t.Fatalf("%s: %s sees %d rows (%v), want its 200", phase, name, n, err)
			}
			for _, q := range []string{vector, hybrid} {
				got := rows(c, strings.Replace(q, "%s", "", 1), query)
				want := rows(admin, strings.Replace(q, "%s", "WHERE agent = '"+name+"'", 1), query)
				if len(got) != 7 || !slices.Equal(got, want) {
					t.Fatalf("%s: %s's search %q:\n got %v\nwant %v", phase, name, q, got, want)
				}
			}
		}
	}
	searches("scan")
	exec(admin, "CREATE INDEX memory_hnsw ON memory USING hnsw (emb)")
	var plan string
	rs, err := agents["agent_a"].Query(ctx, "EXPLAIN "+strings.Replace(vector, "%s", "", 1), query)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var line string
		if err := rs.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan += line + "\n"
	}
	if !strings.Contains(plan, "Vector Index Scan using memory_hnsw") || !strings.Contains(plan, "Filter: (agent = (current_user())::text)") {
		t.Fatalf("the index plan does not carry the policy:\n%s", plan)
	}
	searches("hnsw index")

	a := agents["agent_a"]
	for _, q := range []string{"UPDATE memory SET task = 'stolen' WHERE agent = 'agent_b'", "DELETE FROM memory WHERE id = 1", "DELETE FROM memory WHERE agent = 'agent_b'"} {
		tag, err := a.Exec(ctx, q)
		if err != nil || tag.RowsAffected() != 0 {
			t.Fatalf("%s: %v rows, %v; want 0 rows", q, tag.RowsAffected(), err)
		}
	}
	if got := rows(a, "UPDATE memory SET task = 'mine' WHERE id IN (1, 2) RETURNING id, agent"); !slices.Equal(got, []string{"agent_a 2"}) {
		t.Fatalf("UPDATE ... RETURNING: %v", got)
	}
	if _, err := a.Exec(ctx, "INSERT INTO memory VALUES (1001, 'agent_b', 'planted', NULL)"); sqlState(err) != "42501" {
		t.Fatalf("INSERT of the other agent's row: %v, want 42501", err)
	}
	if _, err := a.Exec(ctx, "UPDATE memory SET agent = 'agent_b' WHERE id = 2"); sqlState(err) != "42501" {
		t.Fatalf("UPDATE giving a row away: %v, want 42501", err)
	}
	exec(a, "INSERT INTO memory VALUES (1001, 'agent_a', 'mine', NULL)")
	var stolen int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM memory WHERE agent = 'agent_b' AND task IN ('stolen', 'mine')").Scan(&stolen); err != nil || stolen != 0 {
		t.Fatalf("agent_b's rows changed: %d (%v)", stolen, err)
	}
	copyOut, err := a.PgConn().CopyTo(ctx, &strings.Builder{}, "COPY memory (agent) TO STDOUT")
	if err != nil || copyOut.RowsAffected() != 201 {
		t.Fatalf("COPY TO: %d rows (%v), want agent_a's 201", copyOut.RowsAffected(), err)
	}
	// A statement prepared as the superuser binds anew under SET ROLE:
	// the policies that filter it depend on the role.
	const count = "SELECT count(*) FROM memory WHERE id > $1"
	for _, want := range []struct {
		set string
		n   int
	}{{"RESET ROLE", 401}, {"SET ROLE agent_b", 200}, {"RESET ROLE", 401}} {
		exec(admin, want.set)
		var n int
		if err := admin.QueryRow(ctx, count, 0).Scan(&n); err != nil || n != want.n {
			t.Fatalf("after %s: %d rows (%v), want %d", want.set, n, err, want.n)
		}
	}
	exec(a, "SET row_security = off")
	if _, err := a.Exec(ctx, count, 0); sqlState(err) != "42501" {
		t.Fatalf("row_security = off: %v, want 42501", err)
	}
	for _, c := range agents {
		c.Close(ctx)
	}
	admin.Close(ctx)
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	s = startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret")
	defer s.stop()
	b, err := s.pgConnect("host=127.0.0.1 user=agent_b password=b-pw-12345")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	var n int
	var rls bool
	if err := b.QueryRow(ctx, "SELECT count(*), bool_and(agent = 'agent_b') FROM memory").Scan(&n, &rls); err != nil || n != 200 || !rls {
		t.Fatalf("agent_b after restart: %d rows, all its own %v (%v)", n, rls, err)
	}
	if err := b.QueryRow(ctx, "SELECT relrowsecurity FROM pg_class WHERE relname = 'memory'").Scan(&rls); err != nil || !rls {
		t.Fatalf("relrowsecurity after restart: %v (%v)", rls, err)
	}
}

// Row-level security survives a SIGKILL of the real binary: the policy
// and the FORCE set just before the kill still filter the owner's reads
// after the restart, and the policy dropped before it is gone.
func TestRowSecurityKill9(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startLogged(t, dir, "--password", "boot-s3cret")
	conn, err := pgx.Connect(ctx, "postgres://cairn:boot-s3cret@"+p.addr+"/cairn?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.log())
	}
	for _, q := range []string{
		"CREATE ROLE keeper LOGIN PASSWORD 'keeper-pw-1'",
		"CREATE TABLE kept (id int, agent text)",
		"ALTER TABLE kept OWNER TO keeper",
		"INSERT INTO kept VALUES (1, 'keeper'), (2, 'other')",
		"ALTER TABLE kept ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY gone ON kept USING (true)",
		"CREATE POLICY own ON kept USING (agent = current_user)",
		"DROP POLICY gone ON kept",
		"ALTER TABLE kept FORCE ROW LEVEL SECURITY",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p.kill()
	p = startLogged(t, dir, "--password", "boot-s3cret")
	c, err := pgx.Connect(ctx, "postgres://keeper:keeper-pw-1@"+p.addr+"/cairn?sslmode=disable")
	if err != nil {
		t.Fatalf("keeper after the crash: %v\n%s", err, p.log())
	}
	defer c.Close(ctx)
	var ids, policies string
	if err := c.QueryRow(ctx, "SELECT string_agg(id::text, ','), (SELECT string_agg(policyname, ',') FROM pg_policies WHERE tablename = 'kept') FROM kept").Scan(&ids, &policies); err != nil {
		t.Fatal(err)
	}
	if ids != "1" || policies != "own" {
		t.Fatalf("after the crash the owner reads ids %q under policies %q, want \"1\" under \"own\"", ids, policies)
	}
}
