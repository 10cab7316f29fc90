package tsearch

import (
	"context"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// ts_headline: an excerpt of a document with the words a query matches
// marked, chosen as PostgreSQL 15's default parser does (wparser_def.c's
// hlCover, mark_hl_words and mark_hl_fragments, wparser.c's
// generateHeadline): the document is parsed into every token, spaces
// and tags included; the query's covers (shortest runs of words that
// satisfy it) are found from where its terms and phrases match; the
// best cover is widened or narrowed to the word limits, or, with
// MaxFragments, several covers are printed apart.

// HeadlineOptions are ts_headline's options.
type HeadlineOptions struct {
	StartSel, StopSel, FragmentDelimiter        string
	MaxWords, MinWords, ShortWord, MaxFragments int
	HighlightAll                                bool
}

// DefaultHeadlineOptions are the options' defaults.
var DefaultHeadlineOptions = HeadlineOptions{
	StartSel: "<b>", StopSel: "</b>", FragmentDelimiter: " ... ",
	MaxWords: 35, MinWords: 15, ShortWord: 3,
}

// ParseHeadlineOptions reads ts_headline's options text, a list of
// name=value pairs (deserialize_deflist's syntax: values bare, in single
// quotes with backslash and doubled-quote escapes, or in double quotes;
// pairs apart by commas or spaces), and checks the values as
// prsd_headline does.
func ParseHeadlineOptions(s string) (HeadlineOptions, error) {
	o := DefaultHeadlineOptions
	pairs, err := deflist(s)
	if err != nil {
		return o, err
	}
	for _, p := range pairs {
		var n *int
		switch strings.ToLower(p[0]) {
		case "maxwords":
			n = &o.MaxWords
		case "minwords":
			n = &o.MinWords
		case "shortword":
			n = &o.ShortWord
		case "maxfragments":
			n = &o.MaxFragments
		case "startsel":
			o.StartSel = p[1]
		case "stopsel":
			o.StopSel = p[1]
		case "fragmentdelimiter":
			o.FragmentDelimiter = p[1]
		case "highlightall":
			switch strings.ToLower(p[1]) {
			case "1", "on", "true", "t", "y", "yes":
				o.HighlightAll = true
			default:
				o.HighlightAll = false
			}
		default:
			return o, pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized headline parameter: \"%s\"", p[0])
		}
		if n != nil {
			if *n, err = strtoint32(p[1]); err != nil {
				return o, err
			}
		}
	}
	if !o.HighlightAll {
		bad := func(msg string) error { return pgerr.New(pgerrcode.InvalidParameterValue, "%s", msg) }
		switch {
		case o.MinWords >= o.MaxWords:
			return o, bad("MinWords should be less than MaxWords")
		case o.MinWords <= 0:
			return o, bad("MinWords should be positive")
		case o.ShortWord < 0:
			return o, bad("ShortWord should be >= 0")
		case o.MaxFragments < 0:
			return o, bad("MaxFragments should be >= 0")
		}
	}
	for _, v := range [][2]string{{"StartSel", o.StartSel}, {"StopSel", o.StopSel}, {"FragmentDelimiter", o.FragmentDelimiter}} {
		if len(v[1]) > 1<<15-1 {
			return o, pgerr.New(pgerrcode.InvalidParameterValue, "value for \"%s\" is too long", v[0])
		}
	}
	return o, nil
}

