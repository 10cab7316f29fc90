"""LangChain langchain-postgres PostgresChatMessageHistory, its statements sent as it sends them:
psycopg 3, sync and async, the session id a str into a UUID column, messages json.dumps'ed."""
import sys, json, asyncio, uuid
import psycopg
from psycopg import sql

T = sql.Identifier("chat_history")
create = [sql.SQL("""
            CREATE TABLE IF NOT EXISTS {table_name} (
                id SERIAL PRIMARY KEY,
                session_id UUID NOT NULL,
                message JSONB NOT NULL,
                created_at TIMESTAMPTZ NOT NULL DEFAULT NOW()
            );
            """).format(table_name=T),
          sql.SQL("""
            CREATE INDEX IF NOT EXISTS {index_name} ON {table_name} (session_id);
            """).format(table_name=T, index_name=sql.Identifier("idx_chat_history_session_id"))]
insert = sql.SQL("INSERT INTO {table_name} (session_id, message) VALUES (%s, %s)").format(table_name=T)
get = sql.SQL("SELECT message FROM {table_name} WHERE session_id = %(session_id)s ORDER BY id;").format(table_name=T)
clear = sql.SQL("DELETE FROM {table_name} WHERE session_id = %(session_id)s;").format(table_name=T)
drop = sql.SQL("DROP TABLE IF EXISTS {table_name};").format(table_name=T)
s1, s2 = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))

def msg(kind, text):
    return json.dumps({"type": kind, "data": {"content": text, "additional_kwargs": {}, "type": kind}})

def sync(dsn, out):
    with psycopg.connect(dsn) as conn:
        with conn.cursor() as cur:
            cur.execute(drop)
            for q in create:
                cur.execute(q)
            for q in create:  # a second history on the same table
                cur.execute(q)
        conn.commit()
        with conn.cursor() as cur:
            cur.executemany(insert, [(s1, msg("human", "hi")), (s1, msg("ai", "hello")), (s2, msg("human", "other"))])
        conn.commit()
        with conn.cursor() as cur:
            cur.execute(get, {"session_id": s1})
            out.append(("sync", [r[0]["data"]["content"] for r in cur.fetchall()]))

async def asyn(dsn, out):
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        async with conn.cursor() as cur:
            await cur.executemany(insert, [(s1, msg("human", "again"))])
        await conn.commit()
        async with conn.cursor() as cur:
            await cur.execute(get, {"session_id": s1})
            out.append(("async", [r[0]["data"]["content"] for r in await cur.fetchall()]))
            await cur.execute(clear, {"session_id": s1})
        await conn.commit()
        async with conn.cursor() as cur:
            await cur.execute(get, {"session_id": s1})
            out.append(("cleared", await cur.fetchall()))
            await cur.execute(get, {"session_id": s2})
            out.append(("other", [r[0]["type"] for r in await cur.fetchall()]))
            await cur.execute("SELECT count(*), min(created_at) <= now() FROM chat_history")
            out.append(("rows", await cur.fetchone()))
            await cur.execute(drop)
        await conn.commit()

out = []
sync(sys.argv[1], out)
asyncio.run(asyn(sys.argv[1], out))
for o in out:
    print(o)
