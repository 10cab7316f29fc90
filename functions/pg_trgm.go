package functions

// pg_trgm's similarity functions, as the extension computes them:
// show_trgm(text) lists the trigrams of a text's words (runs of letters
// and digits, lower-cased, each padded with two spaces before and one
// after), similarity(a, b) is the shared trigrams over all of both sets,
// a % b is similarity >= pg_trgm.similarity_threshold (0.3 unless set),
// and a <-> b is 1 - similarity. (cairn's trigram index, storage/trgmindex,
// keeps trigrams of whole texts for LIKE; these are word trigrams.)

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	F4 := types.Float4T
	Register(
		fn1("show_trgm", tText, types.ArrayOf(tText, 1), func(a any) (any, error) {
			trgms := wordTrigrams(a.(string))
			elems := make([]any, len(trgms))
			for i, t := range trgms {
				elems[i] = t
			}
			return types.NewArray(tText, elems...), nil
		}),
		fn("similarity", targs(tText, tText), F4, func(_ *Context, a []any) (any, error) {
			return float64(trigramSimilarity(a[0].(string), a[1].(string))), nil
		}),
		fn("<->", targs(tText, tText), F4, func(_ *Context, a []any) (any, error) {
			return float64(1 - trigramSimilarity(a[0].(string), a[1].(string))), nil
		}),
		stable(fn("%", targs(tText, tText), tBool, func(ctx *Context, a []any) (any, error) {
			return trigramSimilarity(a[0].(string), a[1].(string)) >= similarityThreshold(ctx), nil
		})),
		stable(fn("similarity_threshold", nil, F4, func(ctx *Context, _ []any) (any, error) {
			return float64(similarityThreshold(ctx)), nil
		})),
	)
}

// wordTrigrams is the sorted set of s's word trigrams (show_trgm).
func wordTrigrams(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r := []rune("  " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			out = append(out, string(r[i:i+3]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// trigramSimilarity is pg_trgm's similarity of a and b, in float4.
func trigramSimilarity(a, b string) float32 {
	ta, tb := wordTrigrams(a), wordTrigrams(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(ta) && j < len(tb); {
		switch c := strings.Compare(ta[i], tb[j]); {
		case c == 0:
			common++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float32(common) / float32(len(ta)+len(tb)-common)
}

// similarityThreshold is the session's pg_trgm.similarity_threshold.
func similarityThreshold(ctx *Context) float32 {
	if ctx != nil && ctx.Session != nil {
		if v, ok := ctx.Session.Setting("pg_trgm.similarity_threshold"); ok {
			if f, err := strconv.ParseFloat(v, 32); err == nil {
				return float32(f)
			}
		}
	}
	return 0.3
}
