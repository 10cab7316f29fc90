package tsearch

import (
	"context"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// The answers below are PostgreSQL 15's.
func TestHeadline(t *testing.T) {
	doc := "Search engines index documents. A document is a unit of searching. Indexing documents makes searching them fast; without an index every document must be scanned, which is slow for large collections of text documents and web pages."
	for _, c := range []struct{ query, opts, want string }{
		{"index & document", "", "<b>index</b> <b>documents</b>. A <b>document</b> is a unit of searching. <b>Indexing</b> <b>documents</b> makes searching them fast"},
		{"index & document", "MaxWords=10, MinWords=5", "<b>index</b> <b>documents</b>. A <b>document</b> is a unit"},
		{"index & document", "MaxFragments=2, MaxWords=8, MinWords=3", "Search engines <b>index</b> <b>documents</b>. A <b>document</b> ... unit of searching. <b>Indexing</b> <b>documents</b> makes searching them"},
		{"scan <-> slow", "", "Search engines index documents. A document is a unit of searching. Indexing documents makes searching"},
		{"web <-> page", "", "must be scanned, which is slow for large collections of text documents and <b>web</b> <b>pages</b>."},
	} {
		q, _, err := English.ToQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultHeadlineOptions
		if c.opts != "" {
			if o, err = ParseHeadlineOptions(c.opts); err != nil {
				t.Fatal(err)
			}
		}
		got, err := English.Headline(context.Background(), doc, q, o)
		if err != nil || got != c.want {
			t.Errorf("%s [%s]: got %q, %v; want %q", c.query, c.opts, got, err, c.want)
		}
	}
}

func TestHeadlineOptions(t *testing.T) {
	o, err := ParseHeadlineOptions(`MaxWords = 10 minwords=' 2 ', "StartSel"=E'<em class=''x''>', StopSel="</""em>",, HighlightAll=YES`)
	if err != nil || o.MaxWords != 10 || o.MinWords != 2 || o.StartSel != "<em class='x'>" || o.StopSel != `</"em>` || !o.HighlightAll {
		t.Errorf("got %+v, %v", o, err)
	}
	for in, code := range map[string]string{
		"foo=1":                      "22023",
		"MaxWords=0":                 "22023", // MinWords should be less than MaxWords
		"MinWords=0":                 "22023",
		"ShortWord=-1":               "22023",
		"MaxFragments=-1":            "22023",
		"MaxWords=x":                 "22P02",
		"MaxWords=1.5":               "22P02",
		"MaxWords=":                  "42601",
		"MaxWords=99999999999":       "22003",
		"MaxWords":                   "42601",
		"MaxWords=3 junk":            "42601",
		"MaxWords='3":                "42601",
		"HighlightAll=1, MinWords=0": "",
	} {
		_, err := ParseHeadlineOptions(in)
		if got := pgerr.Code(err); got != code {
			t.Errorf("%q: got %q (%v), want %q", in, got, err, code)
		}
	}
}
