package storage

import (
	"context"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/cairn-db/cairn/storage/textindex"
)

// TextMatches is what TextSearch finds: the corpus statistics of the
// column over the rows the transaction sees, and the rows holding at
// least one of the terms, with what BM25 needs to score them.
type TextMatches struct {
	// Terms are the distinct query terms, in the order first given; TF
	// and DocFreq follow it.
	Terms []string
	// Docs is the number of non-NULL rows, TotalTokens their total length
	// in tokens, DocFreq[t] the number of them holding Terms[t].
	Docs        int64
	TotalTokens int64
	DocFreq     []int64
	// RowIDs are the matching rows (what FetchRows and Delete take), in
	// no particular order; DocLen[i] is the length in tokens of row i's
	// text, and TF[i*len(Terms)+t] how often it holds Terms[t].
	RowIDs []int64
	DocLen []int32
	TF     []int32
}

// Len is the number of matching rows.
func (m *TextMatches) Len() int { return len(m.RowIDs) }

// Freq is how often match i holds Terms[t].
func (m *TextMatches) Freq(i, t int) int32 { return m.TF[i*len(m.Terms)+t] }

// TextStats returns the BM25 corpus statistics of text column column (a
// position in catalog.TableDef.Columns) over exactly the rows tx sees (its
// snapshot, minus what it deleted, plus what it inserted): the number of
// non-NULL rows, their total length in tokens and, for each of terms
// (tokens as textsearch.Tokenize makes them), the number of rows holding
// it. It reads the text indexes only, in O(len(terms)) per segment and
// in-memory batch. ErrNoTextIndex means the column has none.
func (tx *Tx) TextStats(tableID uint64, column int, terms []string) (docs, totalTokens int64, docFreq []int64, err error) {
	uniq, slot := dedupeTerms(terms)
	m, err := tx.textScan(context.Background(), tableID, column, uniq, false)
	if err != nil {
		return 0, 0, nil, err
	}
	docFreq = make([]int64, len(terms))
	for i, s := range slot {
		docFreq[i] = m.DocFreq[s]
	}
	return m.Docs, m.TotalTokens, docFreq, nil
}

// TextSearch returns the rows tx sees whose text column column holds at
// least one of terms, with their term frequencies and lengths, and the
// corpus statistics (as TextStats) — from the text indexes, without
// reading the column. Deleted rows never appear. ErrNoTextIndex means the
// column has none.
func (tx *Tx) TextSearch(ctx context.Context, tableID uint64, column int, terms []string) (TextMatches, error) {
	uniq, _ := dedupeTerms(terms)
	m, err := tx.textScan(ctx, tableID, column, uniq, true)
	if err != nil {
		return TextMatches{}, err
	}
	return *m, nil
}

// dedupeTerms returns the distinct terms in order and, per input term,
// its index among them.
func dedupeTerms(terms []string) ([]string, []int) {
	var uniq []string
	slot := make([]int, len(terms))
	for i, t := range terms {
		k := slices.Index(uniq, t)
		if k < 0 {
			k = len(uniq)
			uniq = append(uniq, t)
		}
		slot[i] = k
	}
	return uniq, slot
}

// textScan gathers the statistics (and with matches, the matching rows)
// of column over what tx sees.
func (tx *Tx) textScan(ctx context.Context, tableID uint64, column int, terms []string, matches bool) (*TextMatches, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	if column < 0 || column >= len(def.Columns) {
		return nil, errAlteredMeanwhile(def)
	}
	if tx.db.opts.DisableTextIndex || !textColumn(def.Columns[column].Type) {
		return nil, ErrNoTextIndex
	}
	s := &textSearch{colID: def.Columns[column].ID, matches: matches,
		m: &TextMatches{Terms: terms, DocFreq: make([]int64, len(terms))}}
	if ts != nil {
		// Each unit remembers what the deleted set's shared base removes
		// from it; the recent deletions and the transaction's own are
		// looked up by each search.
		over := ts.deleted.recent
		if tt != nil && !tt.deletes.IsEmpty() {
			over = tt.deletes
			if ts.deleted.recent != nil {
				over = roaring64.Or(ts.deleted.recent, tt.deletes)
			}
		}
		for _, seg := range ts.segments {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			u, err := tx.db.segText(seg, def)
			if err != nil {
				return nil, err
			}
			if err := s.unit(u, ts.deleted.base, true, over); err != nil {
				return nil, err
			}
		}
		for _, b := range ts.tail {
			if err := s.unit(b.textUnit(), ts.deleted.base, true, over); err != nil {
				return nil, err
			}
		}
	}
	if tt != nil {
		for _, seg := range tt.spilled {
			u, err := tx.db.segText(seg, def)
			if err != nil {
				return nil, err
			}
			if err := s.unit(u, tt.ownDel, false, nil); err != nil {
				return nil, err
			}
		}
		for _, b := range tt.inserts {
			if err := s.unit(b.textUnit(), tt.ownDel, false, nil); err != nil {
				return nil, err
			}
		}
	}
	return s.m, nil
}

