package trgmindex

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// LikeKeys returns the trigrams every text matching the LIKE pattern pat
// (ILIKE when fold) holds, as functions' LIKE matcher reads patterns:
// backslash escapes the next byte, % matches any sequence and _ one
// character; ILIKE lowers the pattern and the text before matching. Each
// literal run between wildcards gives its trigrams, padded with Boundary
// where the run starts or ends the pattern (it is then anchored), as
// pg_trgm pads words; a run shorter than that gives none ('%ab%', '_',
// the empty pattern give no trigram: every row may match). ok is false
// when the pattern must be matched against every row: it ends with an
// escape character (an error the matcher raises on rows with text left,
// as PostgreSQL does) or it is not valid UTF-8.
func LikeKeys(pat string, fold bool) (keys []Key, ok bool) {
	if !utf8.ValidString(pat) {
		// A literal that is no text could match inside a character.
		return nil, false
	}
	if fold {
		pat = Fold(pat)
	}
	var lit strings.Builder
	start := true // the run being read starts the pattern
	flush := func(end bool) {
		if lit.Len() > 0 {
			s := lit.String()
			if !fold {
				s = Fold(s)
			}
			appendKeys(s, start, end, func(k Key) { keys = append(keys, k) })
			lit.Reset()
		}
		start = false
	}
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			i++
			if i >= len(pat) {
				return nil, false
			}
			lit.WriteByte(pat[i])
		case '%', '_':
			flush(false)
		default:
			lit.WriteByte(c)
		}
	}
	flush(true)
	slices.Sort(keys)
	return slices.Compact(keys), true
}
