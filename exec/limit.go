package exec

import (
	"context"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// Limit skips Offset rows and passes at most Count rows, slicing batches
// without copying. It stops pulling its input once Count rows are out.
type Limit struct {
	rt            *Runtime
	countExpr     sql.Expr
	offsetExpr    sql.Expr
	input         Operator
	inited        bool
	count, offset int64 // count < 0: no limit
	emitted       int64
	out           outSlot
	// ties and tieSpecs are sql.Limit.Ties; last holds the keys of the
	// Count-th row once it is out, and tying says the rows after it may
	// still tie with it.
	ties     []sql.SortKey
	tieSpecs []keySpec
	last     []sortVal
	tying    bool
}

func newLimit(rt *Runtime, count, offset sql.Expr, in Operator) *Limit {
	return &Limit{rt: rt, countExpr: count, offsetExpr: offset, input: in}
}

// limitValues evaluates LIMIT and OFFSET: a NULL or absent count means no
// limit (-1), a NULL or absent offset 0; negative values are errors.
func limitValues(ctx context.Context, rt *Runtime, count, offset sql.Expr) (int64, int64, error) {
	c, o := int64(-1), int64(0)
	if count != nil {
		v, err := EvalScalar(ctx, rt, count)
		if err != nil {
			return 0, 0, err
		}
		if v != nil {
			n, err := rowCount(v)
			if err != nil {
				return 0, 0, err
			}
			if n < 0 {
				return 0, 0, pgerr.New(pgerrcode.InvalidRowCountInLimitClause, "LIMIT must not be negative")
			}
			c = n
		}
	}
	if offset != nil {
		v, err := EvalScalar(ctx, rt, offset)
		if err != nil {
			return 0, 0, err
		}
		if v != nil {
			n, err := rowCount(v)
			if err != nil {
				return 0, 0, err
			}
			if n < 0 {
				return 0, 0, pgerr.New(pgerrcode.InvalidRowCountInResultOffsetClause, "OFFSET must not be negative")
			}
			o = n
		}
	}
	return c, o, nil
}

// limitEnd is the number of rows a LIMIT count OFFSET offset reads before
// it stops: count + offset, or math.MaxInt64 where that overflows (a
// LIMIT near 2^63 with any OFFSET still means every row after the
// offset). count must not be negative.
func limitEnd(count, offset int64) int64 {
	if count > math.MaxInt64-offset {
		return math.MaxInt64
	}
	return count + offset
}

// rowCount converts a LIMIT/OFFSET datum to an int64 (rounding as the cast
// to bigint does).
func rowCount(v any) (int64, error) {
	if i, ok := toInt64(v); ok {
		return i, nil
	}
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || x >= math.MaxInt64 || x < math.MinInt64 {
			return 0, pgerr.New(pgerrcode.NumericValueOutOfRange, "bigint out of range")
		}
		return int64(math.RoundToEven(x)), nil
	case *apd.Decimal:
		var r apd.Decimal
		if _, err := apd.BaseContext.WithPrecision(40).RoundToIntegralValue(&r, x); err != nil {
			return 0, err
		}
		i, err := r.Int64()
		if err != nil {
			return 0, pgerr.New(pgerrcode.NumericValueOutOfRange, "bigint out of range")
		}
		return i, nil
	}
	return 0, internalErr("LIMIT value of type %T", v)
}

// Schema implements Operator.
func (l *Limit) Schema() *arrow.Schema { return l.input.Schema() }

// Next implements Operator.
func (l *Limit) Next(ctx context.Context) (arrow.Record, error) {
	l.out.release()
	if !l.inited {
		c, o, err := limitValues(ctx, l.rt, l.countExpr, l.offsetExpr)
		if err != nil {
			return nil, err
		}
		if c < 0 && len(l.ties) > 0 {
			return nil, pgerr.New(pgerrcode.InvalidRowCountInLimitClause, "row count cannot be null in FETCH FIRST ... WITH TIES clause")
		}
		l.count, l.offset, l.inited = c, o, true
	}
	for {
		if l.count >= 0 && l.emitted >= l.count && !l.tying {
			return nil, io.EOF
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := l.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := rec.NumRows()
		if l.tying {
			tied, err := l.tiedRows(ctx, rec, 0)
			if err != nil || tied == 0 {
				l.tying = false
				return nil, errOrEOF(err)
			}
			if tied < n {
				l.tying = false
				return l.out.set(rec.NewSlice(0, tied)), nil
			}
			return l.out.pass(rec), nil
		}
		if l.offset >= n {
			l.offset -= n
			continue
		}
		start, end := l.offset, n
		l.offset = 0
		if l.count >= 0 && end-start > l.count-l.emitted {
			end = start + l.count - l.emitted
		}
		l.emitted += end - start
		if len(l.ties) > 0 && l.count >= 0 && l.emitted >= l.count && end > start {
			// The Count-th row is out: keep its keys and let the rows
			// after it that tie with it through.
			if err := l.keepLast(ctx, rec, int(end-1)); err != nil {
				return nil, err
			}
			tied, err := l.tiedRows(ctx, rec, end)
			if err != nil {
				return nil, err
			}
			end += tied
			l.tying = end == n
		}
		if start == 0 && end == n {
			return l.out.pass(rec), nil
		}
		return l.out.set(rec.NewSlice(start, end)), nil
	}
}

// keepLast keeps the sort keys of row i of rec as the row the following
// rows must tie with.
func (l *Limit) keepLast(ctx context.Context, rec arrow.Record, i int) error {
	l.last = l.last[:0]
	for k, key := range l.ties {
		arr, err := Eval(ctx, l.rt, key.Expr, rec)
		if err != nil {
			return err
		}
		v := sortValAt(arr, i, &l.tieSpecs[k])
		v.s = strings.Clone(v.s) // the batch goes on without us
		arr.Release()
		l.last = append(l.last, v)
	}
	return nil
}

// tiedRows counts the rows of rec from row from on whose keys equal the
// kept ones, up to the first that does not.
func (l *Limit) tiedRows(ctx context.Context, rec arrow.Record, from int64) (int64, error) {
	n := rec.NumRows()
	if from >= n {
		return 0, nil
	}
	keys := make([]arrow.Array, len(l.ties))
	defer func() {
		for _, a := range keys {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k, key := range l.ties {
		arr, err := Eval(ctx, l.rt, key.Expr, rec)
		if err != nil {
			return 0, err
		}
		keys[k] = arr
	}
	row := make([]sortVal, len(keys))
	for i := from; i < n; i++ {
		for k, arr := range keys {
			row[k] = sortValAt(arr, int(i), &l.tieSpecs[k])
		}
		if compareRows(l.tieSpecs, row, l.last) != 0 {
			return i - from, nil
		}
	}
	return n - from, nil
}

// errOrEOF is err, or io.EOF when there is none.
func errOrEOF(err error) error {
	if err != nil {
		return err
	}
	return io.EOF
}

// Close implements Operator.
func (l *Limit) Close() {
	l.out.release()
	l.input.Close()
}