// textSearch accumulates statistics and matches unit by unit.
type textSearch struct {
	colID   int
	matches bool
	m       *TextMatches
	ids     []int // scratch: term IDs in the current unit
}

// unit adds what u contributes: its rows minus those del removes
// (remember: del is an immutable committed set), minus those over (other
// deletions of committed rows: recent ones, the transaction's own) removes.
func (s *textSearch) unit(u *textUnit, del *roaring64.Bitmap, remember bool, over *roaring64.Bitmap) error {
	ix, err := u.index(s.colID)
	if err != nil || ix == nil {
		return err
	}
	d := u.deletions(del, remember)
	cd := u.colDel(d, s.colID, ix)
	// Rows the transaction deleted that del does not cover.
	var extra []uint32
	if p := u.pos; over != nil && p.min >= 0 && p.max >= p.min && rangeHasAny(over, uint64(p.min), uint64(p.max)) {
		it := over.Iterator()
		it.AdvanceIfNeeded(uint64(p.min))
		for it.HasNext() {
			v := it.Next()
			if v > uint64(p.max) {
				break
			}
			if off, ok := p.find(int64(v)); ok && !d.has(uint32(off)) {
				extra = append(extra, uint32(off))
			}
		}
		slices.Sort(extra)
	}
	m := s.m
	docs, tokens := ix.Docs(), ix.Tokens()
	if cd != nil {
		docs -= cd.docs
		tokens -= cd.tokens
	}
	for _, off := range extra {
		if n, null := ix.Len(int(off)); !null {
			docs--
			tokens -= int64(n)
		}
	}
	m.Docs += docs
	m.TotalTokens += tokens
	s.ids = s.ids[:0]
	found := false
	for t, term := range m.Terms {
		id, ok := ix.Lookup(term)
		if !ok {
			s.ids = append(s.ids, -1)
			continue
		}
		found = true
		s.ids = append(s.ids, id)
		df := int64(ix.DocFreq(id))
		if cd != nil {
			df -= int64(cd.df[id])
		}
		for _, off := range extra {
			if ix.HasTerm(int(off), id) {
				df--
			}
		}
		m.DocFreq[t] += df
	}
	if s.matches && found {
		s.collect(u, ix, d, extra)
	}
	return nil
}

// collect appends u's live rows holding a term: a merge of the terms'
// postings, which ascend by position.
func (s *textSearch) collect(u *textUnit, ix *textindex.Index, d *unitDel, extra []uint32) {
	type cursor struct {
		rows, tfs []uint32
		t, i      int
	}
	var curs []cursor
	for t, id := range s.ids {
		if id >= 0 {
			rows, tfs := ix.Postings(id)
			curs = append(curs, cursor{rows: rows, tfs: tfs, t: t})
		}
	}
	m := s.m
	nt := len(m.Terms)
	for {
		next := uint32(math.MaxUint32)
		for k := range curs {
			if c := &curs[k]; c.i < len(c.rows) && c.rows[c.i] < next {
				next = c.rows[c.i]
			}
		}
		if next == math.MaxUint32 {
			return
		}
		live := !d.has(next)
		if live && len(extra) > 0 {
			_, gone := slices.BinarySearch(extra, next)
			live = !gone
		}
		if live {
			n, _ := ix.Len(int(next))
			m.RowIDs = append(m.RowIDs, u.pos.ids[next])
			m.DocLen = append(m.DocLen, int32(min(n, math.MaxInt32)))
			m.TF = slices.Grow(m.TF, nt)[:len(m.TF)+nt]
			clear(m.TF[len(m.TF)-nt:])
		}
		for k := range curs {
			if c := &curs[k]; c.i < len(c.rows) && c.rows[c.i] == next {
				if live {
					m.TF[len(m.TF)-nt+c.t] = int32(min(c.tfs[c.i], math.MaxInt32))
				}
				c.i++
			}
		}
	}
}
