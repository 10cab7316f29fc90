package tsearch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// Canonical texts and answers below are PostgreSQL 15's.
func TestVectorAndQueryText(t *testing.T) {
	for in, want := range map[string]string{
		`a:1,2,3 b:3A,2B,1C,4D a:5`: `'a':1,2,3,5 'b':1C,2B,3A,4`,
		`the 'quick brown' \'x\\y`:  `'''x\\y' 'quick brown' 'the'`,
		`a:1,1,1A a:99999`:          `'a':1A,16383`,
		`ab aa a b abc`:             `'a' 'aa' 'ab' 'abc' 'b'`,
		"":                          "",
	} {
		got, err := NormalizeVector(in)
		if err != nil || got != want {
			t.Errorf("tsvector %q: got %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		`a & b | c`:          `'a' & 'b' | 'c'`,
		`(a | b) & c`:        `( 'a' | 'b' ) & 'c'`,
		`a <-> (b <-> c)`:    `'a' <-> ( 'b' <-> 'c' )`,
		`!(a <-> b)`:         `!( 'a' <-> 'b' )`,
		`a:* & b:AB & c:*BA`: `'a':* & 'b':AB & 'c':*AB`,
		`a <2> b`:            `'a' <2> 'b'`,
	} {
		got, err := NormalizeQuery(in)
		if err != nil || got != want {
			t.Errorf("tsquery %q: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"a &", "a b", "(a", "a)", "a <-1> b", "a:1", "a <->"} {
		if _, err := ParseQuery(in); err == nil {
			t.Errorf("tsquery %q: no error", in)
		}
	}
}

func TestEnglish(t *testing.T) {
	v, err := English.ToVector(context.Background(), "The quick-brown fox's don't jumps over the lazy dogs. Running runners ran!")
	if err != nil {
		t.Fatal(err)
	}
	if want := `'brown':4 'dog':13 'fox':5 'jump':9 'lazi':12 'quick':3 'quick-brown':2 'ran':16 'run':14 'runner':15`; v.String() != want {
		t.Errorf("to_tsvector: got %s, want %s", v, want)
	}
	q, _, _ := English.PhraseToQuery("the fat cats ate the rats")
	if want := `'fat' <-> 'cat' <-> 'ate' <2> 'rat'`; q.String() != want {
		t.Errorf("phraseto_tsquery: got %s, want %s", q, want)
	}
	q, _, _ = English.WebSearchToQuery(`"fat cat" or rat -dog`)
	if want := `'fat' <-> 'cat' | 'rat' & !'dog'`; q.String() != want {
		t.Errorf("websearch_to_tsquery: got %s, want %s", q, want)
	}
}

func TestRank(t *testing.T) {
	v, _ := ParseVector("'ate':9 'cat':3 'fat':2,11 'mat':7 'rat':12 'sat':4")
	q, _ := ParseQuery("fat & rat")
	// SELECT ts_rank(...), ts_rank_cd(...) in PostgreSQL 15
	if got := Rank(DefaultWeights, v, q, 0); got != 0.13493292 {
		t.Errorf("ts_rank: got %v", got)
	}
	if got := RankCD(DefaultWeights, v, q, 0); got != 0.1 {
		t.Errorf("ts_rank_cd: got %v", got)
	}
	if !Match(v, q) {
		t.Error("@@: no match")
	}
}

// TestQueryTreeDepth: a chain of operators builds a tree as deep as it is
// long, which printing and matching walk recursively; 3,000,000 NOTs
// overflowed the goroutine's stack and ended the process. Past
// maxTreeDepth every way of building one is 54001, as in PostgreSQL.
func TestQueryTreeDepth(t *testing.T) {
	deep := maxTreeDepth + 10
	words := strings.Repeat("ab ", deep)
	build := map[string]func() (Query, error){
		"NOT chain": func() (Query, error) { return ParseQuery(strings.Repeat("!", 3_000_000) + "a") },
		"AND chain": func() (Query, error) { return ParseQuery("a" + strings.Repeat(" & a", deep)) },
		"to_tsquery": func() (Query, error) {
			q, _, err := English.ToQuery("a" + strings.Repeat(" <-> a", deep))
			return q, err
		},
		"plainto_tsquery": func() (Query, error) {
			q, _, err := English.PlainToQuery(words)
			return q, err
		},
		"phraseto_tsquery": func() (Query, error) {
			q, _, err := English.PhraseToQuery(words)
			return q, err
		},
		"websearch_to_tsquery": func() (Query, error) {
			q, _, err := English.WebSearchToQuery(words)
			return q, err
		},
	}
	for name, f := range build {
		var pe *pgerr.Error
		if _, err := f(); !errors.As(err, &pe) || pe.Code != "54001" {
			t.Errorf("%s: got %v, want 54001", name, err)
		}
	}
	// 10,000 operands, which PostgreSQL takes, are fine.
	q, _, err := English.PlainToQuery(strings.Repeat("ab ", 10000))
	if err != nil || !strings.HasPrefix(q.String(), "'ab' & 'ab'") {
		t.Fatalf("plainto_tsquery of 10,000 words: %v", err)
	}
}
