"""asyncpg's prepare error path against cairn: asyncpg prepares with Parse,
Describe and Flush (no Sync) and waits for the answer, so an error in the
prepare must reach it at once. A syntax error, an unknown table and a
parameter that is not valid UTF-8 each fail with their SQLSTATE, then the
same connection still answers. A statement whose result a DDL changed is
InvalidCachedStatementError (asyncpg knows it by the error's routine,
RevalidateCachedQuery), which asyncpg's own statement cache handles by
preparing the statement again. Prints one line per check; the Go test
TestAsyncpgErrors compares them. Usage: python3 asyncpg_errors.py HOST PORT
"""
import asyncio
import sys

import asyncpg


async def expect_error(conn, label, coro):
    try:
        await asyncio.wait_for(coro, 10)
    except asyncpg.PostgresError as e:
        print(label, e.sqlstate, e.args[0] if e.args else "")
    else:
        print(label, "no error")


async def main(host, port):
    conn = await asyncpg.connect(host=host, port=port, user="cairn", database="cairn")
    await expect_error(conn, "syntax", conn.prepare("SELEC 1"))
    await expect_error(conn, "unknown", conn.fetch("SELECT * FROM no_such_table"))
    await expect_error(conn, "prepare unknown", conn.prepare("SELECT x FROM no_such_table WHERE x = $1"))
    print("after", await asyncio.wait_for(conn.fetchval("SELECT 1 + $1::int", 1), 10))
    await conn.execute("CREATE TABLE cached (id int, t text)")
    await conn.execute("INSERT INTO cached VALUES (1, 'a')")
    stmt = await conn.prepare("SELECT * FROM cached WHERE id = $1")
    query = "SELECT * FROM cached WHERE id = $1"
    print("cached before", len(await stmt.fetchrow(1)), len(await conn.fetchrow(query, 1)))
    await conn.execute("ALTER TABLE cached ADD COLUMN extra int DEFAULT 7")
    try:
        await stmt.fetchrow(1)
    except asyncpg.exceptions.InvalidCachedStatementError as e:
        print("prepared after DDL", type(e).__name__, e.sqlstate)
    except asyncpg.PostgresError as e:
        print("prepared after DDL", type(e).__name__, e.sqlstate)
    print("cache after DDL", tuple(await conn.fetchrow(query, 1)))
    await conn.close()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
