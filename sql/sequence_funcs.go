package sql

// currval, setval and lastval: the sequence functions besides nextval
// (bindNextVal), bound with the sequence resolved now, as nextval is.

import (
	"errors"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// SeqFunc is currval(seq), setval(seq, value [, is_called]) or lastval();
// Args are setval's value and is_called (true when not given). Func
// "last_value" and "is_called" read the sequence's state, the columns of
// SELECT ... FROM seq (bindSequenceScan).
type SeqFunc struct {
	Func         string
	Schema, Name string
	Args         []Expr
}

func (e *SeqFunc) Type() types.T {
	if e.Func == "is_called" {
		return types.BoolT
	}
	return types.Int8T
}
func (e *SeqFunc) String() string {
	if e.Name == "" {
		return e.Func + "()"
	}
	args := append([]Expr{&Const{Value: e.Schema + "." + e.Name, T: types.TextT}}, e.Args...)
	return e.Func + "(" + joinExprs(args, ", ") + ")"
}

// bindSeqFunc binds currval, setval and lastval.
func (b *Binder) bindSeqFunc(name string, args []Expr) (Expr, error) {
	noSuch := pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	switch {
	case name == "lastval" && len(args) == 0:
		return &SeqFunc{Func: name}, nil
	case name == "currval" && len(args) == 1, name == "setval" && (len(args) == 2 || len(args) == 3):
	default:
		return nil, noSuch
	}
	schema, seq, err := b.sequenceArg(name, args[0])
	if err == errNullSequence {
		return &Const{Value: nil, T: types.Int8T}, nil
	}
	if err != nil {
		return nil, err
	}
	f := &SeqFunc{Func: name, Schema: schema, Name: seq}
	if name == "setval" {
		v, err := b.coerce(args[1], types.Int8T, castImplicit)
		if err != nil {
			return nil, noSuch
		}
		called := Expr(&Const{Value: true, T: types.BoolT})
		if len(args) == 3 {
			if called, err = b.coerce(args[2], types.BoolT, castImplicit); err != nil {
				return nil, noSuch
			}
		}
		f.Args = []Expr{v, called}
	}
	return f, nil
}

// sequenceArg resolves the sequence argument of a sequence function: a
// name as text ('seq', 'schema.seq') or a regclass ('seq'::regclass).
func (b *Binder) sequenceArg(fn string, arg Expr) (schema, seq string, err error) {
	if call, isCall := arg.(*Call); isCall && call.Name == "pg_get_serial_sequence" {
		// Django's sequence reset (loaddata, sqlsequencereset) names the
		// sequence so: setval(pg_get_serial_sequence('"t"', 'id'), ...).
		// With constant arguments the sequence is known now.
		table, okT := constString(call.Args[0])
		column, okC := constString(call.Args[1])
		if okT && okC {
			name, found, err := b.catalogView().SerialSequence(table, column)
			if err != nil {
				return "", "", err
			}
			if !found {
				return "", "", errNullSequence
			}
			arg = &Const{Value: name, T: types.TextT}
		}
	}
	c, ok := arg.(*Const)
	if !ok {
		if cast, isCast := arg.(*Cast); isCast {
			c, ok = cast.Arg.(*Const)
		}
	}
	if !ok {
		return "", "", pgerr.NotSupported("%s() of a computed sequence name", fn)
	}
	if oid, isOID := c.Value.(int64); isOID && c.T.Family == types.RegClass {
		// seq::regclass: the cast has looked the name up.
		if schema, seq, kind, found := b.catalogView().Relation(oid); found && kind == 'S' {
			b.needSequence(fn, b.Catalog.Sequences[catalog.Key(schema, seq)])
			return schema, seq, nil
		}
		return "", "", pgerr.New(pgerrcode.WrongObjectType, "relation with OID %d is not a sequence", oid)
	}
	name, _ := c.Value.(string)
	if name == "" {
		return "", "", pgerr.NotSupported("%s() of a computed sequence name", fn)
	}
	seq = name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		schema, seq = name[:i], name[i+1:]
	}
	schema, seq = strings.Trim(schema, `"`), strings.Trim(seq, `"`)
	if schema, err = b.schemaName(schema); err != nil {
		return "", "", err
	}
	if schema == "" {
		for _, s := range b.SearchPath {
			if _, ok := b.Catalog.Sequences[s+"."+seq]; ok {
				schema = s
				break
			}
		}
	}
	def, ok := b.Catalog.Sequences[schema+"."+seq]
	if !ok {
		return "", "", pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", name)
	}
	b.needSequence(fn, def)
	return schema, seq, nil
}

// errNullSequence is sequenceArg's answer for a sequence argument that is
// NULL: the sequence functions are strict, so the call is NULL.
var errNullSequence = errors.New("NULL sequence name")

// constString is the value of a constant (possibly cast) string expression.
func constString(e Expr) (string, bool) {
	if cast, ok := e.(*Cast); ok {
		e = cast.Arg
	}
	c, ok := e.(*Const)
	if !ok {
		return "", false
	}
	v, ok := c.Value.(string)
	return v, ok
}

// needSequence records the privileges sequence function fn needs on def,
// as PostgreSQL checks them: nextval USAGE or UPDATE, currval USAGE or
// SELECT, setval UPDATE. A serial column's default is bound with the
// statement, so an INSERT that takes it needs them too.
func (b *Binder) needSequence(fn string, def *catalog.SequenceDef) {
	if def == nil {
		return
	}
	privs := map[string]catalog.Priv{
		"nextval": catalog.PrivUsage | catalog.PrivUpdate,
		"currval": catalog.PrivUsage | catalog.PrivSelect,
		"setval":  catalog.PrivUpdate,
	}[fn]
	b.accesses = append(b.accesses, Access{Sequence: def, Privs: privs, AnyOf: true})
}

// bindSequenceScan binds SELECT ... FROM seq: one row of the sequence's
// state, PostgreSQL's (last_value, log_cnt, is_called), which pg_dump
// reads to restore it with setval. log_cnt (values logged ahead) is 0.
// It needs SELECT on the sequence.
func (b *Binder) bindSequenceScan(def *catalog.SequenceDef, alias string, colNames []string) (Node, []Col) {
	b.accesses = append(b.accesses, Access{Sequence: def, Privs: catalog.PrivSelect})
	row := []Expr{
		&SeqFunc{Func: "last_value", Schema: def.Schema, Name: def.Name},
		&Const{Value: int64(0), T: types.Int8T},
		&SeqFunc{Func: "is_called", Schema: def.Schema, Name: def.Name},
	}
	cols := []Col{{Name: "last_value", T: types.Int8T, Table: alias}, {Name: "log_cnt", T: types.Int8T, Table: alias}, {Name: "is_called", T: types.BoolT, Table: alias}}
	return &Values{Rows: [][]Expr{row}, Out: cols}, aliasCols(cols, alias, colNames)
}
