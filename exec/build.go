package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// batchSize is the number of rows operators that build batches (Values,
// Sort, Aggregate, Join) aim for.
var batchSize = 8192

// Build turns a query plan into a tree of operators. Insert, Update,
// Delete and Explain are not query operators and are refused. With
// rt.Analyze every operator is wrapped to count rows and time.
func Build(rt *Runtime, n sql.Node) (Operator, error) {
	op, err := build(rt, n)
	if err != nil {
		return nil, err
	}
	if rt.Analyze {
		op = rt.instrument(op, n)
	}
	return op, nil
}

func build(rt *Runtime, n sql.Node) (Operator, error) {
	switch n := n.(type) {
	case *sql.Scan:
		return newScan(rt, n), nil
	case *sql.Values:
		return newValues(rt, n), nil
	case *sql.SystemScan:
		return newSystemScan(rt, n), nil
	case *sql.SRF:
		return buildSRF(rt, n)
	case *sql.KeyLookup:
		return newKeyLookup(rt, n), nil
	case *sql.TextTopK:
		return newTextTopK(rt, n), nil
	case *sql.VectorTopK:
		return newVectorTopK(rt, n), nil
	case *sql.HybridCandidates:
		return newHybridCandidates(rt, n), nil
	case *sql.TrigramScan:
		return newTrigramScan(rt, n), nil
	case *sql.KeyIndexScan:
		return newKeyIndexScan(rt, n), nil
	case *sql.HybridTopK:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newHybridTopK(rt, n, in)
	case *sql.Filter:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newFilter(rt, n, in), nil
	case *sql.Project:
		if k, ok := n.Input.(*sql.KeyLookup); ok && !rt.Analyze {
			if cols, ok := columnPicks(n.Exprs, k.Columns()); ok {
				return newProjectedKeyLookup(rt, k, n, cols), nil
			}
		}
		if f, ok := n.Input.(*sql.Filter); ok && hasSelectiveCall(n) {
			in, err := Build(rt, f.Input)
			if err != nil {
				return nil, err
			}
			return newFilterProject(rt, n, f, in), nil
		}
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newProject(rt, n, in), nil
	case *sql.Aggregate:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newAggregate(rt, n, in), nil
	case *sql.Sort:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newSort(rt, n.Keys, in, schemaOf(n.Columns())), nil
	case *sql.Limit:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		lim := newLimit(rt, n.Count, n.Offset, in)
		lim.ties, lim.tieSpecs = n.Ties, keySpecs(n.Ties)
		return lim, nil
	case *sql.LockRows:
		if rt.readOnly() {
			return nil, pgerr.New(pgerrcode.ReadOnlySQLTransaction, "cannot execute SELECT %s in a read-only transaction", n.Strength)
		}
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newLockRows(rt, n, in), nil
	case *sql.TopK:
		if op, ok, err := buildParallelTopK(rt, n); ok || err != nil {
			return op, err
		}
		if f, ok := n.Input.(*sql.Filter); ok {
			in, err := Build(rt, f.Input)
			if err != nil {
				return nil, err
			}
			return newFilteredTopK(rt, n, f, in), nil
		}
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newTopK(rt, n, in), nil
	case *sql.RecursiveUnion:
		return newRecursiveUnion(rt, n), nil
	case *sql.WorkTableScan:
		return newWorkTableScan(rt, n), nil
	case *sql.CTEScan:
		return newCTEScan(rt, n)
	case *sql.SharedCTEScan:
		return newSharedCTEScan(rt, n), nil
	case *sql.ProjectSet:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newProjectSet(rt, n, in), nil
	case *sql.LateralJoin:
		in, err := Build(rt, n.Left)
		if err != nil {
			return nil, err
		}
		return newLateralJoin(rt, n, in), nil
	case *sql.Window:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newWindow(rt, n, in), nil
	case *sql.Distinct:
		in, err := Build(rt, n.Input)
		if err != nil {
			return nil, err
		}
		return newDistinct(rt, n, in), nil
	case *sql.Join:
		l, err := Build(rt, n.Left)
		if err != nil {
			return nil, err
		}
		r, err := Build(rt, n.Right)
		if err != nil {
			l.Close()
			return nil, err
		}
		return newJoin(rt, n, l, r), nil
	case *sql.SetOp:
		nodes := n.Children()
		inputs := make([]Operator, 0, len(nodes))
		for _, in := range nodes {
			op, err := Build(rt, in)
			if err != nil {
				closeAll(inputs)
				return nil, err
			}
			inputs = append(inputs, op)
		}
		return newSetOp(rt, n, inputs), nil
	case nil:
		return nil, internalErr("nil plan node")
	}
	return nil, pgerr.NotSupported("executing %s", n.String())
}

// Drain pulls every batch of op, calls fn on each (the record is valid only
// during the call) and closes op. It stops at the first error, returning
// ctx.Err() when the context ends. A panic in an operator becomes an XX000
// error (a *PanicError) rather than taking the server down.
func Drain(ctx context.Context, op Operator, fn func(arrow.Record) error) (err error) {
	defer op.Close()
	defer func() {
		if r := recover(); r != nil {
			err = NewPanicError(r)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := op.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// schemaOf is the Arrow schema of a node's columns.
func schemaOf(cols []sql.Col) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// conformRecord returns rec's columns under schema (a new record the caller
// releases), relabelling Arrow types that differ only in names or flags.
func conformRecord(mem memory.Allocator, rec arrow.Record, schema *arrow.Schema) (arrow.Record, error) {
	if rec.Schema().Equal(schema) {
		rec.Retain()
		return rec, nil
	}
	return conformColumns(mem, rec.Columns(), rec.NumRows(), schema)
}

// conformColumns returns a record of schema over the columns in (of
// rows rows each), relabelled as conformRecord does; in stays the
// caller's.
func conformColumns(mem memory.Allocator, in []arrow.Array, rows int64, schema *arrow.Schema) (arrow.Record, error) {
	if len(in) != schema.NumFields() {
		return nil, internalErr("batch has %d columns, want %d", len(in), schema.NumFields())
	}
	cols := make([]arrow.Array, len(in))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range in {
		c.Retain()
		conformed, err := conformToType(mem, c, schema.Field(i).Type)
		if err != nil {
			return nil, err
		}
		cols[i] = conformed
	}
	return array.NewRecord(schema, cols, rows), nil
}

// outSlot holds the batch an operator returned last, released on the next
// call or on Close.
type outSlot struct{ rec arrow.Record }

// set replaces the held batch with r (owned) and returns it.
func (s *outSlot) set(r arrow.Record) arrow.Record {
	s.release()
	s.rec = r
	return r
}

// pass holds r, retained, and returns it.
func (s *outSlot) pass(r arrow.Record) arrow.Record {
	r.Retain()
	return s.set(r)
}

func (s *outSlot) release() {
	if s.rec != nil {
		s.rec.Release()
		s.rec = nil
	}
}
