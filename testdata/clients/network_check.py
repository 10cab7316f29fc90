"""The network address types through Python's drivers: psycopg 3 in text
and binary (ipaddress interfaces and networks, MAC addresses as str) and
asyncpg (its binary codecs for inet, cidr and macaddr, and arrays of
them). Prints one line per check; cmd/cairn's TestNetworkClients compares
them with PostgreSQL 15's (network_check.out). Arguments: host port."""
import asyncio
import ipaddress
import sys

import asyncpg
import psycopg

host, port = sys.argv[1], int(sys.argv[2])
dsn = f"host={host} port={port} user=cairn dbname=cairn"

with psycopg.connect(dsn, autocommit=True) as conn:
    conn.execute("DROP TABLE IF EXISTS py_net")
    conn.execute("CREATE TABLE py_net (id int PRIMARY KEY, a inet, c cidr, m macaddr, m8 macaddr8, aa inet[])")
    conn.execute(
        "INSERT INTO py_net VALUES (1, %s, %s, %s, %s, %s), (2, %s, %s, NULL, NULL, NULL)",
        [ipaddress.ip_interface("192.168.1.5/24"), ipaddress.ip_network("10.0.0.0/8"), "08:00:2b:01:02:03",
         "08:00:2b:01:02:03:04:05", [ipaddress.ip_address("::1"), ipaddress.ip_interface("10.0.0.1/32")],
         ipaddress.ip_address("2001:db8::1"), ipaddress.ip_network("2001:db8::/32")])
    for binary in (False, True):
        cur = conn.cursor(binary=binary)
        cur.execute("SELECT id, a, c, m, m8, aa FROM py_net ORDER BY a")
        print("psycopg", "binary" if binary else "text", cur.fetchall())
    cur = conn.cursor(binary=True)
    cur.execute("SELECT count(*) FROM py_net WHERE a << %s", [ipaddress.ip_network("192.168.0.0/16")])
    print("psycopg param", cur.fetchone())
    try:
        conn.execute("INSERT INTO py_net (id, c) VALUES (3, %s)", ["10.1.2.3/8"])
    except psycopg.Error as e:
        print("psycopg error", e.sqlstate, e.diag.message_primary, e.diag.message_detail)


async def run_asyncpg():
    conn = await asyncpg.connect(host=host, port=port, user="cairn", database="cairn")
    rows = await conn.fetch("SELECT id, a, c, m, aa FROM py_net ORDER BY id")
    print("asyncpg", [tuple(r) for r in rows])
    await conn.execute("INSERT INTO py_net (id, a, c, m, aa) VALUES ($1, $2, $3, $4, $5)", 4,
                       ipaddress.ip_interface("172.16.0.1/12"), ipaddress.ip_network("172.16.0.0/12"),
                       "01:02:03:04:05:06", [ipaddress.ip_address("1.1.1.1")])
    print("asyncpg param", await conn.fetchrow("SELECT a, c, m, aa, network(a), host(a) FROM py_net WHERE id = $1", 4))
    print("asyncpg cmp", await conn.fetchval("SELECT count(*) FROM py_net WHERE c >>= $1", ipaddress.ip_address("172.16.5.5")))
    try:
        await conn.execute("INSERT INTO py_net (id, a) VALUES ($1, $2::text::inet)", 5, "nope")
    except asyncpg.PostgresError as e:
        print("asyncpg error", e.sqlstate)
    await conn.close()

asyncio.run(run_asyncpg())
