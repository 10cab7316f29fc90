"""Haystack pgvector-haystack PgvectorDocumentStore statements over psycopg 3 (autocommit,
executemany(returning=True), dict_row), as document_store.py sends them."""
import sys
from psycopg import connect
from psycopg.rows import dict_row
from psycopg.sql import SQL, Identifier, Literal
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

conn = connect(sys.argv[1]); conn.autocommit = True
conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
info = TypeInfo.fetch(conn, "vector")  # what pgvector.psycopg.register_vector looks up
out = [("typeinfo", info is not None and info.name)]
cur = conn.cursor(); dcur = conn.cursor(row_factory=dict_row)
T, S = Identifier("haystack_documents"), Identifier("public")
cur.execute(SQL("DROP TABLE IF EXISTS {schema_name}.{table_name}").format(schema_name=S, table_name=T))
cur.execute(SQL("""
CREATE TABLE IF NOT EXISTS {schema_name}.{table_name} (
id VARCHAR(128) PRIMARY KEY,
embedding VECTOR({embedding_dimension}),
content TEXT,
dataframe JSONB,
blob_data BYTEA,
blob_meta JSONB,
blob_mime_type VARCHAR(255),
meta JSONB)
""").format(schema_name=S, table_name=T, embedding_dimension=Literal(3)))
for name, ddl in [("haystack_keyword_index", "CREATE INDEX {index_name} ON {schema_name}.{table_name} USING GIN (to_tsvector({language}, content))"),
                  ("haystack_hnsw_index", "CREATE INDEX {index_name} ON {schema_name}.{table_name} USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")]:
    ex = cur.execute("SELECT 1 FROM pg_indexes WHERE schemaname = %s AND tablename = %s AND indexname = %s", ("public", "haystack_documents", name)).fetchone()
    if not ex:
        cur.execute(SQL(ddl).format(index_name=Identifier(name), schema_name=S, table_name=T, language=Literal("english")))
    out.append((name, bool(cur.execute("SELECT 1 FROM pg_indexes WHERE schemaname = %s AND tablename = %s AND indexname = %s", ("public", "haystack_documents", name)).fetchone())))
cur.execute(SQL("SET hnsw.ef_search = {v}").format(v=Literal(50)))
ins = SQL("""
INSERT INTO {schema_name}.{table_name}
(id, embedding, content, dataframe, blob_data, blob_meta, blob_mime_type, meta)
VALUES (%(id)s, %(embedding)s, %(content)s, %(dataframe)s, %(blob_data)s, %(blob_meta)s, %(blob_mime_type)s, %(meta)s)
""").format(schema_name=S, table_name=T)
upd = SQL("""
ON CONFLICT (id) DO UPDATE SET
embedding = EXCLUDED.embedding,
content = EXCLUDED.content,
dataframe = EXCLUDED.dataframe,
blob_data = EXCLUDED.blob_data,
blob_meta = EXCLUDED.blob_meta,
blob_mime_type = EXCLUDED.blob_mime_type,
meta = EXCLUDED.meta
""")
docs = [dict(id="a", embedding=[1.0, 0.0, 0.0], content="Berlin is the capital of Germany", dataframe=None, blob_data=None, blob_meta=None, blob_mime_type=None, meta=Jsonb({"name": "berlin", "number": 1, "chapter": "intro"})),
        dict(id="b", embedding=[0.0, 1.0, 0.0], content="Paris is the capital of France", dataframe=None, blob_data=b"\x00\x01", blob_meta=Jsonb({"k": 1}), blob_mime_type="application/octet-stream", meta=Jsonb({"name": "paris", "number": 5})),
        dict(id="c", embedding=None, content="Rome has many capitals of columns", dataframe=None, blob_data=None, blob_meta=None, blob_mime_type=None, meta=Jsonb({"name": "rome", "number": 9.5}))]
cur.executemany(ins + SQL(" RETURNING id"), docs, returning=True)
n = 0
while True:
    if cur.fetchone(): n += 1
    if not cur.nextset(): break
out.append(("written", n))
try:
    cur.executemany(ins + SQL(" RETURNING id"), docs[:1], returning=True); out.append(("dup", "no error"))
except Exception as e:
    out.append(("dup", type(e).__name__, e.sqlstate))
