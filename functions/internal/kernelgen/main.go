// Command kernelgen writes functions/kernels_gen.go: the loops of the
// arithmetic and comparison batch kernels, one function per operator,
// element kind and operand shape (column-column, column-constant,
// constant-column), and per family one dispatcher that picks the
// function from the operator and the shape.
//
// The loop of each family is written once, in the template below; the
// tables list the operators (one element expression each) and the
// element kinds. Generating the copies, rather than passing the
// operator to one generic loop as a function value or a type parameter's
// method, keeps the operator inlined in the loop: Go does not inline a
// call through either, and that call costs up to half the time of a
// comparison loop. Run it with `go generate ./functions`; a test checks
// that the committed file is its current output.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"
	"text/template"
)

// op is one operator: its arithOp or cmpOp constant, the name its
// functions carry, and the Go that computes it.
type op struct {
	Const, Name string
	// Expr is a comparison's boolean expression of %[1]s and %[2]s, or
	// an arithmetic operator's statements on x and y: they store the
	// result in out[i] and, for a family with a flag, OR into flag a value
	// that is negative when the row overflowed or divided by zero.
	Expr string
}

// kind is how a family reads its operands: their Go types and how a
// column's row and a constant are spelled in the loop.
type kind struct {
	Name    string
	TParams string // the functions' type parameters, with brackets
	Col     string // a column operand's Go type
	Elem    string // a constant operand's Go type
	// Sliced: a column is a []T, read eight rows at a time through a
	// subslice of capacity 8 so that the unrolled loop has no bounds
	// checks. Otherwise a column is an Arrow array read with At.
	Sliced bool
	At     string // an Arrow column's row: %[1]s the column, %[2]s the row
	Const  string // a constant as compared: %s the constant
}

// family is a set of loops sharing one template: the dispatcher Entry
// and the functions it calls, named Prefix+op+shape.
type family struct {
	Entry, Prefix, Doc string
	Kind               kind
	OpType             string
	Ops                []op
	Compare            bool // a bitmap result (else a []T result)
	Flag               bool // an arithmetic result with an error flag
}

var (
	signedKind = kind{Name: "signed", TParams: "[T signed]", Col: "[]T", Elem: "T", Sliced: true}
	floatKind  = kind{Name: "float", TParams: "[T float]", Col: "[]T", Elem: "T", Sliced: true}
	fixedKind  = kind{Name: "fixed", TParams: "[T fixed]", Col: "[]T", Elem: "T", Sliced: true}
	textKind   = kind{Name: "text", Col: "*array.String", Elem: "string", At: "%[1]s.Value(%[2]s)", Const: "%s"}
	// Booleans compare as bytes, false (0) before true (1).
	boolKind = kind{Name: "bool", Col: "*array.Boolean", Elem: "bool", At: "b2u(%[1]s.Value(%[2]s))", Const: "b2u(%s)"}
)

// cmpOps are the comparison operators.
var cmpOps = []op{
	{"opEq", "Eq", "%[1]s == %[2]s"}, {"opNe", "Ne", "%[1]s != %[2]s"}, {"opLt", "Lt", "%[1]s < %[2]s"},
	{"opLe", "Le", "%[1]s <= %[2]s"}, {"opGt", "Gt", "%[1]s > %[2]s"}, {"opGe", "Ge", "%[1]s >= %[2]s"},
}

