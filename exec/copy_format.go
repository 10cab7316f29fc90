package exec

// The data formats of COPY: PostgreSQL's text format (tab-separated, \N
// for NULL, backslash escapes), CSV and binary, read as copyfromparse.c
// reads them and written as copyto.c writes them.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// eolType is the end of line of COPY FROM data, fixed by its first line;
// a line ending otherwise is an error, as in PostgreSQL.
type eolType uint8

const (
	eolUnknown eolType = iota
	eolNL
	eolCR
	eolCRNL
)

// copyField is one field of a row read by COPY FROM: its text (valid
// UTF-8, de-escaped), or in binary format its bytes. b points into the
// row's data or the splitter's buffer: valid until the next row is split.
type copyField struct {
	b    []byte
	null bool
}

// binarySignature starts the binary format's header; a flags word and the
// length of a header extension (both 0 when written) follow it.
const binarySignature = "PGCOPY\n\377\r\n\x00"

// copyParser reads the rows of COPY FROM data, one after the other: it
// splits the input into lines, or in binary format into tuples; a
// copySplitter splits the rows into fields. The data ends at EOF or at the
// end-of-data marker \. on a line of its own. In binary format rows are
// tuples of length-prefixed fields after a header, up to a trailer.
type copyParser struct {
	opts *sql.CopyOptions
	// names are the copied columns, in data order.
	names []string
	r     *bufio.Reader
	eol   eolType
	// line is the number of the line being read (1-based; lines quoted
	// inside a CSV field count; tuples in binary format). The row read
	// is raw[start:]: a line without its end of line, or a tuple's fields
	// with their sizes (less the field count); rows are appended to raw,
	// which the caller empties. lineOK is whether the row was read whole:
	// with the line, the CONTEXT of an error.
	line   int64
	raw    []byte
	start  int
	lineOK bool
	// done is set at the end of the data; header once the header line (or
	// the binary header) is consumed.
	done   bool
	header bool
	plain  *[2][256]bool // see plainBytes
}

func newCopyParser(r io.Reader, opts *sql.CopyOptions, names []string) *copyParser {
	return &copyParser{opts: opts, names: names, r: bufio.NewReaderSize(r, 256<<10),
		header: !opts.Header && opts.Format != sql.CopyBinary}
}

func (p *copyParser) csv() bool { return p.opts.Format == sql.CopyCSV }

// readRow appends the next row to raw (see copyParser.raw); it reports
// false at the end of the data. It skips (or with HEADER MATCH checks) the
// header line first.
func (p *copyParser) readRow() (bool, error) {
	if p.opts.Format == sql.CopyBinary {
		return p.readTuple()
	}
	if !p.header {
		p.header = true
		ok, err := p.readLine()
		if err != nil || !ok {
			return false, err
		}
		if p.opts.HeaderMatch {
			if err := p.matchHeader(); err != nil {
				return false, err
			}
		}
		p.raw = p.raw[:p.start]
	}
	return p.readLine()
}

// copySplitter splits rows read by a copyParser into fields, undoing the
// format's quoting and escaping. Each goroutine parsing rows has its own.
type copySplitter struct {
	opts  *sql.CopyOptions
	names []string
	// fields are the fields of the last row split, buf the de-escaped
	// text of those that needed it.
	fields []copyField
	buf    []byte
	null   []byte
}

func newCopySplitter(opts *sql.CopyOptions, names []string) *copySplitter {
	return &copySplitter{opts: opts, names: names, null: []byte(opts.Null)}
}

