package functions

// LIKE and ILIKE: the operators ~~ (LIKE), !~~ (NOT LIKE), ~~* (ILIKE)
// and !~~* (NOT ILIKE) on text and bytea. `x LIKE p ESCAPE e` reaches us
// as PostgreSQL's parser writes it, x ~~ like_escape(p, e): like_escape
// rewrites the pattern to use backslash as its escape character, so the
// matchers only know backslash. A column against a constant pattern runs
// as a batch kernel with the pattern compiled once.

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	for _, spec := range []struct {
		name      string
		fold, neg bool
	}{{"~~", false, false}, {"!~~", false, true}, {"~~*", true, false}, {"!~~*", true, true}} {
		spec := spec
		// char(n) matches with its padding (bpcharlike).
		for _, t := range []types.T{types.TextT, types.CharT} {
			ov := &Overload{Name: spec.name, Args: []types.T{t, types.TextT}, Result: types.BoolT}
			ov.Eval = func(_ *Context, args []any) (any, error) {
				return likeEval(args[0].(string), args[1].(string), spec.fold, spec.neg, false)
			}
			ov.Kernel = wrapKernel(ov, types.BoolT, patternKernel[*likeMatcher]{
				compile: func(pat string) (*likeMatcher, error) { return compileLike(pat, spec.fold) },
				neg:     spec.neg,
			}.run)
			Register(ov)
		}
		if !spec.fold {
			Register(&Overload{Name: spec.name, Args: []types.T{types.ByteaT, types.ByteaT}, Result: types.BoolT,
				Eval: func(_ *Context, args []any) (any, error) {
					return likeEval(string(args[0].([]byte)), string(args[1].([]byte)), false, spec.neg, true)
				}})
		}
	}
	Register(&Overload{Name: "like_escape", Args: []types.T{types.TextT, types.TextT}, Result: types.TextT,
		Eval: func(_ *Context, args []any) (any, error) { return likeEscape(args[0].(string), args[1].(string)) }})
	// like(text, text) and ilike(text, text) exist as functions too.
	for _, f := range []struct {
		name string
		fold bool
	}{{"like", false}, {"ilike", true}} {
		f := f
		Register(&Overload{Name: f.name, Args: []types.T{types.TextT, types.TextT}, Result: types.BoolT,
			Eval: func(_ *Context, args []any) (any, error) {
				return likeEval(args[0].(string), args[1].(string), f.fold, false, false)
			}})
	}
}

// likeEval matches s against a LIKE pattern; bytes makes _ match a byte.
func likeEval(s, pat string, fold, neg, bytes bool) (any, error) {
	m, err := compileLike(pat, fold)
	if err != nil {
		return nil, err
	}
	if bytes {
		c := *m
		c.bytes = true
		m = &c
	}
	ok, err := m.match(s)
	if err != nil {
		return nil, err
	}
	return ok != neg, nil
}

