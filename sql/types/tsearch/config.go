package tsearch

import (
	"context"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
	"github.com/kljensen/snowball/english"
)

// Config is a text search configuration: which tokens it indexes and
// how a token becomes a lexeme.
type Config struct {
	// Name is the configuration's name (in pg_catalog).
	Name string
	// OID is its pg_ts_config OID, PostgreSQL 15's for the same name.
	OID int64
	// stem makes words lexemes by english.stop and Snowball's English
	// stemmer; without it every token is lower-cased as it is (the
	// simple dictionary).
	stem bool
}

// The configurations cairn has.
var (
	Simple  = &Config{Name: "simple", OID: 3748}
	English = &Config{Name: "english", OID: 13164, stem: true}
	// Configs lists them by OID.
	Configs = []*Config{Simple, English}
)

// DefaultConfig is default_text_search_config's default.
const DefaultConfig = "pg_catalog.english"

// ConfigByName finds a configuration by its name, optionally qualified
// with pg_catalog and quoted as an identifier; ok is false when there is
// none of that name.
func ConfigByName(name string) (*Config, bool) {
	name = strings.TrimSpace(name)
	if schema, rest, ok := strings.Cut(name, "."); ok {
		if unquoteIdent(schema) != "pg_catalog" {
			return nil, false
		}
		name = rest
	}
	name = unquoteIdent(name)
	for _, c := range Configs {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// unquoteIdent reads an identifier: a quoted one as written, a bare one
// lower-cased.
func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// ConfigByOID finds a configuration by its OID.
func ConfigByOID(oid int64) (*Config, bool) {
	for _, c := range Configs {
		if c.OID == oid {
			return c, true
		}
	}
	return nil, false
}

// ErrNoConfig is the error for a configuration name that names none.
func ErrNoConfig(name string) error {
	return pgerr.New(pgerrcode.UndefinedObject, "text search configuration \"%s\" does not exist", name)
}

// english.stop, PostgreSQL's English stop words.
var englishStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself
		yourselves he him his himself she her hers herself it its itself they them their theirs
		themselves what which who whom this that these those am is are was were be been being have
		has had having do does did doing a an the and but if or because as until while of at by for
		with about against between into through during before after above below to from up down in
		out on off over under again further then once here there when where why how all any both
		each few more most other some such no nor not only own same so than too very s t can will
		just don should now`) {
		englishStop[w] = true
	}
}

// lexeme is a token's lexeme; stop is true for a stop word (which takes
// a position but gives no lexeme).
func (c *Config) lexeme(t Token) (lex string, stop bool) {
	lower := strings.ToLower(t.Text)
	if !c.stem {
		return lower, false
	}
	switch t.Type {
	case TokASCIIWord, TokWord, TokASCIIHWord, TokHWord, TokHWordASCIIPart, TokHWordPart:
	default:
		return lower, false
	}
	if englishStop[lower] {
		return "", true
	}
	if len(lower) > 1000 {
		return lower, false // PostgreSQL does not stem what is surely no word
	}
	return english.Stem(lower, true), false
}

// parsedWord is a lexeme of parsed text at its position.
type parsedWord struct {
	lex  string
	pos  int
	stop bool
}

// parse turns text into its lexemes and stop words with their
// positions, as PostgreSQL's parsetext: each indexed token takes the
// next position; a token longer than MaxWordLen bytes is skipped. Both
// configurations index every token type that Parse emits.
func (c *Config) parse(ctx context.Context, text string) ([]parsedWord, error) {
	var out []parsedWord
	pos := 0
	err := Parse(ctx, text, func(t Token) {
		if len(t.Text) > MaxWordLen {
			return
		}
		pos++
		lex, stop := c.lexeme(t)
		out = append(out, parsedWord{lex: lex, pos: min(pos, MaxPos), stop: stop})
	})
	return out, err
}

// ToVector is to_tsvector: the lexemes of text with their positions. It
// fails with ctx's error when ctx ends while the text is parsed.
func (c *Config) ToVector(ctx context.Context, text string) (Vector, error) {
	var v Vector
	total := 0
	words, err := c.parse(ctx, text)
	if err != nil {
		return nil, err
	}
	// Each word's positions gathered first, so that what is sorted is the
	// distinct words, whose bytes are checked against the limit before:
	// a long text of many words is refused (or a cancel seen) without a
	// sort of every word it holds.
	at := map[string]int{}
	for _, w := range words {
		if w.stop {
			continue
		}
		if i, ok := at[w.lex]; ok {
			v[i].Pos = append(v[i].Pos, MakePos(w.pos, 0))
			continue
		}
		at[w.lex] = len(v)
		v = append(v, Lexeme{Word: w.lex, Pos: []Pos{MakePos(w.pos, 0)}})
		total += len(w.lex)
	}
	if total > MaxStrPos {
		return nil, errTooLong(total)
	}
	return normalizeLexemes(v), nil
}

// morph is PostgreSQL's pushval_morph: the nodes of a query operand
// written as text: its lexemes joined by join (a phrase of distance 1 or
// AND), with stop words as stop nodes that keep the distances right.
func (c *Config) morph(text string, weight uint8, prefix bool, join Op) *Node {
	words, _ := c.parse(context.Background(), text) // a query's operand: no cancel to see
	var root *Node
	add := func(n *Node) {
		if root == nil {
			root = n
			return
		}
		d := 0
		if join == OpPhrase {
			d = 1
		}
		root = &Node{Op: join, Dist: d, L: root, R: n}
	}
	pos := 0
	for _, w := range words {
		if pos > 0 {
			for pos+1 < w.pos {
				add(&Node{Op: OpStop})
				pos++
			}
		}
		pos = w.pos
		if w.stop {
			add(&Node{Op: OpStop})
			continue
		}
		add(&Node{Op: OpVal, Word: w.lex, Weight: weight, Prefix: prefix})
	}
	if root == nil {
		return &Node{Op: OpStop}
	}
	return root
}

// ToQuery is to_tsquery: tsquery text whose operands are normalised by
// the configuration. notice is PostgreSQL's NOTICE when stop words
// leave nothing.
func (c *Config) ToQuery(text string) (q Query, notice string, err error) {
	q, err = parseQuery(text, func(w string, weight uint8, prefix bool) (*Node, error) {
		return c.morph(w, weight, prefix, OpPhrase), nil
	})
	if err != nil {
		return Query{}, "", err
	}
	return cleanStopwords(q, text)
}

// PlainToQuery is plainto_tsquery: the lexemes of text joined by &.
// A text of more words than a query's tree may be deep is 54001.
func (c *Config) PlainToQuery(text string) (Query, string, error) {
	return cleanStopwords(Query{Root: c.morph(text, 0, false, OpAnd)}, text)
}

// PhraseToQuery is phraseto_tsquery: the lexemes of text as a phrase.
// A text of more words than a query's tree may be deep is 54001.
func (c *Config) PhraseToQuery(text string) (Query, string, error) {
	return cleanStopwords(Query{Root: c.morph(text, 0, false, OpPhrase)}, text)
}

// stopNotice is PostgreSQL's NOTICE for a query that stop words emptied.
const stopNotice = "text-search query contains only stop words or doesn't contain lexemes, ignored"

// cleanStopwords removes stop nodes, adjusting phrase distances across
// them as PostgreSQL's clean_stopwords_intree does.
func cleanStopwords(q Query, text string) (Query, string, error) {
	if q.Root == nil {
		return q, "text-search query doesn't contain lexemes: \"" + text + "\"", nil
	}
	if err := checkTreeDepth(q.Root); err != nil {
		return Query{}, "", err
	}
	if !hasStop(q.Root) {
		return q, "", nil
	}
	var l, r int
	root := cleanNode(q.Root, &l, &r)
	if root == nil {
		return Query{}, stopNotice, nil
	}
	return Query{Root: root}, "", nil
}

func hasStop(n *Node) bool {
	if n == nil {
		return false
	}
	return n.Op == OpStop || hasStop(n.L) || hasStop(n.R)
}

// cleanNode removes the stop nodes under n; ladd and radd are what a
// phrase distance to the left and to the right of n must grow by.
func cleanNode(n *Node, ladd, radd *int) *Node {
	*ladd, *radd = 0, 0
	switch n.Op {
	case OpVal:
		return n
	case OpStop:
		return nil
	case OpNot:
		n.R = cleanNode(n.R, ladd, radd)
		if n.R == nil {
			return nil
		}
		return n
	}
	var lladd, lradd, rladd, rradd int
	n.L = cleanNode(n.L, &lladd, &lradd)
	n.R = cleanNode(n.R, &rladd, &rradd)
	phrase := n.Op == OpPhrase
	dist := 0
	if phrase {
		dist = n.Dist
	}
	switch {
	case n.L == nil && n.R == nil:
		if phrase {
			*ladd = lladd + dist + rradd
			*radd = *ladd
		}
		return nil
	case n.L == nil:
		if phrase {
			*ladd = lladd + dist + rladd
		} else {
			*ladd = rladd
		}
		*radd = rradd
		return n.R
	case n.R == nil:
		*ladd = lladd
		if phrase {
			*radd = lradd + dist + rradd
		} else {
			*radd = lradd
		}
		return n.L
	case phrase:
		n.Dist += lradd + rladd
		*ladd, *radd = lladd, rradd
	}
	return n
}