// row returns the fields of row raw (see copyParser.raw). A row may have
// fewer fields than there are columns: as PostgreSQL, the caller converts
// the fields it has before it reports the first missing one (missing).
// The fields are valid until the next call.
func (s *copySplitter) row(raw []byte) ([]copyField, error) {
	if s.opts.Format == sql.CopyBinary {
		return s.splitBinary(raw), nil
	}
	if err := s.split(raw); err != nil {
		return nil, err
	}
	if len(s.fields) > len(s.names) {
		return nil, pgerr.New(pgerrcode.BadCopyFileFormat, "extra data after last expected column")
	}
	o := s.opts
	if o.ForceNotNull == nil && o.ForceNull == nil {
		return s.fields, nil
	}
	for i := range s.fields {
		f := &s.fields[i]
		switch {
		case f.null && o.ForceNotNull != nil && o.ForceNotNull[i]:
			f.b, f.null = s.null, false
		case !f.null && o.ForceNull != nil && o.ForceNull[i] && string(f.b) == o.Null:
			f.null = true
		}
	}
	return s.fields, nil
}

// missing is the error for a row whose field for column i is missing.
func (s *copySplitter) missing(i int) error {
	return pgerr.New(pgerrcode.BadCopyFileFormat, "missing data for column \"%s\"", s.names[i])
}

// matchHeader checks the header line against the column names (HEADER
// MATCH).
func (p *copyParser) matchHeader() error {
	s := newCopySplitter(p.opts, p.names)
	if err := s.split(p.raw[p.start:]); err != nil {
		return err
	}
	if len(s.fields) != len(p.names) {
		return pgerr.New(pgerrcode.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(s.fields), len(p.names))
	}
	for i, f := range s.fields {
		if f.null {
			return pgerr.New(pgerrcode.BadCopyFileFormat, "column name mismatch in header line field %d: got null value (\"%s\"), expected \"%s\"", i+1, p.opts.Null, p.names[i])
		}
		if string(f.b) != p.names[i] {
			return pgerr.New(pgerrcode.BadCopyFileFormat, "column name mismatch in header line field %d: got \"%s\", expected \"%s\"", i+1, f.b, p.names[i])
		}
	}
	return nil
}

// drain reads and discards what follows the end-of-data marker, as
// PostgreSQL ignores it.
func (p *copyParser) drain() error {
	_, err := io.Copy(io.Discard, p.r)
	return err
}

// where is the CONTEXT of an error met at the current line of the COPY
// into table rel: the line number, and the line once it was read whole
// and is valid text (as PostgreSQL, which leaves out a line it could not
// convert: the error goes to the client, and must be UTF-8 itself).
func (p *copyParser) where(rel string) string {
	if !p.lineOK {
		return fmt.Sprintf("COPY %s, line %d", rel, p.line)
	}
	return rowWhere(rel, p.opts, p.line, p.raw[p.start:])
}

// rowWhere is the CONTEXT of an error met in row raw, read whole at line
// line: the line number, and the line when it is valid text (not in
// binary format).
func rowWhere(rel string, opts *sql.CopyOptions, line int64, raw []byte) string {
	if opts.Format != sql.CopyBinary && checkText(raw) == nil {
		return fmt.Sprintf("COPY %s, line %d: \"%s\"", rel, line, clipText(string(raw)))
	}
	return fmt.Sprintf("COPY %s, line %d", rel, line)
}

// fieldWhere is the CONTEXT of an error converting field f of column col
// in the row at line line.
func fieldWhere(rel string, opts *sql.CopyOptions, line int64, col string, f copyField) string {
	if opts.Format == sql.CopyBinary {
		return fmt.Sprintf("COPY %s, line %d, column %s", rel, line, col)
	}
	return fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", rel, line, col, clipText(string(f.b)))
}

// maxCopyDataDisplay bounds the data an error context shows, as
// PostgreSQL's MAX_COPY_DATA_DISPLAY.
const maxCopyDataDisplay = 100

