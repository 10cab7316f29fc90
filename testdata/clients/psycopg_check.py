"""psycopg 3 and psycopg2 (Debian's python3-psycopg and python3-psycopg2)
against cairn, the way Python agents use it: parameters (JSONB, real[]
embeddings, the hybrid search), executemany, binary results, TypeInfo
lookups, COPY, and server-side (named) cursors, which stream a big result
with DECLARE and FETCH. Prints one line per check; the Go test TestPsycopg
compares them. Usage: python3 psycopg_check.py CONNINFO
"""
import sys
import psycopg
import psycopg2
from psycopg.types.json import Jsonb

conninfo = sys.argv[1]
emb = [1.0, 0.0, 0.0, 0.0]

with psycopg.connect(conninfo) as conn:
    cur = conn.cursor()
    cur.execute("CREATE TABLE pymem (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding real[])")
    cur.executemany(
        "INSERT INTO pymem (task, metadata, embedding) VALUES (%s, %s, %s)",
        [(f"task {i}" + (" oom" if i % 3 == 0 else ""), Jsonb({"repo": "api" if i % 2 else "web"}),
          [1.0, i / 100.0, 0.0, 0.0]) for i in range(500)])
    conn.commit()
    cur.execute("SELECT id, cosine_similarity(embedding, %s::float4[]) > 0.99 FROM pymem WHERE metadata->>'repo' = %s "
                "ORDER BY cosine_similarity(embedding, %s::float4[]) DESC LIMIT 3", (emb, "web", emb))
    print("search", cur.fetchall())
    cur.execute("SELECT task, (embedding, task)::deeplake_hybrid_record <#> deeplake_hybrid_record(%s::float4[], %s, 0.5, 0.5) AS score "
                "FROM pymem ORDER BY score DESC LIMIT 1", (emb, "oom"))
    print("hybrid", cur.fetchone()[0])
    bcur = conn.cursor(binary=True)
    bcur.execute("SELECT id, metadata, embedding FROM pymem WHERE id = %s", (2,))
    print("binary", bcur.fetchone())
    print("typeinfo", psycopg.types.TypeInfo.fetch(conn, "jsonb").oid, psycopg.types.TypeInfo.fetch(conn, "float4[]").name)
    with cur.copy("COPY pymem (task) FROM STDIN") as cp:
        for i in range(3):
            cp.write_row((f"copied {i}",))
    conn.commit()
    print("count", cur.execute("SELECT count(*) FROM pymem").fetchone()[0])

    # A named cursor reads the result a batch (itersize) at a time.
    with conn.cursor(name="stream") as named:
        named.itersize = 64
        named.execute("SELECT id, task FROM pymem WHERE id > %s ORDER BY id", (100,))
        first = named.fetchone()
        some = named.fetchmany(10)
        rest = named.fetchall()
        print("named", first, len(some), len(rest), rest[-1][0])
    conn.commit()
    with conn.cursor(name="held", withhold=True) as held:
        held.execute("SELECT id FROM pymem ORDER BY id LIMIT 5")
        conn.commit()
        print("withhold", [r[0] for r in held.fetchall()])

with psycopg2.connect(conninfo) as conn2:
    with conn2.cursor(name="legacy") as c2:
        c2.itersize = 100
        c2.execute("SELECT id FROM pymem WHERE task LIKE %s ORDER BY id", ("%oom%",))
        ids = [r[0] for r in c2]
        print("psycopg2 named", len(ids), ids[:3])