cur.executemany(ins + upd + SQL(" RETURNING id"), [dict(docs[0], content="Berlin is big")], returning=True)
cur.executemany(ins + SQL("ON CONFLICT DO NOTHING") + SQL(" RETURNING id"), docs[1:2], returning=True)
out.append(("count", cur.execute(SQL("SELECT COUNT(*) FROM {schema_name}.{table_name}").format(schema_name=S, table_name=T)).fetchone()[0]))
q = "'[0.9,0.1,0]'"
for score, order in [(f"1 - (embedding <=> {q}) AS score", "DESC"), (f"(embedding <#> {q}) * -1 AS score", "DESC"), (f"embedding <-> {q} AS score", "ASC")]:
    for where, params in [("", ()), (" WHERE meta->>'name' = %s", ("paris",)), (" WHERE (meta->>'number')::float >= %s", (5,)),
                          (" WHERE (meta->>'number')::real > %s", (1.5,)), (" WHERE meta->>'name' = ANY(%s)", (["berlin", "rome"],)),
                          (" WHERE (meta->>'chapter' IS NULL OR meta->>'chapter' != %s)", ("intro",)), (" WHERE meta->>'name' LIKE %s", ("%r%",))]:
        r = dcur.execute(SQL("SELECT *, {score} FROM {schema_name}.{table_name}").format(score=SQL(score), schema_name=S, table_name=T) + SQL(where) + SQL(" ORDER BY score {o} LIMIT {k}").format(o=SQL(order), k=Literal(10)), params).fetchall()
        out.append((score[:12], where, [(x["id"], None if x["score"] is None else round(x["score"], 4), x["embedding"], x["meta"].get("name"), x["blob_data"]) for x in r]))
r = dcur.execute(SQL("""
SELECT {table_name}.*, ts_rank_cd(to_tsvector({language}, content), query) AS score
FROM {schema_name}.{table_name}, plainto_tsquery({language}, %s) query
WHERE to_tsvector({language}, content) @@ query
""").format(schema_name=S, table_name=T, language=Literal("english")) + SQL(" AND (meta->>'number')::float < %s") + SQL(" ORDER BY score DESC LIMIT {k}").format(k=Literal(10)), ("capital", 9.0)).fetchall()
out.append(("keyword", [(x["id"], round(x["score"], 4)) for x in r]))
r = dcur.execute(SQL("SELECT * FROM {schema_name}.{table_name}").format(schema_name=S, table_name=T) + SQL(" WHERE meta->>'name' IN (%s, %s)"), ("berlin", "rome")).fetchall()
out.append(("filter", sorted((x["id"], x["content"]) for x in r)))
# filters.py's comparisons: meta values cast by the Python type, in/not in with the list wrapped
# once more (a 2-D array parameter), != as IS DISTINCT FROM, ISO dates compared as text.
for w, p in [("(meta->>'number')::real = ANY(%s)", ([[1.0, 5.0]],)), ("meta->>'name' = ANY(%s)", ([["berlin"]],)),
             ("(meta->>'number')::real IS NULL OR (meta->>'number')::real != ALL(%s)", ([[1.0]],)),
             ("meta->>'name' IS DISTINCT FROM %s", ("berlin",)), ("(meta->>'number')::real > %s", (4.5,)),
             ("meta->>'chapter' >= %s", ("2024-06-01",)), ("meta->>'chapter' IS NULL", ()),
             ("((meta->>'number')::real > %s AND meta->>'name' = %s)", (0, "paris")), ("(blob_meta)::jsonb = %s", (Jsonb({"k": 1}),))]:
    r = dcur.execute(SQL("SELECT * FROM {schema_name}.{table_name}").format(schema_name=S, table_name=T) + SQL(" WHERE ") + SQL(w), p).fetchall()
    out.append(("filter", w, sorted(x["id"] for x in r)))
cur.execute(SQL("DELETE FROM {schema_name}.{table_name} WHERE id IN ({ids})").format(schema_name=S, table_name=T, ids=SQL("'a', 'c'")))
out.append(("count", cur.execute(SQL("SELECT COUNT(*) FROM {schema_name}.{table_name}").format(schema_name=S, table_name=T)).fetchone()[0]))
cur.execute(SQL("DROP TABLE IF EXISTS {schema_name}.{table_name}").format(schema_name=S, table_name=T))
for o in out: print(o)
