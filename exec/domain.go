package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// evalDomainCheck evaluates a value cast to a domain: the value, once the
// domain's constraints pass on it.
func (ev *evaluator) evalDomainCheck(e *sql.DomainCheck, b batch) (vec, error) {
	v, err := ev.eval(e.Arg, b)
	if err != nil {
		return vec{}, err
	}
	arr := v.arr
	if v.isConst() {
		// A constant stands for every row: checking it once will do.
		if arr, err = ev.materialize(v.c, e.Arg.Type(), 1); err != nil {
			return vec{}, err
		}
		defer arr.Release()
	}
	if err := checkDomain(ev.ctx, ev.rt, e, arr); err != nil {
		if !v.isConst() {
			v.arr.Release()
		}
		return vec{}, err
	}
	return v, nil
}

// checkDomain fails unless every value of arr meets domain d's
// constraints: 23502 for a NULL in a NOT NULL domain, 23514 for a value a
// CHECK finds false (a NULL result passes, as in PostgreSQL).
func checkDomain(ctx context.Context, rt *Runtime, d *sql.DomainCheck, arr arrow.Array) error {
	if d.NotNull && arr.NullN() > 0 {
		return pgerr.New(pgerrcode.NotNullViolation, "domain %s does not allow null values", d.Domain)
	}
	if len(d.Checks) == 0 {
		return nil
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arr.DataType(), Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	for _, c := range d.Checks {
		r, err := firstFailing(ctx, rt, c.Cond, rec)
		if err != nil {
			return err
		}
		if r >= 0 {
			return pgerr.New(pgerrcode.CheckViolation, "value for domain %s violates check constraint \"%s\"", d.Domain, c.Name)
		}
	}
	return nil
}

// columnDomain is the constraints of the domain of a table's column at
// position pos, checked on the column's new values.
type columnDomain struct {
	pos   int
	check *sql.DomainCheck
}

// onlyAssigned keeps the domain checks of the columns an UPDATE's set
// assigns: PostgreSQL checks the values it computes as it coerces them
// to the domain, not those of the columns left as they were (which a NOT
// VALID constraint may not have checked), nor a value already of the
// domain, a column of the row of the same domain (SET p = p).
func (c *constraints) onlyAssigned(set map[int]sql.Expr) {
	cols := c.def.Columns
	c.domains = slices.DeleteFunc(c.domains, func(d columnDomain) bool {
		e, ok := set[d.pos]
		if ref, isRef := e.(*sql.ColumnRef); isRef && ref.Index < len(cols) && cols[ref.Index].Domain == cols[d.pos].Domain {
			return true
		}
		return !ok
	})
}
