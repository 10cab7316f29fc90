"""LangChain langchain-postgres PGVectorStore (v2) statements, sent as it sends them:
SQLAlchemy text() over asyncpg."""
import sys, json, asyncio, uuid
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

S, T = "public", "lc_v2"
COLS = '"langchain_id", "content", "embedding", "genre", "year", "langchain_metadata"'

async def main(url):
    eng = create_async_engine(url)
    async with eng.connect() as c:
        await c.execute(text("CREATE EXTENSION IF NOT EXISTS vector")); await c.commit()
    async with eng.connect() as c:
        await c.execute(text(f'DROP TABLE IF EXISTS "{S}"."{T}"')); await c.commit()
    q = f'''CREATE TABLE "{S}"."{T}"(
            "langchain_id" UUID PRIMARY KEY,
            "content" TEXT NOT NULL,
            "embedding" vector(3) NOT NULL
            ,"langchain_tsv" TSVECTOR NOT NULL,
"genre" TEXT ,
"year" INTEGER NOT NULL,
"langchain_metadata" JSON
);'''
    async with eng.connect() as c:
        await c.execute(text(q)); await c.commit()
    async with eng.connect() as c:
        r = await c.execute(text("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = :table_name AND table_schema = :schema_name"), {"table_name": T, "schema_name": S})
        print("columns", sorted(map(tuple, r.fetchall())))
    docs = [("the quick brown fox", [1.0, 0.0, 0.0], {"genre": "fiction", "year": 1999, "rating": 4.5, "page": 1}),
            ("jumped over the lazy dog", [0.0, 1.0, 0.0], {"genre": "poetry", "year": 2005, "rating": 3.0, "page": 2}),
            ("foxes are quick animals", [0.0, 0.0, 1.0], {"genre": None, "year": 2020, "page": 3}),
            ("a history of dogs", [0.7, 0.7, 0.0], {"genre": "history", "year": 1980, "rating": 5.0, "page": 4, "nested": {"a": 1}})]
    ids = [str(uuid.UUID(int=i + 1)) for i in range(len(docs))]
    for id_, (content, emb, md) in zip(ids, docs):
        values = {"langchain_id": id_, "content": content, "embedding": str([float(d) for d in emb]), "tsv_content": content}
        vs = "VALUES (:langchain_id, :content, :embedding, to_tsvector('english', :tsv_content)"
        extra = dict(md)
        for col in ("genre", "year"):
            if col in md:
                vs += f", :{col}"; values[col] = md[col]; del extra[col]
            else:
                vs += ",null"
        vs += ", :extra)"; values["extra"] = json.dumps(extra)
        ins = f'INSERT INTO "{S}"."{T}"("langchain_id", "content", "embedding", "langchain_tsv", "genre", "year", "langchain_metadata")'
        ups = ' ON CONFLICT ("langchain_id") DO UPDATE SET "content" = EXCLUDED."content", "embedding" = EXCLUDED."embedding", "langchain_tsv" = EXCLUDED."langchain_tsv", "langchain_metadata" = EXCLUDED."langchain_metadata", "genre" = EXCLUDED."genre", "year" = EXCLUDED."year";'
        async with eng.connect() as c:
            await c.execute(text(ins + vs + ups), values); await c.commit()
            if id_ == ids[0]:
                await c.execute(text(ins + vs + ups), values); await c.commit()
    # indexes
    for stmt in [f'CREATE INDEX  "{T}langchainvectorindex" ON "{S}"."{T}" USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64) ;',
                 f'CREATE INDEX  langchain_tsv_index ON "{S}"."{T}" USING GIN(langchain_tsv);',
                 # without a tsv column the index is on HybridSearchConfig's default language
                 f'CREATE INDEX  lc_v2_content_tsv ON "{S}"."{T}" USING GIN(to_tsvector(\'pg_catalog.english\', content));']:
        async with eng.connect() as c:
            await c.execute(text(stmt)); await c.commit()
    async with eng.connect() as c:
        r = await c.execute(text("""
        SELECT tablename, indexname
        FROM pg_indexes
        WHERE tablename = :table_name AND schemaname = :schema_name AND indexname = :index_name;
        """), {"table_name": T, "schema_name": S, "index_name": T + "langchainvectorindex"})
        print("is_valid_index", r.mappings().fetchall())
    qe = str([1.0, 0.1, 0.0])
    async def search(where="", params=None, op="<=>", fn="cosine_distance", opts=None):
        stmt = f'''SELECT {COLS}, {fn}("embedding", :query_embedding) as distance
        FROM "{S}"."{T}" {where} ORDER BY "embedding" {op} :query_embedding LIMIT :dense_limit;
        '''
        p = {"query_embedding": qe, "dense_limit": 4}
        p.update(params or {})
        async with eng.connect() as c:
            for o in opts or []:
                await c.execute(text(f"SET LOCAL {o};"))
            r = (await c.execute(text(stmt), p)).mappings().fetchall()
        return [(x["content"][:12], round(x["distance"], 4)) for x in r]
    print("cosine", await search())
    print("cosine ef_search", await search(opts=["hnsw.ef_search = 40"]))
    print("l2", await search(op="<->", fn="l2_distance"))
    print("ip", await search(op="<#>", fn="inner_product"))
    filters = [("WHERE genre = :genre_a", {"genre_a": "fiction"}),
               ("WHERE year > :year_a", {"year_a": 2000}),
               ("WHERE (year BETWEEN :year_low_a AND :year_high_a)", {"year_low_a": 1990, "year_high_a": 2010}),
               ("WHERE genre = ANY(:genre_in_a)", {"genre_in_a": ["fiction", "poetry"]}),
               ("WHERE genre <> ALL (:genre_nin_a)", {"genre_nin_a": ["fiction"]}),
               ("WHERE (genre LIKE :genre_like_a)", {"genre_like_a": "fic%"}),
               ("WHERE (genre ILIKE :genre_ilike_a)", {"genre_ilike_a": "FIC%"}),
               ("WHERE (genre IS NOT NULL)", {}), ("WHERE (genre IS NULL)", {}),
               ("WHERE (langchain_metadata->>'rating')::FLOAT >= :rating_a", {"rating_a": 4.5}),
               ("WHERE (langchain_metadata->>'page')::INTEGER = ANY(:page_in_a)", {"page_in_a": [1, 3]}),
               ("WHERE langchain_metadata->'nested'->>'a' = :x", {"x": "1"}),
               ("WHERE (langchain_metadata->>'rating' IS NOT NULL)", {}),
               ("WHERE (genre = :g1 OR year = :y1)", {"g1": "poetry", "y1": 2020}),
               ("WHERE (NOT (genre = :g1))", {"g1": "poetry"}),
               ("WHERE (langchain_metadata->>'page')::INTEGER <> :p", {"p": 2})]
    for w, p in filters:
        print(w, await search(w, p))
    # hybrid search sparse leg
    async with eng.connect() as c:
        stmt = f'SELECT {COLS}, ts_rank_cd("langchain_tsv", plainto_tsquery(\'english\', :fts_query)) as distance FROM "{S}"."{T}" WHERE "langchain_tsv" @@ plainto_tsquery(\'english\', :fts_query)   ORDER BY distance desc LIMIT 4;'
        r = (await c.execute(text(stmt), {"query_embedding": qe, "dense_limit": 4, "fts_query": "quick fox"})).mappings().fetchall()
        print("sparse", [(x["content"], round(x["distance"], 4)) for x in r])
        stmt = f'SELECT {COLS}, ts_rank_cd(to_tsvector(\'pg_catalog.english\', "content"), plainto_tsquery(\'pg_catalog.english\', :fts_query)) as distance FROM "{S}"."{T}" WHERE to_tsvector(\'pg_catalog.english\', "content") @@ plainto_tsquery(\'pg_catalog.english\', :fts_query)   ORDER BY distance desc LIMIT 4;'
        r = (await c.execute(text(stmt), {"fts_query": "dogs"})).mappings().fetchall()
        print("sparse no tsv", [(x["content"], round(x["distance"], 4)) for x in r])
        r = (await c.execute(text(f'SELECT {COLS} FROM "{S}"."{T}" WHERE "langchain_id" IN (:id_0, :id_1);'), {"id_0": ids[0], "id_1": ids[3]})).mappings().fetchall()
        print("get_by_ids", sorted((str(x["langchain_id"]), x["content"], x["embedding"], x["langchain_metadata"]) for x in r))
        r = (await c.execute(text(f'SELECT {COLS}\n        FROM "{S}"."{T}" WHERE year < :y LIMIT :limit_ab OFFSET :offset_ab;\n        '), {"y": 2010, "limit_ab": 10, "offset_ab": 1})).mappings().fetchall()
        print("aget", len(r))
        await c.execute(text(f'DELETE FROM "{S}"."{T}" WHERE langchain_id in (:id_0, :id_1) AND genre = :g'), {"id_0": ids[1], "id_1": ids[2], "g": "poetry"})
        await c.commit()
        await c.execute(text(f'REINDEX INDEX "{S}"."{T}langchainvectorindex";')); await c.commit()
        await c.execute(text(f'DROP INDEX IF EXISTS "{S}"."{T}langchainvectorindex";')); await c.commit()
        print("after", (await c.execute(text(f'select count(*) from "{S}"."{T}"'))).scalar())
    await eng.dispose()

asyncio.run(main(sys.argv[1]))
