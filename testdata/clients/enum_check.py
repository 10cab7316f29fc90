"""Enum types through Python's drivers: psycopg 3 (text and binary),
asyncpg (which introspects the enum's OID through pg_type and decodes it
as str) and SQLAlchemy's Enum (CREATE TYPE on create_all, then a round
trip). Prints one line per check; cmd/cairn's TestEnumClients reads them.
Arguments: host port."""
import asyncio
import enum
import sys

import asyncpg
import psycopg
import sqlalchemy as sa

host, port = sys.argv[1], int(sys.argv[2])
dsn = f"host={host} port={port} user=cairn dbname=cairn"

with psycopg.connect(dsn, autocommit=True) as conn:
    conn.execute("CREATE TYPE py_mood AS ENUM ('sad', 'ok', 'happy')")
    conn.execute("CREATE TABLE py_t (id int PRIMARY KEY, m py_mood, ms py_mood[])")
    conn.execute("INSERT INTO py_t VALUES (1, %s, %s), (2, %s, NULL)", ["happy", ["ok", "sad"], "sad"])
    rows = conn.execute("SELECT id, m FROM py_t ORDER BY m").fetchall()
    print("psycopg text", rows)
    cur = conn.cursor(binary=True)
    cur.execute("SELECT m, m::text FROM py_t WHERE m = %s", ["happy"])
    print("psycopg binary", cur.fetchall())
    try:
        conn.execute("INSERT INTO py_t VALUES (3, %s)", ["nope"])
    except psycopg.Error as e:
        print("psycopg error", e.sqlstate, e.diag.message_primary)


async def run_asyncpg():
    conn = await asyncpg.connect(host=host, port=port, user="cairn", database="cairn")
    rows = await conn.fetch("SELECT id, m, ms FROM py_t ORDER BY id")
    print("asyncpg", [(r["id"], r["m"], r["ms"]) for r in rows], type(rows[0]["m"]).__name__)
    await conn.execute("INSERT INTO py_t VALUES ($1, $2, $3)", 3, "ok", ["happy"])
    print("asyncpg param", await conn.fetchval("SELECT count(*) FROM py_t WHERE m = $1", "ok"))
    print("asyncpg range", await conn.fetchval("SELECT enum_range(NULL::py_mood)"))
    try:
        await conn.execute("INSERT INTO py_t VALUES ($1, $2)", 4, "nope")
    except asyncpg.PostgresError as e:
        print("asyncpg error", e.sqlstate)
    await conn.close()

asyncio.run(run_asyncpg())


class Status(enum.Enum):
    todo = "todo"
    doing = "doing"
    done = "done"


engine = sa.create_engine(f"postgresql+psycopg2://cairn@{host}:{port}/cairn")
meta = sa.MetaData()
tasks = sa.Table("py_tasks", meta,
                 sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("status", sa.Enum(Status, name="task_status"), nullable=False))
meta.create_all(engine)
with engine.begin() as c:
    c.execute(tasks.insert(), [{"id": 1, "status": Status.done}, {"id": 2, "status": Status.todo},
                               {"id": 3, "status": Status.doing}])
with engine.connect() as c:
    got = c.execute(sa.select(tasks.c.id, tasks.c.status).order_by(tasks.c.status)).all()
    print("sqlalchemy", [(i, s.name) for i, s in got])
    got = c.execute(sa.select(tasks.c.id).where(tasks.c.status == Status.doing)).scalars().all()
    print("sqlalchemy where", got)
insp = sa.inspect(engine)
print("sqlalchemy reflect", [e["labels"] for e in insp.get_enums() if e["name"] == "task_status"])
meta.drop_all(engine)
with engine.connect() as c:
    print("sqlalchemy dropped", c.execute(sa.text("SELECT count(*) FROM pg_type WHERE typname = 'task_status'")).scalar())