// likeEscape rewrites a pattern whose escape character is esc into one
// escaped with backslash, as PostgreSQL's like_escape does; an empty esc
// means no escape character.
func likeEscape(pat, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", pgerr.New(pgerrcode.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var b strings.Builder
	if esc == "" {
		for _, r := range pat {
			if r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	}
	e, _ := utf8.DecodeRuneInString(esc)
	afterEsc := false
	for _, r := range pat {
		switch {
		case r == e && !afterEsc:
			b.WriteByte('\\')
			afterEsc = true
		case r == '\\':
			b.WriteByte('\\')
			if !afterEsc {
				b.WriteByte('\\')
			}
			afterEsc = false
		default:
			b.WriteRune(r)
			afterEsc = false
		}
	}
	return b.String(), nil
}

func errLikeEscape() error {
	return pgerr.New(pgerrcode.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
}

// likeTok is one element of a compiled pattern.
type likeTok struct {
	kind byte // 'l' literal text, '_' one character, '%' any sequence, 'E' a trailing escape
	lit  string
}

// likeMatcher is a compiled LIKE pattern.
type likeMatcher struct {
	toks  []likeTok
	fold  bool
	bytes bool // bytea: '_' matches one byte
	// Fast shapes: exact, prefix%, %suffix, %infix%.
	shape byte
	lit   string
}

// likeCache holds compiled LIKE patterns, keyed by the pattern (with a
// prefix for ILIKE).
var likeCache patternCache[*likeMatcher]

// compileLike parses a LIKE pattern (backslash escapes).
func compileLike(pat string, fold bool) (*likeMatcher, error) {
	key := pat
	if fold {
		key = "\x00i" + pat
	}
	return likeCache.get(key, func() (*likeMatcher, error) { return parseLike(pat, fold), nil })
}

// parseLike compiles a LIKE pattern.
func parseLike(pat string, fold bool) *likeMatcher {
	if fold {
		pat = strings.ToLower(pat)
	}
	m := &likeMatcher{fold: fold}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			m.toks = append(m.toks, likeTok{kind: 'l', lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '\\':
			i++
			if i >= len(pat) {
				// An error only if matching reaches it with text left.
				flush()
				m.toks = append(m.toks, likeTok{kind: 'E'})
				continue
			}
			lit.WriteByte(pat[i])
		case '%':
			flush()
			if n := len(m.toks); n == 0 || m.toks[n-1].kind != '%' {
				m.toks = append(m.toks, likeTok{kind: '%'})
			}
		case '_':
			flush()
			m.toks = append(m.toks, likeTok{kind: '_'})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	m.classify()
	return m
}

func (m *likeMatcher) classify() {
	t := m.toks
	switch {
	case len(t) == 0:
		m.shape, m.lit = '=', ""
	case len(t) == 1 && t[0].kind == 'l':
		m.shape, m.lit = '=', t[0].lit
	case len(t) == 1 && t[0].kind == '%':
		m.shape = '*'
	case len(t) == 2 && t[0].kind == 'l' && t[1].kind == '%':
		m.shape, m.lit = 'p', t[0].lit
	case len(t) == 2 && t[0].kind == '%' && t[1].kind == 'l':
		m.shape, m.lit = 's', t[1].lit
	case len(t) == 3 && t[0].kind == '%' && t[1].kind == 'l' && t[2].kind == '%':
		m.shape, m.lit = 'c', t[1].lit
	}
}

// match reports whether s matches the pattern; a pattern ending in an
// escape character is an error when matching reaches it with text left.
func (m *likeMatcher) match(s string) (bool, error) {
	var bad bool
	ok := m.matchText(s, &bad)
	if bad {
		return false, errLikeEscape()
	}
	return ok, nil
}

func (m *likeMatcher) matchText(s string, bad *bool) bool {
	if m.fold {
		var buf [foldBufSize]byte
		s = foldLower(buf[:], s)
	}
	switch m.shape {
	case '=':
		return s == m.lit
	case '*':
		return true
	case 'p':
		return strings.HasPrefix(s, m.lit)
	case 's':
		return strings.HasSuffix(s, m.lit)
	case 'c':
		return strings.Contains(s, m.lit)
	}
	return m.matchFrom(s, 0, bad) == likeTrue
}

// The outcomes of matchFrom. likeAbort, as in PostgreSQL's like_match.c,
// says the text ran out before the pattern did: no later start in the
// text can match either, so a % stops trying further places. Without
// it a pattern of many %s costs the text's length to their number.
const (
	likeFalse = iota
	likeTrue
	likeAbort
)

// matchFrom matches tokens from index ti against s, backtracking on %.
func (m *likeMatcher) matchFrom(s string, ti int, bad *bool) int {
	for ti < len(m.toks) {
		t := m.toks[ti]
		switch t.kind {
		case 'E':
			*bad = *bad || s != ""
			return likeFalse
		case 'l':
			if !strings.HasPrefix(s, t.lit) {
				if len(s) < len(t.lit) && strings.HasPrefix(t.lit, s) {
					return likeAbort
				}
				return likeFalse
			}
			s = s[len(t.lit):]
		case '_':
			if s == "" {
				return likeAbort
			}
			if m.bytes {
				s = s[1:]
			} else {
				_, size := utf8.DecodeRuneInString(s)
				s = s[size:]
			}
		case '%':
			if ti == len(m.toks)-1 {
				return likeTrue
			}
			next := m.toks[ti+1]
			if next.kind == 'E' {
				*bad = *bad || s != ""
				return likeFalse
			}
			for {
				if next.kind == 'l' {
					i := strings.Index(s, next.lit)
					if i < 0 {
						return likeAbort
					}
					s = s[i:]
				}
				if r := m.matchFrom(s, ti+1, bad); r != likeFalse || *bad {
					return r
				}
				if s == "" {
					return likeAbort
				}
				if m.bytes {
					s = s[1:]
				} else {
					_, size := utf8.DecodeRuneInString(s)
					s = s[size:]
				}
			}
		}
		ti++
	}
	if s == "" {
		return likeTrue
	}
	return likeFalse
}
