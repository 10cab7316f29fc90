"""asyncpg (Debian's python3-asyncpg) against cairn: asyncpg speaks only
the extended protocol with binary values, introspects types it does not
know, and its set_type_codec reads pg_type's "char" columns as bytes.
Stores and searches agent memories, uses a JSONB codec, COPY, prepared
statements, nested transactions (savepoints), a cursor, records and a
pool (whose release runs a reset query). Prints one line per check; the
Go test TestAsyncpg compares them. Usage: python3 asyncpg_check.py HOST PORT
"""
import asyncio
import json
import sys

import asyncpg


async def main(host, port):
    conn = await asyncpg.connect(host=host, port=port, user="cairn", database="cairn")
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    await conn.execute("CREATE TABLE amem (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding real[], score float8, n numeric)")
    await conn.executemany(
        "INSERT INTO amem (task, metadata, embedding, score, n) VALUES ($1, $2, $3, $4, $5)",
        [(f"task {i}" + (" oom" if i % 4 == 0 else ""), {"repo": "api" if i % 2 else "web", "i": i},
          [1.0, i / 10.0], i / 4, i * 1.5) for i in range(20)])
    row = await conn.fetchrow("SELECT id, task, metadata, embedding, score, n FROM amem WHERE id = $1", 3)
    print("row", row["id"], row["task"], row["metadata"], row["embedding"], row["score"], row["n"])
    top = await conn.fetch(
        "SELECT id FROM amem WHERE metadata->>'repo' = $1 ORDER BY cosine_similarity(embedding, $2::float4[]) DESC LIMIT 3",
        "api", [1.0, 0.1])
    print("search", [r["id"] for r in top])
    best = await conn.fetchval(
        "SELECT task FROM amem ORDER BY (embedding, task)::deeplake_hybrid_record <#> deeplake_hybrid_record($1::float4[], $2, 0.5, 0.5) DESC LIMIT 1",
        [1.0, 0.0], "oom")
    print("hybrid", best)
    print("record", await conn.fetchval("SELECT ROW(1, 'a'::text, 2.5::float8)"))
    print("types", await conn.fetchval("SELECT pg_typeof($1::real[])::text", [1.0]),
          await conn.fetchval("SELECT relkind FROM pg_class WHERE relname = 'amem'"))
    await conn.copy_records_to_table("amem", records=[("copied", [0.5, 0.5])], columns=["task", "embedding"])
    stmt = await conn.prepare("SELECT count(*) FROM amem WHERE score > $1")
    print("prepared", await stmt.fetchval(2.0), await stmt.fetchval(4.0))
    async with conn.transaction():
        await conn.execute("INSERT INTO amem (task) VALUES ('outer')")
        try:
            async with conn.transaction():
                await conn.execute("INSERT INTO amem (task) VALUES ('inner')")
                raise RuntimeError("roll the savepoint back")
        except RuntimeError:
            pass
    print("count", await conn.fetchval("SELECT count(*) FROM amem"), await conn.fetchval("SELECT count(*) FROM amem WHERE task = 'inner'"))
    async with conn.transaction():
        ids = [r["id"] async for r in conn.cursor("SELECT id FROM amem ORDER BY id", prefetch=4)]
    print("cursor", len(ids), ids[:5])
    try:
        await conn.fetchval("SELECT cosine_similarity($1::float4[], $2::float4[])", [1.0, 2.0], [1.0])
    except asyncpg.PostgresError as e:
        print("error", e.sqlstate)
    await conn.close()

    pool = await asyncpg.create_pool(host=host, port=port, user="cairn", database="cairn", min_size=2, max_size=2)
    for _ in range(3):
        async with pool.acquire() as c:
            n = await c.fetchval("SELECT count(*) FROM amem")
    print("pool", n)
    await pool.close()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
