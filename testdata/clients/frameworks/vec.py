"""A pgvector.sqlalchemy-like Vector column type (pgvector-python is not installable here)."""
from sqlalchemy.types import UserDefinedType, Float

class Vector(UserDefinedType):
    cache_ok = True
    def __init__(self, dim=None):
        self.dim = dim
    def get_col_spec(self, **kw):
        return "VECTOR" if self.dim is None else "VECTOR(%d)" % self.dim
    def bind_processor(self, dialect):
        def proc(v):
            return None if v is None else "[" + ",".join(str(float(x)) for x in v) + "]"
        return proc
    def result_processor(self, dialect, coltype):
        def proc(v):
            if v is None or isinstance(v, list):
                return v
            return [float(x) for x in v[1:-1].split(",")] if v != "[]" else []
        return proc
    class comparator_factory(UserDefinedType.Comparator):
        def l2_distance(self, other):
            return self.op("<->", return_type=Float)(other)
        def max_inner_product(self, other):
            return self.op("<#>", return_type=Float)(other)
        def cosine_distance(self, other):
            return self.op("<=>", return_type=Float)(other)
