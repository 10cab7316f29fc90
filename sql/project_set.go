package sql

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// Set-returning functions in a select list: SELECT id, unnest(tags) FROM
// t. Each such call is bound as an SRFCall where it appears; once the
// query's windows are planned the binder moves the calls into one
// ProjectSet node, which runs them for every input row in lockstep, as
// PostgreSQL 10 and later do: a row yields as many rows as its longest
// function does, the shorter ones padded with NULL.

// SRFCall is a set-returning function inside a select-list expression
// until the binder moves it into a ProjectSet.
type SRFCall struct {
	SRF *SRF
}

func (e *SRFCall) Type() types.T  { return e.SRF.ResultType() }
func (e *SRFCall) String() string { return e.SRF.Name + "(" + joinExprs(e.SRF.Args, ", ") + ")" }

// ProjectSet runs set-returning functions over each input row; its output
// is the input's columns followed by one column per function.
type ProjectSet struct {
	Input Node
	SRFs  []*SRF
	Out   []Col
}

func (n *ProjectSet) Columns() []Col   { return n.Out }
func (n *ProjectSet) Children() []Node { return []Node{n.Input} }
func (n *ProjectSet) String() string {
	names := make([]string, len(n.SRFs))
	for i, s := range n.SRFs {
		names[i] = s.Name
	}
	return "ProjectSet: " + strings.Join(names, ", ")
}

// planSRFs moves the SRFCalls of exprs into a ProjectSet over plan,
// replacing each with a reference to its output column; plan is returned
// unchanged when there are none.
func planSRFs(plan Node, exprs []*Expr) (Node, error) {
	base := plan.Columns()
	srfs, cols, err := liftCalls(exprs, len(base), func(x Expr) (*SRF, Col, bool) {
		call, ok := x.(*SRFCall)
		if !ok {
			return nil, Col{}, false
		}
		return call.SRF, Col{Name: call.SRF.Name, T: call.Type()}, true
	})
	if err != nil || len(srfs) == 0 {
		return plan, err
	}
	return &ProjectSet{Input: plan, SRFs: srfs, Out: append(append([]Col{}, base...), cols...)}, nil
}

// planGroupedSRFs runs the set-returning functions of GROUP BY keys below
// the Aggregate, as PostgreSQL does: SELECT jsonb_object_keys(doc) AS k,
// count(*) FROM t GROUP BY k counts the rows holding each key. The calls
// move into a ProjectSet over plan (in lockstep, like a select list's);
// each becomes a reference to its output column in keys and wherever
// others hold the same call, so the Aggregate's rewrite finds the key
// there. plan is returned unchanged when no key has such a call.
func planGroupedSRFs(plan Node, keys []Expr, others []*Expr) Node {
	base := len(plan.Columns())
	var srfs []*SRF
	var refs []*ColumnRef
	lift := func(x Expr) (Expr, error) {
		call, ok := x.(*SRFCall)
		if !ok {
			return nil, nil
		}
		for i, s := range srfs {
			if sameExpr(&SRFCall{SRF: s}, call) {
				return refs[i], nil
			}
		}
		srfs = append(srfs, call.SRF)
		refs = append(refs, &ColumnRef{Index: base + len(refs), Name: call.SRF.Name, T: call.Type()})
		return refs[len(refs)-1], nil
	}
	for i := range keys {
		keys[i], _ = transformExpr(keys[i], lift) // lift returns no error
	}
	if len(srfs) == 0 {
		return plan
	}
	same := func(x Expr) (Expr, error) {
		if call, ok := x.(*SRFCall); ok {
			for i, s := range srfs {
				if sameExpr(&SRFCall{SRF: s}, call) {
					return refs[i], nil
				}
			}
		}
		return nil, nil
	}
	for _, e := range others {
		if *e != nil {
			*e, _ = transformExpr(*e, same)
		}
	}
	out := append([]Col{}, plan.Columns()...)
	for _, r := range refs {
		out = append(out, Col{Name: r.Name, T: r.T})
	}
	return &ProjectSet{Input: plan, SRFs: srfs, Out: out}
}

// FieldSelect is (record).field: one field of a record whose fields are
// known (see types.T.Fields).
type FieldSelect struct {
	Arg   Expr
	Index int
	Name  string
	T     types.T
}

func (e *FieldSelect) Type() types.T  { return e.T }
func (e *FieldSelect) String() string { return "(" + e.Arg.String() + ")." + e.Name }
