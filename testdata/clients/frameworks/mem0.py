"""mem0's PGVector store (mem0/vector_stores/pgvector.py), its statements sent as it sends them:
psycopg 3 (executemany, list params) and psycopg2 (execute_values, list params)."""
import sys, json, uuid

OPS = {"eq": ("payload->>%s = %s", False), "ne": ("payload->>%s != %s", False),
       "gt": ("(payload->>%s)::numeric > %s", True), "gte": ("(payload->>%s)::numeric >= %s", True),
       "lt": ("(payload->>%s)::numeric < %s", True), "lte": ("(payload->>%s)::numeric <= %s", True),
       "in": ("payload->>%s = ANY(%s)", False), "nin": ("NOT (payload->>%s = ANY(%s))", False),
       "contains": ("payload->>%s LIKE %s", False), "icontains": ("payload->>%s ILIKE %s", False)}

def conds(filters):
    c, p = [], []
    for key, value in (filters or {}).items():
        if key == "$or":
            g = []
            for f in value:
                sc, sp = conds(f); g.append("(" + " AND ".join(sc) + ")"); p.extend(sp)
            c.append("(" + " OR ".join(g) + ")"); continue
        if key == "$not":
            g = []
            for f in value:
                sc, sp = conds(f); g.append("(" + " AND ".join(sc) + ")"); p.extend(sp)
            c.append("NOT (" + " OR ".join(g) + ")"); continue
        if value == "*":
            c.append("payload ? %s"); p.append(key); continue
        if isinstance(value, dict):
            for op, ov in value.items():
                t, num = OPS[op]
                if op in ("in", "nin"):
                    c.append(t); p.extend([key, [str(v) for v in ov]])
                elif op in ("contains", "icontains"):
                    esc = str(ov).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                    c.append(t + " ESCAPE '\\'"); p.extend([key, f"%{esc}%"])
                else:
                    c.append(t); p.extend([key, float(ov) if num else str(ov)])
        elif isinstance(value, list):
            c.append("payload->>%s = ANY(%s)"); p.extend([key, [str(v) for v in value]])
        else:
            c.append("payload->>%s = %s"); p.extend([key, json.dumps(value) if isinstance(value, bool) else str(value)])
    return c, p

