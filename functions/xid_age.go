package functions

// age(xid) and mxid_age(xid): how many transactions (multixacts) ago an
// XID was assigned, which monitoring tools read of pg_database's
// datfrozenxid and pg_class's relfrozenxid to warn of wraparound. cairn
// consumes no transaction IDs: every transaction sees the first normal
// XID as the latest, so the frozen XIDs the catalog shows are 0
// transactions old, and, as in PostgreSQL, a permanent (frozen or
// invalid) XID, which every row's xmin is, is infinitely old (2^31-1).

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

// FirstNormalXid is PostgreSQL's FirstNormalTransactionId: the XID
// cairn's catalog gives as frozen and takes as the latest.
const FirstNormalXid = 3

func init() {
	Register(allStable(
		fn("age", targs(types.XidT), tInt4, func(_ *Context, a []any) (any, error) {
			x := a[0].(int64)
			if x < FirstNormalXid {
				return int64(math.MaxInt32), nil
			}
			return int64(int32(uint32(FirstNormalXid) - uint32(x))), nil
		}),
		fn("mxid_age", targs(types.XidT), tInt4, func(_ *Context, a []any) (any, error) {
			x := a[0].(int64)
			if x == 0 {
				return int64(math.MaxInt32), nil
			}
			return int64(int32(1 - uint32(x))), nil
		}),
	)...)
}
