"""Semantic Kernel's PostgresCollection (semantic_kernel/connectors/postgres.py), its statements sent
as it sends them: psycopg 3 async, executemany upserts in a transaction, the vector as a list
parameter on write and a '[...]' string on search, the distance wrapped in a subquery."""
import sys, json, asyncio
import psycopg
from psycopg import sql

S, T = sql.Identifier("public"), sql.Identifier("sk_hotels")
FIELDS = [("hotel_id", "TEXT PRIMARY KEY"), ("hotel_name", "TEXT"), ("rating", "DOUBLE PRECISION"), ("parking", "BOOLEAN"),
          ("tags", "TEXT[]"), ("details", "JSONB"), ("rooms", "INTEGER"), ("embedding", None)]

async def main(dsn):
    out = []
    conn = await psycopg.AsyncConnection.connect(dsn)
    async with conn.cursor() as cur:
        await cur.execute(sql.SQL("DROP TABLE IF EXISTS {schema}.{table} CASCADE").format(schema=S, table=T))
        await conn.commit()
        await cur.execute("""
                SELECT table_name
                FROM information_schema.tables
                WHERE table_schema = %s AND table_name = %s
                """, ("public", "sk_hotels"))
        out.append(("exists", await cur.fetchone()))
        cols = [sql.SQL("{name} VECTOR({dimensions})").format(name=sql.Identifier(n), dimensions=sql.Literal(3)) if t is None
                else sql.SQL("{name} {col_type}").format(name=sql.Identifier(n), col_type=sql.SQL(t)) for n, t in FIELDS]
        await cur.execute(sql.SQL("CREATE TABLE {schema}.{table} ({columns})").format(schema=S, table=T, columns=sql.SQL(", ").join(cols)))
        await conn.commit()
        for kind, ops in [("hnsw", "vector_cosine_ops"), ("hnsw", "vector_l1_ops")]:
            await cur.execute(sql.SQL("CREATE INDEX {index_name} ON {schema}.{table} USING {index_kind} ({column_name} {op})").format(
                index_name=sql.Identifier("sk_hotels_embedding_" + ops), schema=S, table=T, index_kind=sql.SQL(kind),
                column_name=sql.Identifier("embedding"), op=sql.SQL(ops)))
            await conn.commit()
    names = [n for n, _ in FIELDS]
    upsert = sql.SQL("INSERT INTO {schema}.{table} ({col_names}) VALUES ({placeholders}) ON CONFLICT ({key_name}) DO UPDATE SET {update_columns}").format(
        schema=S, table=T, col_names=sql.SQL(", ").join(sql.Identifier(n) for n in names),
        placeholders=sql.SQL(", ").join(sql.Placeholder() * len(names)), key_name=sql.Identifier("hotel_id"),
        update_columns=sql.SQL(", ").join(sql.SQL("{field} = EXCLUDED.{field}").format(field=sql.Identifier(n)) for n in names[1:]))
    rows = [("h1", "Sea View", 4.5, True, ["beach", "pool"], json.dumps({"city": "Nice"}), 40, [1.0, 0.0, 0.0]),
            ("h2", "Mountain Lodge", 3.9, False, ["ski"], json.dumps({"city": "Aspen"}), 12, [0.0, 1.0, 0.0]),
            ("h3", "City Inn", 4.1, True, [], None, 80, [0.5, 0.5, 0.7])]
    async with conn.transaction():
        async with conn.cursor() as cur:
            await cur.executemany(upsert, rows)
            await cur.executemany(upsert, [("h2", "Mountain Lodge II", 4.0, False, ["ski", "spa"], json.dumps({"city": "Aspen"}), 14, [0.1, 1.0, 0.0])])
    async with conn.cursor() as cur:
        sel = [sql.Identifier(n) for n in names]
        await cur.execute(sql.SQL("SELECT {select_list} FROM {schema}.{table} WHERE {key_name} IN ({keys})").format(
            select_list=sql.SQL(", ").join(sel), schema=S, table=T, key_name=sql.Identifier("hotel_id"),
            keys=sql.SQL(", ").join(sql.Literal(k) for k in ["h1", "h2"])))
        out.append(("get", sorted(await cur.fetchall())))
        dist = sql.Identifier("sk_pg_distance")
        for op, wrap, where in [("<=>", None, None), ("<=>", "1 -", None), ("<#>", "-1 *", None), ("<->", None, None), ("<+>", None, None),
                                ("<=>", None, '("rating" >= 4.0 AND "parking" = TRUE)'), ("<=>", None, "\"hotel_name\" IN ('City Inn', 'Sea View')"),
                                ("<=>", "1 -", "NOT (\"rooms\" > 50)")]:
            q = sql.SQL("SELECT {select_list}, {vec_col} {dist_op} %s as {dist_col} FROM {schema}.{table}").format(
                select_list=sql.SQL(", ").join(sql.Identifier(n) for n in names[:-1]), vec_col=sql.Identifier("embedding"),
                dist_op=sql.SQL(op), dist_col=dist, schema=S, table=T)
            if where:
                q += sql.SQL(" WHERE {}").format(sql.SQL(where))
            q += sql.SQL(" ORDER BY {dist_col} LIMIT {limit}").format(dist_col=dist, limit=sql.Literal(3))
            q += sql.SQL(" OFFSET {offset}").format(offset=sql.Literal(0))
            if wrap:
                q = sql.SQL("SELECT subquery.*, " + wrap + " subquery.{d} AS {d} FROM ({subquery}) AS subquery").format(d=dist, subquery=q)
            await cur.execute(q, ["[" + ",".join(str(float(v)) for v in [0.9, 0.2, 0.1]) + "]"])
            res = await cur.fetchall()
            out.append((op, wrap, where, [(r[0], round(r[-1], 4)) for r in res], [d.name for d in cur.description][-2:]))
    async with conn.transaction():
        async with conn.cursor() as cur:
            await cur.execute(sql.SQL("DELETE FROM {schema}.{table} WHERE {name} IN ({keys})").format(
                schema=S, table=T, name=sql.Identifier("hotel_id"), keys=sql.SQL(", ").join(sql.Literal(k) for k in ["h3"])))
    async with conn.cursor() as cur:
        await cur.execute(sql.SQL("""
                SELECT table_name
                FROM information_schema.tables
                WHERE table_schema = {}
            """).format(sql.Placeholder()) + sql.SQL(" AND table_name IN ({})").format(sql.SQL(", ").join(sql.Placeholder() * 1)), ["public", "sk_hotels"])
        out.append(("collections", await cur.fetchall()))
        await cur.execute(sql.SQL("SELECT count(*) FROM {schema}.{table}").format(schema=S, table=T))
        out.append(("count", await cur.fetchone()))
        await cur.execute(sql.SQL("DROP TABLE {schema}.{table} CASCADE").format(schema=S, table=T))
        await conn.commit()
    await conn.close()
    for o in out:
        print(o)

asyncio.run(main(sys.argv[1]))