// deflist splits options text into name, value pairs (PostgreSQL's
// deserialize_deflist).
func deflist(s string) ([][2]string, error) {
	const (
		waitKey = iota
		inKey
		inQKey
		waitEq
		waitValue
		inSQValue
		inDQValue
		inWValue
	)
	bad := func() error {
		return pgerr.New(pgerrcode.SyntaxError, "invalid parameter list format: \"%s\"", s)
	}
	isSpace := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	var out [][2]string
	var key, val []byte
	state := waitKey
	done := func() {
		out = append(out, [2]string{string(key), string(val)})
		key, val = key[:0:0], val[:0:0]
		state = waitKey
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case waitKey:
			switch {
			case isSpace(c) || c == ',':
			case c == '"':
				state = inQKey
			default:
				key = append(key, c)
				state = inKey
			}
		case inKey:
			switch {
			case isSpace(c):
				state = waitEq
			case c == '=':
				state = waitValue
			default:
				key = append(key, c)
			}
		case inQKey:
			switch {
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				key = append(key, c)
				i++
			case c == '"':
				state = waitEq
			default:
				key = append(key, c)
			}
		case waitEq:
			if c == '=' {
				state = waitValue
			} else if !isSpace(c) {
				return nil, bad()
			}
		case waitValue:
			switch {
			case c == '\'':
				state = inSQValue
			case c == 'E' && i+1 < len(s) && s[i+1] == '\'':
				i++
				state = inSQValue
			case c == '"':
				state = inDQValue
			case !isSpace(c):
				val = append(val, c)
				state = inWValue
			}
		case inSQValue:
			switch {
			case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
				val = append(val, c)
				i++
			case c == '\'':
				done()
			case c == '\\' && i+1 < len(s) && s[i+1] == '\\':
				val = append(val, c)
				i++
			default:
				val = append(val, c)
			}
		case inDQValue:
			switch {
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				val = append(val, c)
				i++
			case c == '"':
				done()
			default:
				val = append(val, c)
			}
		case inWValue:
			if c == ',' || isSpace(c) {
				done()
			} else {
				val = append(val, c)
			}
		}
	}
	switch state {
	case inWValue:
		done()
	case waitKey:
	default:
		return nil, bad()
	}
	return out, nil
}

// strtoint32 is PostgreSQL's pg_strtoint32: an optionally signed decimal
// integer between optional spaces.
func strtoint32(s string) (int, error) {
	isSpace := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var n int64
	over := false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int64(s[i]-'0')
		if n > 1<<31 {
			over = true
			n = 1 << 31
		}
		i++
	}
	digits := i > start
	if neg {
		n = -n
	}
	if digits && (over || n > 1<<31-1) {
		return 0, pgerr.New(pgerrcode.NumericValueOutOfRange, "value \"%s\" is out of range for type integer", s)
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if !digits || i < len(s) {
		return 0, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", s)
	}
	return int(n), nil
}

// hlWord is one token of a headline's document (HeadlineWordEntry).
type hlWord struct {
	typ  TokenType
	text string
	// pos is the lexeme position of a word that matches a query operand.
	pos int
	// item is the query operand the word matches; a word that matches
	// several has a repeated entry for each after the first.
	item     *Node
	repeated bool
	// What the selection decided: in the headline, marked, printed as a
	// space (a tag), not printed (a hyphenated word or URL, whose parts
	// are).
	in, selected, replace, skip bool
}

// hlDoc is a headline's parsed document.
type hlDoc struct {
	ctx   context.Context
	words []hlWord
	// matched is the indexes of words with an item, in order, and at the
	// indexes of the words that match each operand.
	matched []int
	at      map[*Node][]int
	polls   int
}

// operands lists the query's operands in PostgreSQL's item order (an
// operator, then its right operand, then its left).
func operands(n *Node, out []*Node) []*Node {
	if n == nil {
		return out
	}
	if n.Op == OpVal {
		return append(out, n)
	}
	out = operands(n.R, out)
	return operands(n.L, out)
}

