package main

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestNetworkTypesPgx round-trips inet, cidr, macaddr and macaddr8 and
// their arrays through pgx over a real socket: parameters and results in
// binary (pgx's codecs for netip.Prefix, net.IPNet and net.HardwareAddr)
// and in text (the simple protocol), COPY in binary out of one table and
// into another, COPY in text and CSV, a cidr with host bits refused in
// binary, the same values after the server is killed and restarted, and
// inet_client_addr() and inet_server_addr() of the connection.
func TestNetworkTypesPgx(t *testing.T) {
	dir := t.TempDir()
	p := startLogged(t, dir)
	ctx := context.Background()
	conn := p.connect(t)
	const cols = `id int PRIMARY KEY, a inet, c cidr, m macaddr, m8 macaddr8, aa inet[], ca cidr[], ma macaddr[], m8a macaddr8[]`
	mustExec(t, conn, `CREATE TABLE nt (`+cols+`)`)
	mustExec(t, conn, `CREATE TABLE nt2 (`+cols+`)`)

	mac := func(s string) net.HardwareAddr {
		m, err := net.ParseMAC(s)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	_, ipnet, _ := net.ParseCIDR("2001:db8::/32")
	// Binary parameters: pgx encodes these Go types in binary.
	if _, err := conn.Exec(ctx, `INSERT INTO nt VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		1, netip.MustParsePrefix("192.168.1.5/24"), ipnet, mac("08:00:2b:01:02:03"), mac("08:00:2b:01:02:03:04:05"),
		[]netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		[]net.HardwareAddr{mac("ff:ff:ff:ff:ff:ff")}, "{01:02:03:04:05:06:07:08}"); err != nil {
		t.Fatalf("binary parameters: %v", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO nt (id, a, m8) VALUES ($1, $2, $3)`, 2, netip.MustParseAddr("fe80::1"), mac("01:02:03:04:05:06")); err != nil {
		t.Fatalf("binary inet from netip.Addr: %v", err)
	}
	// Text, through the simple protocol.
	if _, err := conn.Exec(ctx, `INSERT INTO nt VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, pgx.QueryExecModeSimpleProtocol,
		3, "::ffff:1.2.3.4/120", "192.168/16", "0800.2b01.0204", "0800.2b01.0203.0405",
		"{1.2.3.4/8,NULL}", "{::/0}", "{08-00-2b-01-02-03}", "{08002b010203}"); err != nil {
		t.Fatalf("text parameters: %v", err)
	}
	mustExec(t, conn, `INSERT INTO nt (id) VALUES (4)`)
	_, err := conn.Exec(ctx, `INSERT INTO nt (id, c) VALUES ($1, $2)`, 5, netip.MustParsePrefix("10.1.2.3/8"))
	if sqlState(err) != "22P03" || !strings.Contains(err.Error(), `invalid external "cidr" value`) {
		t.Fatalf("binary cidr with bits right of its mask: %v, want 22P03", err)
	}

	wantText := []string{
		`1|192.168.1.5/24|2001:db8::/32|08:00:2b:01:02:03|08:00:2b:01:02:03:04:05|{10.0.0.1,::1}|{10.0.0.0/8}|{ff:ff:ff:ff:ff:ff}|{01:02:03:04:05:06:07:08}`,
		`2|fe80::1|01:02:03:ff:fe:04:05:06`,
		`3|::ffff:1.2.3.4/120|192.168.0.0/16|08:00:2b:01:02:04|08:00:2b:01:02:03:04:05|{1.2.3.4/8,NULL}|{::/0}|{08:00:2b:01:02:03}|{08:00:2b:ff:fe:01:02:03}`,
		`4`,
	}
	check := func(c *pgx.Conn, table string) {
		t.Helper()
		// concat_ws leaves NULLs out.
		rows, err := c.Query(ctx, `SELECT concat_ws('|', id, a, c, m, m8, aa, ca, ma, m8a) FROM `+table+` ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantText) {
			t.Errorf("%s as text:\n%s\nwant\n%s", table, strings.Join(got, "\n"), strings.Join(wantText, "\n"))
		}
		// Binary results, decoded by pgx's codecs.
		var a, cidr netip.Prefix
		var m, m8 net.HardwareAddr
		var aa, ca []netip.Prefix
		var ma []net.HardwareAddr
		if err := c.QueryRow(ctx, `SELECT a, c, m, m8, aa, ca, ma FROM `+table+` WHERE id = 1`).Scan(&a, &cidr, &m, &m8, &aa, &ca, &ma); err != nil {
			t.Fatalf("binary results: %v", err)
		}
		if a != netip.MustParsePrefix("192.168.1.5/24") || cidr != netip.MustParsePrefix("2001:db8::/32") ||
			m.String() != "08:00:2b:01:02:03" || m8.String() != "08:00:2b:01:02:03:04:05" ||
			!reflect.DeepEqual(aa, []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("::1/128")}) ||
			!reflect.DeepEqual(ca, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}) ||
			len(ma) != 1 || ma[0].String() != "ff:ff:ff:ff:ff:ff" {
			t.Errorf("binary results: %v %v %v %v %v %v %v", a, cidr, m, m8, aa, ca, ma)
		}
		// The same columns in text (simple protocol), parsed by pgx.
		var ta netip.Prefix
		var tm8 string
		if err := c.QueryRow(ctx, `SELECT a, m8 FROM `+table+` WHERE id = 3`, pgx.QueryExecModeSimpleProtocol).Scan(&ta, &tm8); err != nil {
			t.Fatalf("text results: %v", err)
		}
		if ta != netip.MustParsePrefix("::ffff:1.2.3.4/120") || tm8 != "08:00:2b:01:02:03:04:05" {
			t.Errorf("text results: %v %q", ta, tm8)
		}
		// Keys and order by the types' own rules.
		var ids string
		if err := c.QueryRow(ctx, `SELECT string_agg(id::text, ',' ORDER BY a, id) FROM `+table+` WHERE a << '0.0.0.0/0' OR a <<= '::/0'`).Scan(&ids); err != nil {
			t.Fatal(err)
		}
		if ids != "1,3,2" {
			t.Errorf("ORDER BY inet of the addresses: %s, want 1,3,2 (IPv4 first, then ::ffff:1.2.3.4 before fe80::1)", ids)
		}
	}
	check(conn, "nt")

	// COPY binary out of nt and into nt2.
	var bin bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &bin, `COPY nt TO STDOUT (FORMAT binary)`); err != nil {
		t.Fatalf("COPY TO binary: %v", err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(bin.Bytes()), `COPY nt2 FROM STDIN (FORMAT binary)`); err != nil {
		t.Fatalf("COPY FROM binary: %v", err)
	}
	check(conn, "nt2")

	// pgx's CopyFrom sends binary rows built from Go values.
	mustExec(t, conn, `CREATE TABLE nt3 (a inet, c cidr, m macaddr)`)
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"nt3"}, []string{"a", "c", "m"}, pgx.CopyFromRows([][]any{
		{netip.MustParsePrefix("10.9.8.7/16"), netip.MustParsePrefix("10.9.0.0/16"), mac("aa:bb:cc:dd:ee:ff")},
		{nil, nil, nil},
	}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom (binary): %d rows, %v", n, err)
	}
	// COPY text and CSV in, then text out.
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1.1.1.1\t1.1.0.0/16\t01-02-03-04-05-06\n\\N\t\\N\t\\N\n"), `COPY nt3 FROM STDIN`); err != nil {
		t.Fatalf("COPY FROM text: %v", err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("::2/64,::/64,0102.0304.0507\n"), `COPY nt3 FROM STDIN (FORMAT csv)`); err != nil {
		t.Fatalf("COPY FROM csv: %v", err)
	}
	_, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("1.1.1.1\t1.1.1.1/16\t01-02-03-04-05-06\n"), `COPY nt3 FROM STDIN`)
	if sqlState(err) != "22P02" {
		t.Fatalf("COPY FROM text of a cidr with host bits: %v, want 22P02", err)
	}
	copyOut := func(c *pgx.Conn, q string) string {
		t.Helper()
		var buf bytes.Buffer
		if _, err := c.PgConn().CopyTo(ctx, &buf, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return buf.String()
	}
	const wantCopy = "1.1.1.1\t1.1.0.0/16\t01:02:03:04:05:06\n10.9.8.7/16\t10.9.0.0/16\taa:bb:cc:dd:ee:ff\n::2/64\t::/64\t01:02:03:04:05:07\n\\N\t\\N\t\\N\n\\N\t\\N\t\\N\n"
	if got := copyOut(conn, `COPY (SELECT * FROM nt3 ORDER BY a, m) TO STDOUT`); got != wantCopy {
		t.Errorf("COPY TO text: %q, want %q", got, wantCopy)
	}

	p.kill()
	p = startLogged(t, dir)
	conn = p.connect(t)
	check(conn, "nt")
	check(conn, "nt2")
	if got := copyOut(conn, `COPY (SELECT * FROM nt3 ORDER BY a, m) TO STDOUT`); got != wantCopy {
		t.Errorf("COPY TO text after the restart: %q, want %q", got, wantCopy)
	}
	// The connection's ends, as inet and port.
	var client, server string
	var port int
	if err := conn.QueryRow(ctx, `SELECT host(inet_client_addr()), host(inet_server_addr()), inet_server_port()`).Scan(&client, &server, &port); err != nil {
		t.Fatal(err)
	}
	if _, wantPort, _ := strings.Cut(p.addr, ":"); client != "127.0.0.1" || server != "127.0.0.1" || strconv.Itoa(port) != wantPort {
		t.Errorf("inet_client_addr, inet_server_addr, inet_server_port: %s %s %d, want 127.0.0.1 127.0.0.1 %s", client, server, port, wantPort)
	}
	_, err = conn.Exec(ctx, `INSERT INTO nt (id, a) VALUES (6, 'bogus')`)
	if sqlState(err) != "22P02" {
		t.Fatalf("invalid inet text: %v, want 22P02", err)
	}
	noPanic(t, p.log())
}

// TestNetworkClients runs testdata/clients/network_check.py (psycopg 3 in
// text and binary, asyncpg's binary codecs, parameters of Python's
// ipaddress types both ways) and compares its output with PostgreSQL 15's
// for the same script (network_check.out).
func TestNetworkClients(t *testing.T) {
	out := runAsyncpg(t, "network_check.py")
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", "network_check.out"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("cairn answered\n%s\nPostgreSQL answered\n%s", out, want)
	}
}
