package functions

// pg_get_keywords(): PostgreSQL 15's SQL keywords with their category
// (code and description) and whether each may be a bare column label, as
// clients read them (pgjdbc's getSQLKeywords).

import (
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	out := []types.Field{{Name: "word", T: types.TextT}, {Name: "catcode", T: types.TextT}, {Name: "barelabel", T: types.BoolT},
		{Name: "catdesc", T: types.TextT}, {Name: "baredesc", T: types.TextT}}
	RegisterSetReturning(&SetReturning{Name: "pg_get_keywords",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			return SetSignature{Out: out}, len(args) == 0, nil
		},
		Rows: func(*Context, []any, []types.T) (NextRow, error) {
			i := 0
			return func() ([]any, bool, error) {
				if i >= len(ident.Keywords) {
					return nil, false, nil
				}
				k := ident.Keywords[i]
				i++
				bare := "requires AS"
				if k.BareLabel {
					bare = "can be bare label"
				}
				return []any{k.Word, k.Category, k.BareLabel, ident.KeywordCategory(k.Category), bare}, true, nil
			}, nil
		}})
}
