"""SQLAlchemy 1.4 (Debian's python3-sqlalchemy) with psycopg2 against cairn:
create tables and a view, reflect them (tables, columns, primary key,
foreign keys, indexes, unique constraints, views, Table autoload), use the ORM, and insert and
read JSONB and real[] values. Prints one line per check; the Go test
TestSQLAlchemy compares them. Usage: python3 sqlalchemy_reflect.py URL
"""
import sys
from sqlalchemy import create_engine, inspect, MetaData, Table, Column, Integer, Text, select, text
from sqlalchemy.dialects.postgresql import JSONB, ARRAY, REAL
from sqlalchemy.orm import declarative_base, Session

url = sys.argv[1]
engine = create_engine(url)
with engine.begin() as conn:
    conn.execute(text("CREATE TABLE authors (id serial PRIMARY KEY, name varchar(100) NOT NULL UNIQUE)"))
    conn.execute(text("CREATE TABLE memories (id bigserial PRIMARY KEY, author_id int REFERENCES authors(id), task text NOT NULL, metadata jsonb, embedding real[])"))
    conn.execute(text("CREATE INDEX memories_task ON memories (task)"))
    conn.execute(text("CREATE VIEW recent_memories AS SELECT id, task FROM memories WHERE id > 100"))
insp = inspect(engine)
print("tables", sorted(insp.get_table_names()))
print("columns", [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns("memories")])
print("pk", insp.get_pk_constraint("memories"))
print("fks", insp.get_foreign_keys("memories"))
print("indexes", insp.get_indexes("memories"))
print("uniques", insp.get_unique_constraints("authors"))
print("views", insp.get_view_names(), insp.get_view_definition("recent_memories"))
print("view columns", [(c["name"], str(c["type"])) for c in insp.get_columns("recent_memories")])
md = MetaData()
t = Table("memories", md, autoload_with=engine)
print("autoload", [c.name for c in t.columns], [c.name for c in t.primary_key])
Base = declarative_base()
class Author(Base):
    __tablename__ = "authors"
    id = Column(Integer, primary_key=True)
    name = Column(Text)
with Session(engine) as s:
    s.add(Author(name="ann"))
    s.commit()
    print("orm", [a.name for a in s.execute(select(Author)).scalars()])
with engine.begin() as conn:
    conn.execute(t.insert(), [{"author_id": 1, "task": "fix oom", "metadata": {"repo": "x"}, "embedding": [0.1, 0.2]}])
    print("rows", conn.execute(select(t.c.task, t.c.metadata, t.c.embedding)).all())