def run(version, dsn):
    if version == 3:
        import psycopg as pg
        from psycopg import sql
        from psycopg.types.json import Json
        conn = pg.connect(dsn)
    else:
        import psycopg2 as pg
        from psycopg2 import sql
        from psycopg2.extras import Json, execute_values
        conn = pg.connect(dsn)
    col = sql.Identifier("mem0_v%d" % version)
    out = []
    cur = conn.cursor()
    cur.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(col)); conn.commit()
    cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
    cur.execute(sql.SQL("""
                CREATE TABLE IF NOT EXISTS {} (
                    id UUID PRIMARY KEY,
                    vector vector({}),
                    payload JSONB
                );
                """).format(col, sql.Literal(3)))
    cur.execute("SELECT * FROM pg_extension WHERE extname = 'vectorscale'")
    out.append(("vectorscale", cur.fetchone()))
    cur.execute(sql.SQL("""
                    CREATE INDEX IF NOT EXISTS {} ON {}
                    USING hnsw (vector vector_cosine_ops)
                    """).format(sql.Identifier("mem0_v%d_hnsw_idx" % version), col))
    cur.execute(sql.SQL("""
                CREATE INDEX IF NOT EXISTS {} ON {}
                USING gin(to_tsvector('simple', payload->>'text_lemmatized'));
                """).format(sql.Identifier("mem0_v%d_text_lemmatized_idx" % version), col))
    conn.commit()
    ids = [str(uuid.UUID(int=i + 1)) for i in range(4)]
    vecs = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.6, 0.8, 0.0]]
    pls = [{"data": "likes pizza", "text_lemmatized": "like pizza", "user_id": "alice", "agent_id": "a1", "score": 3, "hash": "x_1"},
           {"data": "lives in Paris", "text_lemmatized": "live in paris", "user_id": "alice", "run_id": "r1", "score": 7, "flag": True},
           {"data": "plays chess", "text_lemmatized": "play chess", "user_id": "bob", "score": 10},
           {"data": "100% sure", "text_lemmatized": "sure pizza pizza", "user_id": "bob", "score": 1.5}]
    data = [(i, v, json.dumps(p)) for i, v, p in zip(ids, vecs, pls)]
    if version == 3:
        cur.executemany(sql.SQL("INSERT INTO {} (id, vector, payload) VALUES (%s, %s, %s)").format(col), data)
    else:
        execute_values(cur, sql.SQL("INSERT INTO {} (id, vector, payload) VALUES %s").format(col), data)
    conn.commit()
    def search(filters=None, q=[0.9, 0.1, 0.0], k=5):
        c, p = conds(filters)
        fc = sql.SQL("WHERE " + " AND ".join(c)) if c else sql.SQL("")
        cur.execute(sql.SQL("""
                SELECT id, vector <=> %s::vector AS distance, payload
                FROM {}
                {}
                ORDER BY distance
                LIMIT %s
                """).format(col, fc), (q, *p, k))
        return [(r[2]["data"], round(max(0.0, 1.0 - float(r[1])), 4)) for r in cur.fetchall()]
    out.append(("search", search()))
    for f in [{"user_id": "alice"}, {"user_id": "alice", "agent_id": "a1"}, {"score": {"gt": 5}}, {"score": {"lte": 3}},
              {"score": {"gte": 1.5, "lt": 10}}, {"user_id": {"in": ["bob", "carol"]}}, {"user_id": {"nin": ["bob"]}},
              {"user_id": {"ne": "alice"}}, {"data": {"contains": "100%"}}, {"data": {"icontains": "PARIS"}},
              {"hash": {"contains": "x_"}}, {"run_id": "*"}, {"flag": True}, {"user_id": ["alice"]},
              {"$or": [{"user_id": "bob"}, {"agent_id": "a1"}]}, {"$not": [{"user_id": "bob"}]}, {"score": {"eq": 7}}]:
        out.append((json.dumps(f), search(f)))
    def kw(query, filters=None):
        c, p = conds(filters)
        fc = sql.SQL("AND " + " AND ".join(c)) if c else sql.SQL("")
        cur.execute(sql.SQL("""
                    SELECT id, ts_rank_cd(to_tsvector('simple', payload->>'text_lemmatized'), plainto_tsquery('simple', %s)) AS score, payload
                    FROM {}
                    WHERE to_tsvector('simple', payload->>'text_lemmatized') @@ plainto_tsquery('simple', %s)
                    {}
                    ORDER BY score DESC
                    LIMIT %s
                    """).format(col, fc), (query, query, *p, 5))
        return [(r[2]["data"], round(float(r[1]), 4)) for r in cur.fetchall()]
    out.append(("kw pizza", kw("pizza")))
    out.append(("kw pizza bob", kw("pizza", {"user_id": "bob"})))
    cur.execute(sql.SQL("UPDATE {} SET vector = %s WHERE id = %s").format(col), ([0.0, 0.1, 1.0], ids[0]))
    cur.execute(sql.SQL("UPDATE {} SET payload = %s WHERE id = %s").format(col), (Json({"data": "hates pizza", "user_id": "alice"}), ids[0]))
    conn.commit()
    cur.execute(sql.SQL("SELECT id, payload FROM {} WHERE id = %s").format(col), (ids[0],))
    r = cur.fetchone(); out.append(("get", str(r[0]), r[1]))
    out.append(("search after update", search(q=[0.0, 0.1, 0.9])))
    cur.execute(sql.SQL("DELETE FROM {} WHERE id = %s").format(col), (ids[1],)); conn.commit()
    cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
    out.append(("list_cols has", "mem0_v%d" % version in [r[0] for r in cur.fetchall()]))
    cur.execute(sql.SQL("""
                SELECT
                    table_name,
                    (SELECT COUNT(*) FROM {}) as row_count,
                    (SELECT pg_size_pretty(pg_total_relation_size({}::regclass))) as total_size
                FROM information_schema.tables
                WHERE table_schema = 'public' AND table_name = %s
            """).format(col, sql.Literal("mem0_v%d" % version)), ("mem0_v%d" % version,))
    r = cur.fetchone(); out.append(("col_info", r[0], r[1], type(r[2]).__name__))
    c, p = conds({"user_id": "bob"})
    cur.execute(sql.SQL("""
                SELECT id, payload
                FROM {}
                {}
                LIMIT %s
                """).format(col, sql.SQL("WHERE " + " AND ".join(c))), (*p, 100))
    out.append(("list", sorted(r[1]["data"] for r in cur.fetchall())))
    cur.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(col)); conn.commit()
    for o in out:
        print(o)

run(int(sys.argv[1]), sys.argv[2])
