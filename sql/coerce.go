package sql

import (
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// castContext is where a conversion happens, which decides the casts
// allowed (PostgreSQL's implicit / assignment / explicit cast contexts).
type castContext uint8

const (
	castImplicit castContext = iota
	castAssignment
	castExplicit
)

// coerce converts e to type to. Untyped literals are parsed as that type
// right away; untyped parameters take the type; NULL takes the type;
// anything else gets a Cast node when the context allows the cast.
func (b *Binder) coerce(e Expr, to types.T, ctx castContext) (Expr, error) {
	if to.Family == types.Unknown {
		return e, nil
	}
	from := e.Type()
	switch x := e.(type) {
	case *Const:
		if x.Value == nil {
			return &Const{Value: nil, T: to}, nil
		}
		if from.Family == types.Unknown && (isReg(to) || isRegArray(to)) {
			// 'name'::regclass and friends: a catalog lookup.
			return b.foldCast(&Cast{Arg: x, To: to, Explicit: true})
		}
		if from.Family == types.Unknown {
			s, _ := x.Value.(string)
			v, err := types.ParseTextOpts(s, to, &types.TextOptions{Location: b.location(), Now: b.Now, DateStyle: b.DateStyle, IntervalStyle: b.IntervalStyle})
			if err != nil {
				return nil, pgerr.From(err).WithPositionIfUnset(x.Pos)
			}
			if v, err = types.ApplyTypmod(v, to, ctx == castExplicit); err != nil {
				return nil, err
			}
			return &Const{Value: v, T: to}, nil
		}
	case *Param:
		if from.Family == types.Unknown || from.Family == types.Null {
			// The parameter takes the type without its modifier, as
			// PostgreSQL infers it ($1::varchar(2) is a varchar
			// parameter), and a cast applies the modifier to the value
			// bound: a value for varchar(3) or numeric(4,1) is checked and
			// rounded as a literal is ('abcd' is 22001), $1::varchar(2)
			// of 'abc' is 'ab' (a parameter typed with the modifier made
			// that cast a no-op, and values were stored whole).
			pt := to
			pt.Mod = -1
			b.Params[x.Index] = pt
			p := &Param{Index: x.Index, T: pt}
			if to.Mod >= 0 {
				return &Cast{Arg: p, To: to, Explicit: ctx == castExplicit}, nil
			}
			return p, nil
		}
	}
	if from.Family == types.Null {
		return &Cast{Arg: e, To: to, Explicit: true}, nil
	}
	if from.Equal(to) {
		if to.Mod >= 0 && to.Mod != from.Mod || to.Domain != "" && to.Domain != from.Domain {
			return b.foldCast(&Cast{Arg: e, To: to, Explicit: ctx == castExplicit})
		}
		return e, nil
	}
	implicit, assignment, explicit := functions.CastKind(from, to)
	ok := explicit && ctx == castExplicit || assignment && ctx >= castAssignment || implicit
	if !ok {
		if !explicit {
			return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type %s to %s", from, to)
		}
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "expression is of type %s but %s is expected", from, to).
			WithHint("You will need to rewrite or cast the expression.")
	}
	return b.foldCast(&Cast{Arg: e, To: to, Explicit: ctx == castExplicit})
}

// location is the time zone constants are read and written in.
func (b *Binder) location() *time.Location {
	if b.Location == nil {
		return time.UTC
	}
	return b.Location
}

// foldCast evaluates a cast of a constant at bind time.
func (b *Binder) foldCast(c *Cast) (Expr, error) {
	k, ok := c.Arg.(*Const)
	if !ok {
		return c, nil
	}
	fn := &functions.Context{Location: b.location(), Now: b.Now, DateStyle: b.DateStyle, Floats: b.Floats,
		ByteaEscape: b.ByteaEscape, IntervalStyle: b.IntervalStyle}
	if (c.To.IsOID() || k.T.IsOID() || isRegArray(c.To) || isRegArray(k.T)) && b.Catalog != nil {
		// 'name'::regclass and friends look the name up now.
		fn.Catalog = b.catalogView()
	}
	v, err := functions.Cast(fn, k.Value, k.T, c.To, c.Explicit)
	if err != nil {
		return nil, err
	}
	return &Const{Value: v, T: c.To}, nil
}

// coerceColumn converts an expression for assignment to a table column,
// naming the column in the error as PostgreSQL does.
func (b *Binder) coerceColumn(e Expr, col string, to types.T) (Expr, error) {
	out, err := b.coerce(e, to, castAssignment)
	if err != nil {
		if pe := pgerr.From(err); pe.Code == pgerrcode.DatatypeMismatch || pe.Code == pgerrcode.CannotCoerce {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "column \"%s\" is of type %s but expression is of type %s", col, to, e.Type()).
				WithHint("You will need to rewrite or cast the expression.")
		}
		return nil, err
	}
	return out, nil
}

// catalogView is the system catalog view of the binder's catalog, for the
// reg* types' name lookups; built once per statement.
func (b *Binder) catalogView() *syscat.View {
	if b.view == nil {
		b.view = syscat.NewView(b.Catalog, "", "", b.SearchPath)
	}
	return b.view
}