var families = []family{
	{
		Entry: "intLoop", Prefix: "int", Kind: signedKind, OpType: "arithOp", Flag: true,
		Doc: `computes out = a op b in T's width and reports whether some row
// overflowed or divided by zero (then out's value there is unspecified).
// Rows under NULLs are computed too; the caller checks them.`,
		Ops: []op{
			{"opAdd", "Add", "r := x + y\nflag |= (x ^ r) & (y ^ r)\nout[i] = r"},
			{"opSub", "Sub", "r := x - y\nflag |= (x ^ y) & (x ^ r)\nout[i] = r"},
			{"opMul", "Mul", "r, o := mulOvf(x, y)\nflag |= -T(b2u(o))\nout[i] = r"},
			// -MinInt is MinInt again: that quotient overflows.
			{"opDiv", "Div", "switch y {\ncase 0:\nout[i], flag = 0, -1\ncase -1:\nout[i] = -x\nif x != 0 && x == -x {\nflag = -1\n}\ndefault:\nout[i] = x / y\n}"},
			{"opMod", "Mod", "switch y {\ncase 0:\nout[i], flag = 0, -1\ncase -1:\nout[i] = 0\ndefault:\nout[i] = x % y\n}"},
		},
	},
	{
		Entry: "floatMap", Prefix: "float", Kind: floatKind, OpType: "arithOp",
		Doc: `computes out = a op b with IEEE results (floatLoop checks them).`,
		Ops: []op{
			{"opAdd", "Add", "out[i] = x + y"}, {"opSub", "Sub", "out[i] = x - y"},
			{"opMul", "Mul", "out[i] = x * y"}, {"opDiv", "Div", "out[i] = x / y"},
		},
	},
	{
		Entry: "compareFixed", Prefix: "compareFixed", Kind: fixedKind, OpType: "cmpOp", Compare: true, Ops: cmpOps,
		Doc: `sets bit i of out (zeroed, n bits) where row i of a op b holds,
// eight rows per output byte. Floats must hold no NaN (cmpFloatKernel).`,
	},
	{
		Entry: "compareText", Prefix: "compareText", Kind: textKind, OpType: "cmpOp", Compare: true, Ops: cmpOps,
		Doc: `is compareFixed for text, compared bytewise (the C collation).`,
	},
	{
		Entry: "compareBool", Prefix: "compareBool", Kind: boolKind, OpType: "cmpOp", Compare: true, Ops: cmpOps,
		Doc: `is compareFixed for booleans (false < true).`,
	},
}

// shape is how the two operands are given: each a column or a constant.
type shape struct {
	Name, Doc  string
	ACol, BCol bool
	Cond       string // the dispatcher's test for it
}

var shapes = []shape{
	{"ColCol", "two columns", true, true, "a != nil && b != nil"},
	{"ColConst", "a column and a constant", true, false, "a != nil"},
	{"ConstCol", "a constant and a column", false, true, ""},
}

// loop is one generated function: a family's operator on one shape,
// with the spellings of its operands filled in.
type loop struct {
	Func, Params, Doc string
	Setup             string // statements before the loop
	Range             string // the column whose rows the loop ranges over
	Block             string // statements starting each block of eight rows
	X8, Y8            string // the operands' row {j} of the block
	X, Y              string // the operands' row i
	Expr              string
	Call              string // the dispatcher's call
	Const, Shape      string // the operator and the shape, for the doc
}

func (f family) loop(o op, s shape) loop {
	k := f.Kind
	l := loop{Func: f.Prefix + o.Name + s.Name, Expr: o.Expr, Const: o.Const, Shape: s.Doc}
	var params, call []string
	setup := []string{}
	operand := func(col bool, name, konst, colVar string) (x8, x string) {
		if !col {
			params = append(params, konst+" "+k.Elem)
			call = append(call, konst)
			if k.Const != "" && k.Const != "%s" {
				setup = append(setup, fmt.Sprintf("%s := %s", "k"+konst, fmt.Sprintf(k.Const, konst)))
				konst = "k" + konst
			}
			return konst, konst
		}
		params = append(params, name+" "+k.Col)
		call = append(call, name)
		if k.Sliced {
			if f.Compare {
				l.Block += fmt.Sprintf("%s := %s[i : i+8 : i+8]\n", colVar, name)
				return colVar + "[{j}]", name + "[i]"
			}
			return name + "[i]", name + "[i]"
		}
		return fmt.Sprintf(k.At, name, "i+{j}"), fmt.Sprintf(k.At, name, "i")
	}
	l.X8, l.X = operand(s.ACol, "a", "ac", "xs")
	l.Y8, l.Y = operand(s.BCol, "b", "bc", "ys")
	l.Range = "a"
	if !s.ACol {
		l.Range = "b"
	}
	if k.Sliced {
		if s.ACol && s.BCol {
			setup = append([]string{"b = b[:len(a)]"}, setup...)
		}
		if f.Compare {
			setup = append([]string{"n := len(" + l.Range + ")"}, setup...)
		} else {
			setup = append([]string{"out = out[:len(" + l.Range + ")]"}, setup...)
		}
	} else {
		params = append(params, "n int")
		call = append(call, "n")
	}
	if f.Compare {
		params = append(params, "out []byte")
	} else {
		params = append(params, "out []T")
	}
	call = append(call, "out")
	l.Params = strings.Join(params, ", ")
	l.Setup = strings.Join(setup, "\n")
	l.Call = l.Func + "(" + strings.Join(call, ", ") + ")"
	return l
}