// clipText shortens s for an error context, on a character boundary.
func clipText(s string) string {
	if len(s) <= maxCopyDataDisplay {
		return s
	}
	n := maxCopyDataDisplay
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// readLine reads the next line into raw; it reports false at the end of
// the data. A line ends at the end of line of the data's style (a newline
// escaped in text format or quoted in CSV is data), at EOF, or at the
// end-of-data marker.
func (p *copyParser) readLine() (bool, error) {
	p.start, p.lineOK = len(p.raw), false
	if p.done {
		return false, nil
	}
	p.line++
	csv := p.csv()
	quote, esc := p.opts.Quote, p.opts.Escape
	inQuote := false
	var plain [2]*[256]bool // the bytes that need no look outside and inside quotes
	plain[0], plain[1] = p.plainBytes()
	for {
		// Copy the run of bytes that need no look at once.
		if n := p.r.Buffered(); n > 0 {
			win, _ := p.r.Peek(n)
			i := 0
			if inQuote && quote == esc {
				// Only the quote ends the run (a quoted embedding is
				// most of a CSV line): found by IndexByte's vector
				// search, and the ends of line in the run counted.
				if i = bytes.IndexByte(win, quote); i < 0 {
					i = len(win)
				}
				eol := byte('\r')
				if p.eol == eolNL {
					eol = '\n'
				}
				p.line += int64(bytes.Count(win[:i], []byte{eol}))
			} else {
				for t := plain[b2i(inQuote)]; i < len(win) && t[win[i]]; i++ {
				}
			}
			p.raw = append(p.raw, win[:i]...)
			p.r.Discard(i)
		}
		c, err := p.r.ReadByte()
		if err == io.EOF {
			p.done, p.lineOK = true, true
			return len(p.raw) > p.start, nil
		}
		if err != nil {
			return false, err
		}
		if inQuote {
			// Only the quote (or an escaped quote or escape) matters
			// inside a quoted CSV field.
			switch {
			case c == esc && esc != quote:
				if next, err := p.r.Peek(1); err == nil && (next[0] == quote || next[0] == esc) {
					p.raw = append(p.raw, c, next[0])
					p.r.Discard(1)
					continue
				}
			case c == quote:
				inQuote = false
			case c == '\n' && p.eol == eolNL || c == '\r' && p.eol != eolNL:
				p.line++
			}
			p.raw = append(p.raw, c)
			continue
		}
		switch {
		case csv && c == quote:
			inQuote = true
		case c == '\r':
			switch p.eol {
			case eolUnknown, eolCRNL:
				if next, err := p.r.Peek(1); err == nil && next[0] == '\n' {
					p.r.Discard(1)
					p.eol = eolCRNL
				} else if p.eol == eolCRNL {
					return false, p.eolError(c)
				} else {
					p.eol = eolCR
				}
			case eolNL:
				return false, p.eolError(c)
			}
			p.lineOK = true
			return true, nil
		case c == '\n':
			if p.eol == eolCR || p.eol == eolCRNL {
				return false, p.eolError(c)
			}
			p.eol = eolNL
			p.lineOK = true
			return true, nil
		case c == '\\' && (!csv || len(p.raw) == p.start):
			end, err := p.endMarker()
			if err != nil {
				return false, err
			}
			if end {
				p.done, p.lineOK = true, true
				return len(p.raw) > p.start, nil
			}
			if !csv {
				// Whatever follows a backslash is data, even an end of
				// line.
				p.raw = append(p.raw, c)
				next, err := p.r.ReadByte()
				if err == io.EOF {
					p.done, p.lineOK = true, true
					return true, nil
				}
				if err != nil {
					return false, err
				}
				c = next
			}
		}
		p.raw = append(p.raw, c)
	}
}

// plainBytes returns the tables of the bytes readLine copies without a
// look: outside quotes and inside (in CSV) quotes.
func (p *copyParser) plainBytes() (out, in *[256]bool) {
	if p.plain == nil {
		p.plain = new([2][256]bool)
		for i := range p.plain {
			for c := range p.plain[i] {
				p.plain[i][c] = c != '\n' && c != '\r'
			}
		}
		o := p.opts
		if p.csv() {
			p.plain[0][o.Quote] = false
			p.plain[0]['\\'] = false // the end-of-data marker at the start of a line
			p.plain[1][o.Quote], p.plain[1][o.Escape] = false, false
		} else {
			p.plain[0]['\\'] = false
		}
	}
	return &p.plain[0], &p.plain[1]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// endMarker reports whether the backslash just read starts the end-of-data
// marker: \. and an end of line of the data's style. It consumes the
// marker. In text format a backslash-period followed by anything else is
// an error; in CSV it is data.
func (p *copyParser) endMarker() (bool, error) {
	b, _ := p.r.Peek(3)
	if len(b) == 0 || b[0] != '.' {
		return false, nil
	}
	at := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	csv := p.csv()
	corrupt := pgerr.New(pgerrcode.BadCopyFileFormat, "end-of-copy marker corrupt")
	mismatch := pgerr.New(pgerrcode.BadCopyFileFormat, "end-of-copy marker does not match previous newline style")
	i := 1
	if p.eol == eolCRNL {
		switch at(i) {
		case '\r':
			i++
		case '\n':
			if csv {
				return false, nil
			}
			return false, mismatch
		default:
			if csv {
				return false, nil
			}
			return false, corrupt
		}
	}
	c := at(i)
	if c != '\r' && c != '\n' {
		if csv {
			return false, nil
		}
		return false, corrupt
	}
	if (p.eol == eolNL || p.eol == eolCRNL) && c != '\n' || p.eol == eolCR && c != '\r' {
		return false, mismatch
	}
	p.r.Discard(i + 1)
	return true, nil
}

// eolError is the error for an end-of-line character c that does not
// match the data's end-of-line style.
func (p *copyParser) eolError(c byte) error {
	what, esc := "newline", `\n`
	if c == '\r' {
		what, esc = "carriage return", `\r`
	}
	if p.csv() {
		return pgerr.New(pgerrcode.BadCopyFileFormat, "unquoted %s found in data", what).
			WithHint("Use quoted CSV field to represent %s.", what)
	}
	return pgerr.New(pgerrcode.BadCopyFileFormat, "literal %s found in data", what).
		WithHint("Use \"%s\" to represent %s.", esc, what)
}

// split splits raw, a line of text or CSV data, into fields. A field
// without escapes (or quotes in CSV) points into raw; the others are
// de-escaped into buf.
func (s *copySplitter) split(raw []byte) error {
	s.fields, s.buf = s.fields[:0], s.buf[:0]
	var spans []int // the fields de-escaped into buf: their index, start and end in buf
	csv := s.opts.Format == sql.CopyCSV
	for i := 0; i <= len(raw); {
		start := i
		var end int
		quoted := false
		var f copyField
		// A field without anything to undo is the raw text itself.
		next := len(raw) + 1
		seg := raw[i:]
		if k := bytes.IndexByte(seg, s.opts.Delimiter); k >= 0 {
			seg, next = seg[:k], i+k+1
		}
		special := byte('\\')
		if csv {
			special = s.opts.Quote
		}
		if bytes.IndexByte(seg, special) < 0 {
			i, end, f.b = next, next-1, seg
		} else if j, ok := s.quotedField(raw, i); ok {
			// A CSV field that is all one quoted part, without escapes.
			f.b, quoted = raw[i+1:j], true
			i, end = j+2, j+1
		} else {
			at := len(s.buf)
			if csv {
				var err error
				if i, end, quoted, err = s.csvField(raw, i); err != nil {
					return err
				}
			} else {
				i, end = s.textField(raw, i)
			}
			spans = append(spans, len(s.fields), at, len(s.buf))
			f.b = s.buf[at:]
		}
		f.null = !quoted && string(raw[start:end]) == s.opts.Null
		if !f.null && !validText(f.b) {
			return checkText(f.b)
		}
		s.fields = append(s.fields, f)
	}
	for k := 0; k < len(spans); k += 3 {
		s.fields[spans[k]].b = s.buf[spans[k+1]:spans[k+2]:spans[k+2]]
	}
	return nil
}

// quotedField reports whether the CSV field of raw starting at i is one
// quoted part without escapes (of the quote or the escape) and returns
// where its closing quote is.
func (s *copySplitter) quotedField(raw []byte, i int) (int, bool) {
	o := s.opts
	if s.opts.Format != sql.CopyCSV || raw[i] != o.Quote {
		return 0, false
	}
	k := bytes.IndexByte(raw[i+1:], o.Quote)
	if k < 0 {
		return 0, false
	}
	j := i + 1 + k
	if j+1 < len(raw) && raw[j+1] != o.Delimiter || o.Escape != o.Quote && bytes.IndexByte(raw[i+1:j], o.Escape) >= 0 {
		return 0, false
	}
	return j, true
}

// validText is a fast check that b is valid UTF-8 without NUL bytes
// (checkText says what is wrong).
func validText(b []byte) bool {
	return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

// textField de-escapes the text-format field of raw starting at i onto
// buf, as CopyReadAttributesText does. It returns where the next field
// starts (past len(raw) after the last field) and where this one's raw
// text ends; that raw text, not the de-escaped value, is compared with the
// NULL string.
func (s *copySplitter) textField(raw []byte, i int) (next, end int) {
	delim := s.opts.Delimiter
	for i < len(raw) {
		c := raw[i]
		i++
		if c == delim {
			return i, i - 1
		}
		if c == '\\' {
			if i >= len(raw) {
				break
			}
			c = raw[i]
			i++
			switch {
			case c >= '0' && c <= '7':
				v := int(c - '0')
				for k := 0; k < 2 && i < len(raw) && raw[i] >= '0' && raw[i] <= '7'; k++ {
					v = v<<3 + int(raw[i]-'0')
					i++
				}
				c = byte(v)
			case c == 'x' && i < len(raw) && isHexDigit(raw[i]):
				v := hexValue(raw[i])
				i++
				if i < len(raw) && isHexDigit(raw[i]) {
					v = v<<4 + hexValue(raw[i])
					i++
				}
				c = v
			default:
				if u := controlFor(c); u != 0 {
					c = u
				}
			}
		}
		s.buf = append(s.buf, c)
	}
	return len(raw) + 1, len(raw)
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// csvField reads the CSV field of raw starting at i onto buf, as
// CopyReadAttributesCSV does: quoted parts lose their quotes and escapes.
// It returns where the next field starts and where this one's raw text
// ends (see textField), and whether it had quotes: only an unquoted field
// matching the NULL string is NULL.
func (s *copySplitter) csvField(raw []byte, i int) (next, end int, quoted bool, err error) {
	delim, quote, esc := s.opts.Delimiter, s.opts.Quote, s.opts.Escape
	inQuote := false
	for i < len(raw) {
		c := raw[i]
		i++
		if !inQuote {
			switch c {
			case delim:
				return i, i - 1, quoted, nil
			case quote:
				inQuote, quoted = true, true
			default:
				s.buf = append(s.buf, c)
			}
			continue
		}
		switch {
		case c == esc && i < len(raw) && (raw[i] == esc || raw[i] == quote):
			s.buf = append(s.buf, raw[i])
			i++
		case c == quote:
			inQuote = false
		default:
			s.buf = append(s.buf, c)
		}
	}
	if inQuote {
		return 0, 0, false, pgerr.New(pgerrcode.BadCopyFileFormat, "unterminated CSV quoted field")
	}
	return len(raw) + 1, len(raw), quoted, nil
}

// readTuple appends the next tuple of binary data to raw, the header
// first, as CopyReadBinaryTupleHeader and CopyReadBinaryAttribute read
// them: its fields with their sizes, less the field count (the number of
// columns). It reports false at the end of the data.
func (p *copyParser) readTuple() (bool, error) {
	p.start = len(p.raw)
	if p.done {
		return false, nil
	}
	if !p.header {
		p.header = true
		if err := p.binaryHeader(); err != nil {
			return false, err
		}
	}
	p.line++
	b, err := p.r.Peek(2)
	switch {
	case len(b) == 0 && err == io.EOF:
		p.done = true // no trailer: the end all the same
		return false, nil
	case len(b) < 2:
		return false, binaryEOF(err)
	}
	count := int16(binary.BigEndian.Uint16(b))
	p.r.Discard(2)
	if count == -1 {
		// The trailer: nothing may follow it.
		p.done = true
		if _, err := p.r.ReadByte(); err == nil {
			return false, pgerr.New(pgerrcode.BadCopyFileFormat, "received copy data after EOF marker")
		} else if err != io.EOF {
			return false, err
		}
		return false, nil
	}
	if int(count) != len(p.names) {
		return false, pgerr.New(pgerrcode.BadCopyFileFormat, "row field count is %d, expected %d", count, len(p.names))
	}
	for range count {
		at := len(p.raw)
		p.raw = append(p.raw, 0, 0, 0, 0)
		if _, err := io.ReadFull(p.r, p.raw[at:]); err != nil {
			return false, binaryEOF(err)
		}
		n := int32(binary.BigEndian.Uint32(p.raw[at:]))
		if n < -1 {
			return false, pgerr.New(pgerrcode.BadCopyFileFormat, "invalid field size")
		}
		if b, _ := p.r.Peek(int(n)); len(b) == int(n) {
			// The usual field, smaller than the buffer.
			p.raw = append(p.raw, b...)
			p.r.Discard(int(n))
		} else if n > 0 {
			at = len(p.raw)
			p.raw = append(p.raw, make([]byte, n)...)
			if _, err := io.ReadFull(p.r, p.raw[at:]); err != nil {
				return false, binaryEOF(err)
			}
		}
	}
	return true, nil
}

// splitBinary splits a tuple that readTuple read (so well formed) into
// its fields.
func (s *copySplitter) splitBinary(raw []byte) []copyField {
	s.fields = s.fields[:0]
	for i := 0; i < len(raw); {
		n := int32(binary.BigEndian.Uint32(raw[i:]))
		i += 4
		if n < 0 {
			s.fields = append(s.fields, copyField{null: true})
			continue
		}
		s.fields = append(s.fields, copyField{b: raw[i : i+int(n) : i+int(n)]})
		i += int(n)
	}
	return s.fields
}

// binaryHeader reads and checks the binary format's header.
func (p *copyParser) binaryHeader() error {
	bad := func(what string) error {
		return pgerr.New(pgerrcode.BadCopyFileFormat, "invalid COPY file header (%s)", what)
	}
	sig := make([]byte, len(binarySignature))
	if _, err := io.ReadFull(p.r, sig); err != nil || string(sig) != binarySignature {
		if isReadError(err) {
			return err
		}
		return pgerr.New(pgerrcode.BadCopyFileFormat, "COPY file signature not recognized")
	}
	var word [4]byte
	if _, err := io.ReadFull(p.r, word[:]); err != nil {
		if isReadError(err) {
			return err
		}
		return bad("missing flags")
	}
	flags := binary.BigEndian.Uint32(word[:])
	if flags&(1<<16) != 0 {
		return bad("WITH OIDS")
	}
	if flags&^(1<<16)>>16 != 0 {
		return pgerr.New(pgerrcode.BadCopyFileFormat, "unrecognized critical flags in COPY file header")
	}
	if _, err := io.ReadFull(p.r, word[:]); err != nil {
		if isReadError(err) {
			return err
		}
		return bad("missing length")
	}
	ext := int64(binary.BigEndian.Uint32(word[:]))
	if n, err := p.r.Discard(int(ext)); int64(n) != ext {
		if isReadError(err) {
			return err
		}
		return bad("wrong length")
	}
	return nil
}

// isReadError reports whether err is a failure of the data's source (the
// client's CopyFail, a lost connection) rather than the data ending.
func isReadError(err error) bool {
	return err != nil && err != io.EOF && err != io.ErrUnexpectedEOF && err != bufio.ErrNegativeCount
}

// binaryEOF is the error for binary data that ends inside a tuple.
func binaryEOF(err error) error {
	if isReadError(err) {
		return err
	}
	return pgerr.New(pgerrcode.BadCopyFileFormat, "unexpected EOF in COPY data")
}

// copyWriter formats the rows of COPY TO, one line (in binary format one
// tuple) each.
type copyWriter struct {
	opts *sql.CopyOptions
	// types are the column types; text the session settings their text
	// output depends on.
	types []types.T
	text  *types.TextOptions
	// single is set when there is one column: CSV then quotes a value \.
	// so that it cannot read back as the end-of-data marker.
	single  bool
	scratch []byte
}

// appendHeader appends the header line: the column names.
func (w *copyWriter) appendHeader(dst []byte, names []string) []byte {
	for i, name := range names {
		if i > 0 {
			dst = append(dst, w.opts.Delimiter)
		}
		dst = w.appendField(dst, []byte(name), false)
	}
	return append(dst, '\n')
}

// appendRow appends row r of arrs, one array per column.
func (w *copyWriter) appendRow(dst []byte, arrs []arrow.Array, r int) ([]byte, error) {
	var err error
	if w.opts.Format == sql.CopyBinary {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(arrs)))
		for j, arr := range arrs {
			if isNullAt(arr, r) {
				dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32) // -1: NULL
				continue
			}
			at := len(dst)
			if dst, err = appendBinaryAt(append(dst, 0, 0, 0, 0), arr, r, w.types[j]); err != nil {
				return dst, err
			}
			binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		}
		return dst, nil
	}
	for j, arr := range arrs {
		if j > 0 {
			dst = append(dst, w.opts.Delimiter)
		}
		if isNullAt(arr, r) {
			dst = append(dst, w.opts.Null...)
			continue
		}
		if w.scratch, err = appendTextAt(w.scratch[:0], arr, r, w.types[j], w.text); err != nil {
			return dst, err
		}
		dst = w.appendField(dst, w.scratch, w.opts.ForceQuote != nil && w.opts.ForceQuote[j])
	}
	return append(dst, '\n'), nil
}

// appendField appends the non-NULL field s: in CSV quoted when forceQuote
// is set or the value needs it (it holds the delimiter, the quote or an
// end of line, or equals the NULL string), in text format with its
// special characters backslash-escaped.
func (w *copyWriter) appendField(dst, s []byte, forceQuote bool) []byte {
	o := w.opts
	if o.Format == sql.CopyCSV {
		quote := forceQuote || string(s) == o.Null || w.single && string(s) == `\.`
		for i := 0; i < len(s) && !quote; i++ {
			c := s[i]
			quote = c == o.Delimiter || c == o.Quote || c == '\n' || c == '\r'
		}
		if !quote {
			return append(dst, s...)
		}
		dst = append(dst, o.Quote)
		for _, c := range s {
			if c == o.Quote || c == o.Escape {
				dst = append(dst, o.Escape)
			}
			dst = append(dst, c)
		}
		return append(dst, o.Quote)
	}
	for _, c := range s {
		switch {
		case c < 0x20:
			if e := controlEscape(c); e != 0 {
				dst = append(dst, '\\', e)
			} else if c == o.Delimiter {
				dst = append(dst, '\\', c)
			} else {
				dst = append(dst, c)
			}
		case c == '\\' || c == o.Delimiter:
			dst = append(dst, '\\', c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// controlEscapes pairs the letters of the text format's escapes for
// control characters with the characters: \b \f \n \r \t \v.
const controlEscapes = "b\bf\fn\nr\rt\tv\v"

// controlEscape is the letter of the escape for control character c, 0
// when it has none.
func controlEscape(c byte) byte {
	for i := 0; i < len(controlEscapes); i += 2 {
		if controlEscapes[i+1] == c {
			return controlEscapes[i]
		}
	}
	return 0
}

// controlFor is the control character the escape letter stands for, 0
// when it is no such letter.
func controlFor(letter byte) byte {
	for i := 0; i < len(controlEscapes); i += 2 {
		if controlEscapes[i] == letter {
			return controlEscapes[i+1]
		}
	}
	return 0
}
