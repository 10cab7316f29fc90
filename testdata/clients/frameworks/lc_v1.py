"""LangChain langchain-postgres PGVector (v1) reproduced with SQLAlchemy ORM + psycopg2."""
import sys, uuid, json
import sqlalchemy
from sqlalchemy import cast, delete, func, select
from sqlalchemy.dialects.postgresql import JSON, JSONB, UUID, insert
from sqlalchemy.orm import declarative_base, relationship, Session
from sqlalchemy.types import UserDefinedType
from vec import Vector

class JSONPATH(UserDefinedType):
    # SQLAlchemy 2's postgresql.JSONPATH: renders as JSONPATH, binds a str
    cache_ok = True
    def get_col_spec(self, **kw):
        return "JSONPATH"

Base = declarative_base()

class CollectionStore(Base):
    __tablename__ = "langchain_pg_collection"
    uuid = sqlalchemy.Column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    name = sqlalchemy.Column(sqlalchemy.String, nullable=False, unique=True)
    cmetadata = sqlalchemy.Column(JSON)
    embeddings = relationship("EmbeddingStore", back_populates="collection", passive_deletes=True)

class EmbeddingStore(Base):
    __tablename__ = "langchain_pg_embedding"
    id = sqlalchemy.Column(sqlalchemy.String, primary_key=True)
    collection_id = sqlalchemy.Column(UUID(as_uuid=True), sqlalchemy.ForeignKey("langchain_pg_collection.uuid", ondelete="CASCADE"))
    collection = relationship(CollectionStore, back_populates="embeddings")
    embedding = sqlalchemy.Column(Vector(3))
    document = sqlalchemy.Column(sqlalchemy.String, nullable=True)
    cmetadata = sqlalchemy.Column(JSONB, nullable=True)
    __table_args__ = (sqlalchemy.Index("ix_cmetadata_gin", "cmetadata", postgresql_using="gin", postgresql_ops={"cmetadata": "jsonb_path_ops"}),)