// Block8 is a comparison's bitmap byte for the block of eight rows at
// i, written out term by term: with a constant shift per row, the
// compiler keeps everything in registers.
func (l loop) Block8() string {
	terms := make([]string, 8)
	for j := range terms {
		at := func(x string) string { return strings.ReplaceAll(x, "{j}", fmt.Sprint(j)) }
		terms[j] = fmt.Sprintf("b2u(%s)<<%d", fmt.Sprintf(l.Expr, at(l.X8), at(l.Y8)), j)
	}
	return strings.Join(terms, " |\n")
}

// Row is a comparison's test of row i.
func (l loop) Row() string { return fmt.Sprintf(l.Expr, l.X, l.Y) }

// Loops is every function of the family, shape by shape.
func (f family) Loops() (ls []loop) {
	for _, s := range shapes {
		for _, o := range f.Ops {
			ls = append(ls, f.loop(o, s))
		}
	}
	return ls
}

// Dispatch is the family's cases: per shape, per operator, the call.
func (f family) Dispatch() (d []struct {
	Cond  string
	Calls []struct{ Const, Call string }
}) {
	for _, s := range shapes {
		var c []struct{ Const, Call string }
		for _, o := range f.Ops {
			c = append(c, struct{ Const, Call string }{o.Const, f.loop(o, s).Call})
		}
		d = append(d, struct {
			Cond  string
			Calls []struct{ Const, Call string }
		}{s.Cond, c})
	}
	return d
}

const src = `// Code generated by kernelgen. DO NOT EDIT.

package functions

import "github.com/apache/arrow-go/v18/arrow/array"

{{range .}}{{$f := .}}
// {{.Entry}} {{.Doc}}
// a and b are columns or, where nil, the constants ac and bc.
func {{.Entry}}{{.Kind.TParams}}(op {{.OpType}}, a, b {{.Kind.Col}}, ac, bc {{.Kind.Elem}}, {{if not .Kind.Sliced}}n int, {{end}}out {{if .Compare}}[]byte{{else}}[]T{{end}}){{if .Flag}} bool{{end}} {
	{{- if .Flag}}
	var flag T{{end}}
	switch {
	{{- range .Dispatch}}
	{{if .Cond}}case {{.Cond}}:{{else}}default:{{end}}
		switch op {
		{{- range .Calls}}
		case {{.Const}}:
			{{if $f.Flag}}flag = {{end}}{{.Call}}{{end}}
		}{{end}}
	}{{if .Flag}}
	return flag < 0{{end}}
}
{{range .Loops}}
// {{.Func}} is {{$f.Entry}}'s {{.Const}} for {{.Shape}}.
func {{.Func}}{{$f.Kind.TParams}}({{.Params}}){{if $f.Flag}} (flag T){{end}} {
	{{- with .Setup}}
	{{.}}{{end}}
	{{- if $f.Compare}}
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		{{.Block}}out[i>>3] = {{.Block8}}
	}
	for i := full; i < n; i++ {
		out[i>>3] |= b2u({{.Row}}) << (i & 7)
	}
	{{- else}}
	for i := range {{.Range}} {
		x, y := {{.X}}, {{.Y}}
		{{.Expr}}
	}{{if $f.Flag}}
	return flag{{end}}
	{{- end}}
}
{{end}}{{end}}`

func main() {
	out := flag.String("o", "kernels_gen.go", "output file")
	flag.Parse()
	var buf bytes.Buffer
	if err := template.Must(template.New("kernels").Parse(src)).Execute(&buf, families); err != nil {
		log.Fatal(err)
	}
	code, err := format.Source(buf.Bytes())
	if err != nil {
		log.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		log.Fatal(err)
	}
}