// hlParse splits text into every token (hlparsetext): the tokens Parse
// emits, tags, entities, protocols and the blanks between them, each
// indexed token numbered as to_tsvector numbers it and matched against
// the query's operands (a prefix operand matches the lexemes it begins;
// weights do not matter).
func (c *Config) hlParse(ctx context.Context, text string, q Query) (*hlDoc, error) {
	d := &hlDoc{ctx: ctx, at: map[*Node][]int{}}
	items := operands(q.Root, nil)
	// A document says most of its words many times: each is stemmed once.
	type lexKey struct {
		typ  TokenType
		text string
	}
	type lexeme struct {
		lex  string
		stop bool
	}
	lexemes := map[lexKey]lexeme{}
	at, pos := 0, 0
	add := func(w hlWord) {
		if len(w.text) > MaxWordLen {
			return // PostgreSQL drops a token this long, with a NOTICE
		}
		d.words = append(d.words, w)
	}
	err := scan(ctx, text, func(t Token) {
		if t.At > at {
			add(hlWord{typ: TokBlank, text: text[at:t.At]})
		}
		at = max(at, t.At+len(t.Text))
		switch t.Type {
		case TokURL, TokNumHWord, TokASCIIHWord, TokHWord:
			at = t.At // its parts follow
		}
		if !t.Type.indexed() || len(t.Text) > MaxWordLen {
			add(hlWord{typ: t.Type, text: t.Text})
			return
		}
		pos++
		w := hlWord{typ: t.Type, text: t.Text, pos: min(pos, MaxPos)}
		key := lexKey{t.Type, t.Text}
		lx, ok := lexemes[key]
		if !ok {
			lx.lex, lx.stop = c.lexeme(t)
			lexemes[key] = lx
		}
		lex, stop := lx.lex, lx.stop
		first := len(d.words)
		d.words = append(d.words, w)
		if stop {
			return
		}
		for _, it := range items {
			if lex != it.Word && !(it.Prefix && strings.HasPrefix(lex, it.Word)) {
				continue
			}
			i := first
			if d.words[first].item != nil {
				i = len(d.words)
				d.words = append(d.words, w)
				d.words[i].repeated = true
			}
			d.words[i].item = it
			d.matched = append(d.matched, i)
			d.at[it] = append(d.at[it], i)
		}
	})
	if err != nil {
		return nil, err
	}
	if at < len(text) {
		add(hlWord{typ: TokBlank, text: text[at:]})
	}
	return d, nil
}

// poll looks at the context now and then in the cover searches, which
// over a long document of many matches take a while.
func (d *hlDoc) poll() error {
	d.polls++
	if d.polls%256 == 0 {
		return d.ctx.Err()
	}
	return nil
}

// nonWord: spaces, tags and the whole of a hyphenated word or URL do not
// count as words.
func nonWord(t TokenType) bool {
	switch t {
	case TokBlank, TokTag, TokURL, TokNumHWord, TokASCIIHWord, TokHWord:
		return true
	}
	return false
}

// noEnd: a headline should not end at these.
func noEnd(t TokenType) bool {
	if nonWord(t) {
		return true
	}
	switch t {
	case TokSFloat, TokVersion, TokFloat, TokInt, TokUInt, TokProtocol, TokEntity:
		return true
	}
	return false
}

func (d *hlDoc) interesting(j int) bool {
	return d.words[j].item != nil && !d.words[j].repeated
}

func (d *hlDoc) badEnd(j, shortword int) bool {
	w := &d.words[j]
	return (noEnd(w.typ) || len(w.text) <= shortword) && !d.interesting(j)
}

// wordCount is 1 for a word, 0 for a non-word.
func (d *hlDoc) wordCount(j int) int {
	if nonWord(d.words[j].typ) {
		return 0
	}
	return 1
}

// rangeOperand finds an operand's positions among words[b..e].
func (d *hlDoc) rangeOperand(b, e int) operandPositions {
	return func(n *Node) ([]int, bool, bool) {
		idx := d.at[n]
		lo := lowerBound(idx, b)
		var pos []int
		for _, i := range idx[lo:] {
			if i > e {
				break
			}
			if p := d.words[i].pos; len(pos) == 0 || pos[len(pos)-1] < p {
				pos = append(pos, p)
			}
		}
		return pos, len(pos) > 0, false
	}
}