NATIVE = {"$eq": "==", "$ne": "!=", "$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}

def field_filter(field, value):
    if isinstance(value, dict):
        op, v = list(value.items())[0]
    else:
        op, v = "$eq", value
    if op in NATIVE:
        return func.jsonb_path_match(EmbeddingStore.cmetadata, cast(f"$.{field} {NATIVE[op]} $value", JSONPATH), cast({"value": v}, JSONB))
    if op == "$between":
        lo, hi = v
        return sqlalchemy.and_(
            func.jsonb_path_match(EmbeddingStore.cmetadata, cast(f"$.{field} >= $value", JSONPATH), cast({"value": lo}, JSONB)),
            func.jsonb_path_match(EmbeddingStore.cmetadata, cast(f"$.{field} <= $value", JSONPATH), cast({"value": hi}, JSONB)))
    q = EmbeddingStore.cmetadata[field].astext
    if op == "$in": return q.in_([str(x) for x in v])
    if op == "$nin": return ~q.in_([str(x) for x in v])
    if op == "$like": return q.like(v)
    if op == "$ilike": return q.ilike(v)
    if op == "$exists":
        c = func.jsonb_exists(EmbeddingStore.cmetadata, field)
        return c if v else ~c
    raise NotImplementedError(op)

def make_filter(f):
    key, value = list(f.items())[0]
    if len(f) > 1:
        return sqlalchemy.and_(*[field_filter(k, v) for k, v in f.items()])
    if key == "$and": return sqlalchemy.and_(*[make_filter(e) for e in value])
    if key == "$or": return sqlalchemy.or_(*[make_filter(e) for e in value])
    if key == "$not":
        if isinstance(value, list): return sqlalchemy.and_(*[sqlalchemy.not_(make_filter(e)) for e in value])
        return sqlalchemy.not_(make_filter(value))
    return field_filter(key, value)

def main(url):
    engine = sqlalchemy.create_engine(url, echo="-v" in sys.argv, future=True)
    with engine.connect() as conn:
        conn.execute(sqlalchemy.text("SELECT pg_advisory_xact_lock(1573678846307946496);CREATE EXTENSION IF NOT EXISTS vector;"))
        conn.commit()
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        coll = s.query(CollectionStore).filter(CollectionStore.name == "langchain").first()
        assert coll is None
        s.add(CollectionStore(name="langchain", cmetadata=None)); s.commit()
    docs = [("foo", [1.0, 0.0, 0.0], {"page": 0, "genre": "fiction", "year": 1999, "tags": ["a"]}),
            ("bar", [0.0, 1.0, 0.0], {"page": 1, "genre": "poetry", "year": 2005, "rating": 4.5}),
            ("baz", [0.0, 0.0, 1.0], {"page": 2, "genre": "Fiction", "year": 2020, "flag": True}),
            ("qux", [0.7, 0.7, 0.0], {"page": 3, "genre": "history", "year": 1980})]
    with Session(engine) as s:
        coll = s.query(CollectionStore).filter(CollectionStore.name == "langchain").first()
        data = [{"id": str(i), "collection_id": coll.uuid, "embedding": e, "document": t, "cmetadata": m} for i, (t, e, m) in enumerate(docs)]
        stmt = insert(EmbeddingStore).values(data)
        s.execute(stmt.on_conflict_do_update(index_elements=["id"], set_={"embedding": stmt.excluded.embedding, "document": stmt.excluded.document, "cmetadata": stmt.excluded.cmetadata}))
        s.commit()
        # upsert again (conflict path)
        stmt = insert(EmbeddingStore).values([{"id": "1", "collection_id": coll.uuid, "embedding": [0.0, 1.0, 0.1], "document": "bar2", "cmetadata": docs[1][2]}])
        s.execute(stmt.on_conflict_do_update(index_elements=["id"], set_={"embedding": stmt.excluded.embedding, "document": stmt.excluded.document, "cmetadata": stmt.excluded.cmetadata}))
        s.commit()
    out = []
    def query(emb, k=4, f=None, dist="cosine_distance"):
        with Session(engine) as s:
            coll = s.query(CollectionStore).filter(CollectionStore.name == "langchain").first()
            by = [EmbeddingStore.collection_id == coll.uuid]
            if f: by.append(make_filter(f))
            rows = (s.query(EmbeddingStore, getattr(EmbeddingStore.embedding, dist)(emb).label("distance"))
                    .filter(*by).order_by(sqlalchemy.asc("distance"))
                    .join(CollectionStore, EmbeddingStore.collection_id == CollectionStore.uuid).limit(k).all())
            return [(r.EmbeddingStore.document, round(r.distance, 4)) for r in rows]
    for dist in ("cosine_distance", "l2_distance", "max_inner_product"):
        out.append((dist, query([1.0, 0.1, 0.0], dist=dist)))
    filters = [{"genre": "fiction"}, {"year": {"$gt": 2000}}, {"year": {"$lte": 1999}}, {"genre": {"$ne": "fiction"}},
               {"year": {"$between": [1990, 2010]}}, {"genre": {"$in": ["fiction", "poetry"]}}, {"page": {"$in": [1, 2]}},
               {"genre": {"$nin": ["fiction"]}}, {"genre": {"$like": "fic%"}}, {"genre": {"$ilike": "FIC%"}},
               {"rating": {"$exists": True}}, {"rating": {"$exists": False}},
               {"$and": [{"genre": "fiction"}, {"year": {"$lt": 2000}}]}, {"$or": [{"genre": "poetry"}, {"year": 2020}]},
               {"$not": {"genre": "fiction"}}, {"$not": [{"genre": "fiction"}, {"genre": "poetry"}]},
               {"genre": "fiction", "page": 0}, {"rating": {"$gte": 4.5}}, {"flag": True}, {"genre": {"$eq": "Fiction"}}]
    for f in filters:
        out.append((json.dumps(f), query([1.0, 0.1, 0.0], f=f)))
    with Session(engine) as s:
        coll = s.query(CollectionStore).filter(CollectionStore.name == "langchain").first()
        r = s.execute(select(EmbeddingStore).where(EmbeddingStore.id.in_(["0", "3"])).filter(EmbeddingStore.collection_id == coll.uuid)).scalars().all()
        out.append(("get_by_ids", sorted((x.id, x.document, x.embedding, x.cmetadata.get("genre")) for x in r)))
        s.execute(delete(EmbeddingStore).where(EmbeddingStore.collection_id == coll.uuid).where(EmbeddingStore.id.in_(["3"])))
        s.commit()
    out.append(("after delete", query([1.0, 0.1, 0.0])))
    with Session(engine) as s:
        coll = s.query(CollectionStore).filter(CollectionStore.name == "langchain").first()
        s.delete(coll); s.commit()
        out.append(("after delete_collection", s.execute(sqlalchemy.text("select count(*) from langchain_pg_embedding")).scalar()))
    for o in out: print(o)

main(sys.argv[1])
