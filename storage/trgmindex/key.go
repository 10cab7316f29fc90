package trgmindex

import (
	"strings"
	"unicode/utf8"
)

// A Key is one trigram: three runes of lower-cased text packed in 21 bits
// each, first rune highest. Text is padded with Boundary at both ends, so
// that the trigrams of a row also record how it starts and ends.
type Key uint64

// Boundary is the padding rune at both ends of a text; it is no Unicode
// code point, so no text holds it.
const Boundary rune = 0x1FFFFF

// Fold is the case folding of the index, the one ILIKE matches with
// (functions' LIKE matcher lowers both sides with strings.ToLower): the
// index holds the trigrams of Fold(text).
func Fold(s string) string { return strings.ToLower(s) }

// MakeKey packs three runes into a Key.
func MakeKey(a, b, c rune) Key {
	return Key(uint64(a&Boundary)<<42 | uint64(b&Boundary)<<21 | uint64(c&Boundary))
}

// Runes unpacks k.
func (k Key) Runes() (a, b, c rune) {
	return rune(k >> 42 & Key(Boundary)), rune(k >> 21 & Key(Boundary)), rune(k & Key(Boundary))
}

// String shows k as its three runes, Boundary as a space (as pg_trgm's
// show_trgm pads words).
func (k Key) String() string {
	a, b, c := k.Runes()
	var sb strings.Builder
	for _, r := range []rune{a, b, c} {
		if r == Boundary {
			r = ' '
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// appendKeys calls add for each trigram of runes (already folded) with
// Boundary before it when start and after it when end.
func appendKeys(s string, start, end bool, add func(Key)) {
	var w [3]rune
	n := 0
	push := func(r rune) {
		w[0], w[1], w[2] = w[1], w[2], r
		if n++; n >= 3 {
			add(MakeKey(w[0], w[1], w[2]))
		}
	}
	if start {
		push(Boundary)
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		push(r)
	}
	if end {
		push(Boundary)
	}
}

// TextKeys calls add for every trigram of text (not yet folded), in the
// order they occur, repeats included.
func TextKeys(text string, add func(Key)) { appendKeys(Fold(text), true, true, add) }

// Holds reports whether text (not yet folded) holds every trigram of
// keys: what a row the index would return satisfies. It checks rows that
// have no index (an unflushed tail) without building one.
func Holds(text string, keys []Key) bool {
	s := Fold(text)
	for _, k := range keys {
		a, b, c := k.Runes()
		var ok bool
		switch {
		case a == Boundary && c == Boundary:
			ok = s == string(b)
		case a == Boundary:
			ok = strings.HasPrefix(s, string([]rune{b, c}))
		case c == Boundary:
			ok = strings.HasSuffix(s, string([]rune{a, b}))
		default:
			ok = strings.Contains(s, string([]rune{a, b, c}))
		}
		if !ok {
			return false
		}
	}
	return true
}