func lowerBound(xs []int, v int) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		m := (lo + hi) / 2
		if xs[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// firstMatched is the index of the first word at or after i that
// matches a query operand, -1 when there is none.
func (d *hlDoc) firstMatched(i int) int {
	if k := lowerBound(d.matched, i); k < len(d.matched) {
		return d.matched[k]
	}
	return -1
}

// cover is hlCover: the earliest, shortest run of words, starting at or
// after word *p and spanning fewer than maxCover words, that satisfies
// the query; both its ends match query operands. It sets *p and *q to
// its first and last word indexes.
func (d *hlDoc) cover(q Query, maxCover int, p, e *int) (bool, error) {
	if q.Root == nil {
		return false, nil
	}
	pmin := d.firstMatched(*p)
	for pmin >= 0 {
		nextpmin := -1
		pmax := pmin
		for {
			if err := d.poll(); err != nil {
				return false, err
			}
			if evalBool(q.Root, d.rangeOperand(pmin, pmax)) {
				*p, *e = pmin, pmax
				return true, nil
			}
			next := d.firstMatched(pmax + 1)
			if pmax == pmin {
				nextpmin = next
			}
			pmax = next
			if pmax < 0 || pmax-pmin >= maxCover {
				break
			}
		}
		pmin = nextpmin
	}
	return false, nil
}

// mark puts words[b..e] in the headline.
func (d *hlDoc) mark(highlightAll bool, b, e int) {
	for i := b; i <= e && i < len(d.words); i++ {
		w := &d.words[i]
		if w.item != nil {
			w.selected = true
		}
		switch w.typ {
		case TokTag:
			if !highlightAll {
				w.replace = true
			}
		case TokURL, TokNumHWord, TokASCIIHWord, TokHWord:
			w.skip = true
		}
		w.in = !w.repeated
	}
}

// markWords is mark_hl_words, the selection without MaxFragments.
func (d *hlDoc) markWords(q Query, maxCover int, o HeadlineOptions) error {
	bestb, beste, bestlen, bestcover := -1, -1, -1, false
	if o.HighlightAll {
		d.mark(true, 0, len(d.words)-1)
		return nil
	}
	bad := func(j int) bool { return d.badEnd(j, o.ShortWord) }
	for p, q2 := 0, 0; ; p++ {
		ok, err := d.cover(q, maxCover, &p, &q2)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		curlen, poslen := 0, 0
		posb, pose := p, p
		i := p
		for ; i <= q2 && curlen < o.MaxWords; i++ {
			curlen += d.wordCount(i)
			if d.interesting(i) {
				poslen++
			}
			pose = i
		}
		if curlen < o.MaxWords {
			for i = i - 1; i < len(d.words) && curlen < o.MaxWords; i++ {
				if i > q2 {
					curlen += d.wordCount(i)
					if d.interesting(i) {
						poslen++
					}
				}
				pose = i
				if bad(i) {
					continue
				}
				if curlen >= o.MinWords {
					break
				}
			}
			if curlen < o.MinWords {
				for i = p - 1; i >= 0; i-- {
					curlen += d.wordCount(i)
					if d.interesting(i) {
						poslen++
					}
					if curlen >= o.MaxWords {
						break
					}
					if bad(i) {
						continue
					}
					if curlen >= o.MinWords {
						break
					}
				}
				posb = max(i, 0)
			}
		} else {
			i = min(i, q2)
			for ; curlen > o.MinWords; i-- {
				if !bad(i) {
					break
				}
				curlen -= d.wordCount(i)
				if d.interesting(i) {
					poslen--
				}
				pose = i - 1
			}
		}
		poscover := posb <= p && pose >= q2
		if poscover && !bestcover ||
			poscover == bestcover && poslen > bestlen ||
			poscover == bestcover && poslen == bestlen && !bad(pose) && bad(beste) {
			bestb, beste, bestlen, bestcover = posb, pose, poslen, poscover
		}
	}
	if bestlen < 0 {
		bestb, beste = 0, max(d.firstWords(o.MinWords), 0)
	}
	d.mark(false, bestb, beste)
	return nil
}

// firstWords is the index of the last token of the document's first
// min words (or of its last token), -1 for an empty document.
func (d *hlDoc) firstWords(min int) int {
	curlen, pose := 0, -1
	for i := 0; i < len(d.words) && curlen < min; i++ {
		curlen += d.wordCount(i)
		pose = i
	}
	return pose
}

// fragment is a cover, or a piece of one, for markFragments.
type fragment struct {
	start, end, poslen, curlen int
	chosen, excluded           bool
}

// nextFragment is get_next_fragment: the piece of the cover
// words[*start..*end] from its first query word on of at most max words,
// ending at a query word.
func (d *hlDoc) nextFragment(start, end *int, maxWords int) (curlen, poslen int) {
	for i := *start; i <= *end; i++ {
		*start = i
		if d.interesting(i) {
			break
		}
	}
	i := *start
	for ; i <= *end && curlen < maxWords; i++ {
		curlen += d.wordCount(i)
		if d.interesting(i) {
			poslen++
		}
	}
	if *end > i {
		*end = i
		for i = *end; i >= *start; i-- {
			*end = i
			if d.interesting(i) {
				break
			}
			curlen -= d.wordCount(i)
		}
	}
	return curlen, poslen
}

// markFragments is mark_hl_fragments, the selection with MaxFragments:
// the covers, cut to MaxWords, with the most query words (then the
// fewest words) are chosen, each stretched towards MaxWords on both
// sides.
func (d *hlDoc) markFragments(q Query, maxCover int, o HeadlineOptions) error {
	var covers []fragment
	for p, q2 := 0, 0; ; p++ {
		ok, err := d.cover(q, maxCover, &p, &q2)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		start, end := p, q2
		for start <= end {
			curlen, poslen := d.nextFragment(&start, &end, o.MaxWords)
			covers = append(covers, fragment{start: start, end: end, curlen: curlen, poslen: poslen})
			start, end = end+1, q2
		}
	}
	bad := func(j int) bool { return d.badEnd(j, o.ShortWord) }
	chosen := 0
	for f := 0; f < o.MaxFragments; f++ {
		maxitems, minwords, minI := 0, 1<<31-1, -1
		for i, c := range covers {
			if !c.chosen && !c.excluded && (maxitems < c.poslen || maxitems == c.poslen && minwords > c.curlen) {
				maxitems, minwords, minI = c.poslen, c.curlen, i
			}
		}
		if minI < 0 {
			break
		}
		c := &covers[minI]
		c.chosen = true
		start, end, curlen := c.start, c.end, c.curlen
		if curlen < o.MaxWords {
			maxstretch := (o.MaxWords - curlen) / 2
			stretch, marker := 0, start
			for i := start - 1; i >= 0 && stretch < maxstretch && !d.words[i].in; i-- {
				if d.wordCount(i) == 1 {
					curlen++
					stretch++
				}
				marker = i
			}
			i := marker
			for ; i < start && bad(i); i++ {
				curlen -= d.wordCount(i)
			}
			start = i
			marker = end
			for i = end + 1; i < len(d.words) && curlen < o.MaxWords && !d.words[i].in; i++ {
				curlen += d.wordCount(i)
				marker = i
			}
			for i = marker; i > end && bad(i); i-- {
				curlen -= d.wordCount(i)
			}
			end = i
		}
		c.start, c.end, c.curlen = start, end, curlen
		d.mark(o.HighlightAll, start, end)
		chosen++
		for i := range covers {
			o := &covers[i]
			if i != minI && (o.start >= start && o.start <= end || o.end >= start && o.end <= end || o.start < start && o.end > end) {
				o.excluded = true
			}
		}
	}
	if chosen == 0 {
		d.mark(o.HighlightAll, 0, max(d.firstWords(o.MinWords), 0))
	}
	return nil
}

// generate is generateHeadline: the marked words, the query's marked
// with StartSel and StopSel, runs apart joined by FragmentDelimiter.
func (d *hlDoc) generate(o HeadlineOptions) string {
	var b strings.Builder
	infrag, frags := false, 0
	for i := range d.words {
		w := &d.words[i]
		if w.repeated {
			continue
		}
		if !w.in {
			infrag = false
			continue
		}
		if !infrag {
			infrag = true
			frags++
			if frags > 1 {
				b.WriteString(o.FragmentDelimiter)
			}
		}
		switch {
		case w.replace:
			b.WriteByte(' ')
		case w.skip:
		case w.selected:
			b.WriteString(o.StartSel)
			b.WriteString(w.text)
			b.WriteString(o.StopSel)
		default:
			b.WriteString(w.text)
		}
	}
	return b.String()
}

// Headline is ts_headline of text for the query under the options. It
// fails with ctx's error when ctx ends while the text is parsed or its
// covers are sought.
func (c *Config) Headline(ctx context.Context, text string, q Query, o HeadlineOptions) (string, error) {
	d, err := c.hlParse(ctx, text, q)
	if err != nil {
		return "", err
	}
	// How many words a cover may span, as PostgreSQL computes it (in
	// 32-bit arithmetic).
	maxCover := max(int32(o.MaxWords)*10, 100)
	if o.MaxFragments > 0 {
		maxCover *= int32(o.MaxFragments)
	}
	if o.MaxFragments == 0 {
		err = d.markWords(q, int(maxCover), o)
	} else {
		err = d.markFragments(q, int(maxCover), o)
	}
	if err != nil {
		return "", err
	}
	return d.generate(o), nil
}
