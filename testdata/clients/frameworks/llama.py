"""LlamaIndex llama-index-vector-stores-postgres PGVectorStore, reproduced: SQLAlchemy ORM model
with a generated tsvector column, psycopg2 (sync) and asyncpg (async) engines."""
import sys, asyncio, json
import sqlalchemy
from sqlalchemy import Column, Computed, select, delete, text, func, type_coerce, cast, column, String, Integer
from sqlalchemy.dialects.postgresql import BIGINT, JSON, JSONB, TSVECTOR, VARCHAR
from sqlalchemy.schema import Index
from sqlalchemy.types import TypeDecorator, UserDefinedType
from sqlalchemy.orm import declarative_base, sessionmaker
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from vec import Vector

class TSVector(TypeDecorator):
    impl = TSVECTOR
    cache_ok = False

class REGCONFIG(UserDefinedType):
    cache_ok = True
    def get_col_spec(self, **kw):
        return "regconfig"

def model(base, use_jsonb):
    md = JSONB if use_jsonb else JSON
    class HybridAbstractData(base):
        __abstract__ = True
        id = Column(BIGINT, primary_key=True, autoincrement=True)
        text = Column(VARCHAR, nullable=False)
        metadata_ = Column(md)
        node_id = Column(VARCHAR)
        embedding = Column(Vector(3))
        text_search_tsv = Column(TSVector(), Computed("to_tsvector('english', text)", persisted=True))
    keyed = [Index("llama_idx_author_text", cast(column("metadata_").op("->>")("author"), String), postgresql_using="btree"),
             Index("llama_idx_year_int", cast(column("metadata_").op("->>")("year"), Integer), postgresql_using="btree")]
    m = type("Datallama", (HybridAbstractData,), {"__tablename__": "data_llama", "__table_args__": (*keyed, {"schema": "llamaschema"})})
    Index("llama_idx", m.text_search_tsv, postgresql_using="gin")
    # The current release's model also indexes ref_doc_id, and each of
    # indexed_metadata_keys cast to its type, with btree expression indexes.
    Index("llama_idx_1", m.metadata_["ref_doc_id"].astext, postgresql_using="btree")
    return m

