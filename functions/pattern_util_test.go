package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// TestPatternKernel runs the LIKE and regex operators' shared kernel over
// a pattern column (compiled row by row) and a subject column, with a
// pattern that would not compile under a NULL subject.
func TestPatternKernel(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	strs := func(vals ...string) arrow.Array {
		b := array.NewStringBuilder(m)
		defer b.Release()
		for _, v := range vals {
			if v == "NULL" {
				b.AppendNull()
			} else {
				b.Append(v)
			}
		}
		return b.NewArray()
	}
	for _, c := range []struct {
		op       string
		subjects []string
		patterns []string // one element: a constant
		want     string   // per row: t, f, or N for NULL
		err      string
	}{
		{"~~", []string{"abc", "xbc", "NULL", "ABC"}, []string{"a%"}, "tfNf", ""},
		{"!~~*", []string{"abc", "xbc", "NULL", "ABC"}, []string{"a%"}, "ftNf", ""},
		{"~~", []string{"abc", "abc", "abc"}, []string{"a_c", "b%", "NULL"}, "tfN", ""},
		{"~", []string{"abc", "NULL", "abc"}, []string{"^a", "[", "c$"}, "tNt", ""},
		{"!~", []string{"abc", "abc"}, []string{"^a", "z"}, "ft", ""},
		{"~*", []string{"abc", "abc"}, []string{"^A", "["}, "", "ERROR 2201B: invalid regular expression: brackets [] not balanced"},
	} {
		ov, _, err := Resolve(c.op, []types.T{types.TextT, types.TextT})
		if err != nil {
			t.Fatal(err)
		}
		subj := strs(c.subjects...)
		pat := Arg{Const: c.patterns[0], Type: types.TextT}
		if len(c.patterns) > 1 {
			pat = Arg{Array: strs(c.patterns...), Type: types.TextT}
		}
		out, err := ov.Kernel(ctx, []Arg{{Array: subj, Type: types.TextT}, pat}, subj.Len())
		subj.Release()
		if pat.Array != nil {
			pat.Array.Release()
		}
		if err != nil || c.err != "" {
			if errText(err) != c.err {
				t.Errorf("%s %v %v: error %v, want %q", c.op, c.subjects, c.patterns, err, c.err)
			}
			if out != nil {
				out.Release()
			}
			continue
		}
		got := ""
		for i := 0; i < out.Len(); i++ {
			switch {
			case out.IsNull(i):
				got += "N"
			case out.(*array.Boolean).Value(i):
				got += "t"
			default:
				got += "f"
			}
		}
		out.Release()
		if got != c.want {
			t.Errorf("%s %v %v = %s, want %s", c.op, c.subjects, c.patterns, got, c.want)
		}
	}
}
