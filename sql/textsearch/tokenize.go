package textsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens are lower-cased runs of letters and digits (SPEC §3.2): no
// stemming, no stop words, except that '-' and '_' inside a word do not
// split it ("ai-driven" is one term, "ci/cd" two), which is what
// reproduces pg_deeplake's own expected BM25 scores.

// Tokenize splits text into BM25 terms.
func Tokenize(text string) []string {
	var out []string
	ForEachToken(text, func(tok string) { out = append(out, tok) })
	return out
}

// ForEachToken calls fn with each BM25 term of text, in order. Tokens of
// ASCII text without upper case letters are substrings of text itself; fn
// must copy a token it keeps (strings.Clone) if it must not pin text.
func ForEachToken(text string, fn func(string)) {
	lowered := lowerIfNeeded(text)
	start := -1
	for i := 0; i < len(lowered); {
		r, size := rune(lowered[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(lowered[i:])
		}
		if isTokenRune(r) || (r == '-' || r == '_') && start >= 0 {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			emitToken(lowered[start:i], fn)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		emitToken(lowered[start:], fn)
	}
}

// emitToken passes a word on without the joiners it may end with (a loop,
// not strings.TrimRight, which builds its cutset's table on every call: a
// tenth of a text index build).
func emitToken(tok string, fn func(string)) {
	end := len(tok)
	for end > 0 && (tok[end-1] == '-' || tok[end-1] == '_') {
		end--
	}
	if end > 0 {
		fn(tok[:end])
	}
}

func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// lowerIfNeeded lower-cases text, without allocating when it has no upper
// case letters.
func lowerIfNeeded(text string) string {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(text)
		}
	}
	return text
}