def run(sync_url, async_url, use_jsonb):
    base = declarative_base()
    T = model(base, use_jsonb)
    eng = sqlalchemy.create_engine(sync_url, echo="-v" in sys.argv)
    Session = sessionmaker(eng)
    with Session() as s, s.begin():
        s.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
        s.commit()
    with Session() as s, s.begin():
        s.execute(text("DROP SCHEMA IF EXISTS llamaschema CASCADE"))
    with Session() as s, s.begin():
        r = s.execute(text("SELECT schema_name FROM information_schema.schemata WHERE schema_name = :schema_name").bindparams(schema_name="llamaschema")).fetchone()
        if not r:
            s.execute(text("CREATE SCHEMA IF NOT EXISTS llamaschema"))
        s.commit()
    with Session() as s, s.begin():
        base.metadata.create_all(s.connection())
    with Session() as s, s.begin():
        base.metadata.create_all(s.connection())  # second start: tables exist (checkfirst)
    with Session() as s, s.begin():
        out0 = s.execute(text("SELECT indexname FROM pg_indexes WHERE schemaname = 'llamaschema' ORDER BY 1")).scalars().all()
    with Session() as s, s.begin():
        s.execute(text("CREATE INDEX IF NOT EXISTS data_llama_embedding_idx ON llamaschema.data_llama USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"))
        s.commit()
    rows = [("n1", "The cat sat on the mat", [1.0, 0.0, 0.0], {"doc_id": "d1", "ref_doc_id": "d1", "author": "ann", "year": 2001, "tags": ["pets", "cats"], "_node_type": "TextNode"}),
            ("n2", "Dogs chase cats in the park", [0.0, 1.0, 0.0], {"doc_id": "d1", "ref_doc_id": "d1", "author": "bob", "year": 2010, "tags": ["pets"], "empty": []}),
            ("n3", "Quantum physics for beginners", [0.0, 0.0, 1.0], {"doc_id": "d2", "ref_doc_id": "d2", "author": "Carl", "year": 2020, "tags": [], "nul": None})]
    with Session() as s, s.begin():
        for nid, t, e, md in rows:
            s.add(T(node_id=nid, embedding=e, text=t, metadata_=md))
        s.commit()
    out = [("indexes", out0)]
    def dense(where=None, ef=None):
        stmt = select(T.id, T.node_id, T.text, T.metadata_, T.embedding.cosine_distance([1.0, 0.2, 0.1]).label("distance")).order_by(text("distance asc"))
        if where is not None:
            stmt = stmt.where(where)
        stmt = stmt.limit(3)
        with Session() as s, s.begin():
            if ef:
                s.execute(text("SET hnsw.ef_search = :hnsw_ef_search"), {"hnsw_ef_search": ef})
                s.execute(text("SET ivfflat.probes = :ivfflat_probes"), {"ivfflat_probes": 10})
            return [(r.node_id, round(1 - r.distance, 4)) for r in s.execute(stmt).all()]
    out.append(("dense", dense()))
    out.append(("dense ef", dense(ef=40)))
    # filters, as _build_filter_clause renders them
    for f in ["metadata_->>'author' = 'ann'", "(metadata_->>'year')::float > 2005.0", "(metadata_->>'year')::float != 2010.0",
              "metadata_->>'author' IN ('ann', 'Carl')", "metadata_->>'author' NOT IN ('ann')",
              "metadata_::jsonb->'tags' @> '[\"cats\"]'", "metadata_->>'author' LIKE '%ar%'", "metadata_->>'author' ILIKE '%AR%'",
              "metadata_::jsonb->'tags' ?| array['cats', 'x']", "metadata_::jsonb->'tags' ?& array['pets', 'cats']",
              "(metadata_::jsonb->'empty' IS NULL OR metadata_::jsonb->'empty' = 'null'::jsonb OR metadata_::jsonb->'empty' = '[]'::jsonb)",
              "(metadata_::jsonb->'nul' IS NULL OR metadata_::jsonb->'nul' = 'null'::jsonb OR metadata_::jsonb->'nul' = '[]'::jsonb)"]:
        out.append((f, dense(text(f))))
    out.append(("or", dense(sqlalchemy.or_(text("metadata_->>'author' = 'bob'"), text("(metadata_->>'year')::float >= 2020.0")))))
    # sparse / hybrid
    tsq = func.to_tsquery(func.replace(func.text(func.plainto_tsquery(type_coerce("english", REGCONFIG), "cats park")), "&", "|"))
    stmt = select(T.id, T.node_id, T.text, T.metadata_, func.ts_rank(T.text_search_tsv, tsq).label("rank")).where(T.text_search_tsv.op("@@")(tsq)).order_by(text("rank desc")).limit(3)
    with Session() as s, s.begin():
        out.append(("sparse", [(r.node_id, round(r.rank, 4)) for r in s.execute(stmt).all()]))
    with Session() as s, s.begin():
        r = s.execute(select(T.node_id, T.text, T.metadata_, T.embedding).where(T.node_id.in_(["n1", "n3"])).order_by(T.node_id)).all()
        out.append(("get_nodes", [(x.node_id, x.embedding, x.metadata_["author"]) for x in r]))
        out.append(("tsv", s.execute(select(T.text_search_tsv).where(T.node_id == "n2")).scalar()))
    async def amain():
        aeng = create_async_engine(async_url)
        AS = sessionmaker(aeng, class_=AsyncSession)
        async with AS() as s, s.begin():
            try:  # as _aquery_with_score sends ivfflat_probes: no parameter is allowed there
                await s.execute(text("SET ivfflat.probes = :ivfflat_probes"), {"ivfflat_probes": 10})
            except Exception as e:
                out.append(("async SET with a parameter", type(e.orig).__name__))
        async with AS() as s, s.begin():
            await s.execute(text("SET hnsw.ef_search = 40"))
            await s.execute(text("SET ivfflat.probes = 10"))
            stmt = select(T.id, T.node_id, T.text, T.metadata_, T.embedding.cosine_distance([0.0, 1.0, 0.0]).label("distance")).order_by(text("distance asc")).where(text("(metadata_->>'year')::float < 2015.0")).limit(2)
            r = (await s.execute(stmt)).all()
            out.append(("async dense", [(x.node_id, round(x.distance, 4), x.metadata_["author"]) for x in r]))
            r = (await s.execute(select(T.id, T.node_id, func.ts_rank(T.text_search_tsv, tsq).label("rank")).where(T.text_search_tsv.op("@@")(tsq)).order_by(text("rank desc")).limit(3))).all()
            out.append(("async sparse", [(x.node_id, round(x.rank, 4)) for x in r]))
        async with AS() as s, s.begin():
            s.add(T(node_id="n4", embedding=[0.5, 0.5, 0.5], text="async added", metadata_={"doc_id": "d3"}))
            await s.commit()
        await aeng.dispose()
    asyncio.run(amain())
    with Session() as s, s.begin():
        s.execute(delete(T).where(T.metadata_["doc_id"].astext == "d1").execution_options(synchronize_session="fetch"))
        s.commit()
    with Session() as s, s.begin():
        s.execute(delete(T).where(T.node_id.in_(["n4"])).where(text("metadata_->>'doc_id' = 'd3'")).execution_options(synchronize_session="fetch"))
        s.commit()
    with Session() as s, s.begin():
        out.append(("left", [r.node_id for r in s.execute(select(T.node_id)).all()]))
        s.execute(delete(T).execution_options(synchronize_session="fetch"))
        s.commit()
    for o in out:
        print(o)

for jb in (False, True):
    print("use_jsonb", jb)
    run(sys.argv[1], sys.argv[2], jb)
