"""asyncpg's prepare error path against cairn: asyncpg prepares with Parse,
Describe and Flush (no Sync) and waits for the answer, so an error in the
prepare must reach it at once. A syntax error, an unknown table and a
parameter that is not valid UTF-8 each fail with their SQLSTATE, then the
same connection still answers. Prints one line per check; the Go test
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
    await conn.close()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
