package exec

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func textOptions() *sql.CopyOptions {
	return &sql.CopyOptions{Format: sql.CopyText, Delimiter: '\t', Null: `\N`}
}

func csvOptions() *sql.CopyOptions {
	return &sql.CopyOptions{Format: sql.CopyCSV, Delimiter: ',', Null: "", Quote: '"', Escape: '"'}
}

// null marks a NULL field in the expected rows of parseAll.
const null = "<NULL>"

// parseAll reads every row of data for columns a, b, ... (ncols of them)
// and returns the fields (null for NULL), or the first error.
func parseAll(opts *sql.CopyOptions, ncols int, data string) ([][]string, error) {
	names := make([]string, ncols)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	// A reader that returns one byte at a time finds bugs at buffer
	// boundaries.
	p := newCopyParser(io.LimitReader(&oneByteReader{s: data}, int64(len(data))), opts, names)
	s := newCopySplitter(opts, names)
	var rows [][]string
	for {
		fields, err := nextFields(p, s)
		if err == io.EOF {
			return rows, p.drain()
		}
		if err != nil {
			return rows, err
		}
		if len(fields) < ncols {
			return rows, s.missing(len(fields))
		}
		var row []string
		for _, f := range fields {
			if f.null {
				row = append(row, null)
			} else {
				row = append(row, string(f.b))
			}
		}
		rows = append(rows, row)
	}
}

// nextFields reads the next row of p and splits it with s, as COPY FROM's
// pipeline does; io.EOF after the last.
func nextFields(p *copyParser, s *copySplitter) ([]copyField, error) {
	p.raw = p.raw[:0]
	ok, err := p.readRow()
	if err == nil && !ok {
		err = io.EOF
	}
	if err != nil {
		return nil, err
	}
	return s.row(p.raw[p.start:])
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

func TestCopyParseText(t *testing.T) {
	for _, c := range []struct {
		name, data string
		ncols      int
		want       [][]string
	}{
		{"plain", "1\tx\n2\ty\n", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"no final newline", "1\tx\n2\ty", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"null", "\\N\t\\\\N\n", 2, [][]string{{null, `\N`}}},
		{"empty is not null", "\t\n", 2, [][]string{{"", ""}}},
		{"escapes", `a\tb\nc\\d\re\bf\fg\vh\qi\,j` + "\n", 1, [][]string{{"a\tb\nc\\d\re\bf\fg\vh" + "qi,j"}}},
		{"octal and hex", `\101\0101\18\x41\x4g\x` + "\n", 1, [][]string{{"A\b1\x018A\x04gx"}}},
		{"escaped delimiter", "a\\\tb\tc\n", 2, [][]string{{"a\tb", "c"}}},
		{"escaped newline is data", "a\\\nb\n", 1, [][]string{{"a\nb"}}},
		{"crlf", "1\tx\r\n2\ty\r\n", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"cr", "1\tx\r2\ty\r", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"end marker", "1\tx\n\\.\nignored\tdata\n", 2, [][]string{{"1", "x"}}},
		{"end marker crlf", "1\tx\r\n\\.\r\n", 2, [][]string{{"1", "x"}}},
		{"end marker ends a line", "1\tx\\.\n", 2, [][]string{{"1", "x"}}},
		{"empty", "", 1, nil},
		{"backslash at the end", "a\\", 1, [][]string{{"a"}}},
		{"empty line", "\n", 1, [][]string{{""}}},
		{"utf8", "héllo\t日本\n", 2, [][]string{{"héllo", "日本"}}},
	} {
		got, err := parseAll(textOptions(), c.ncols, c.data)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	opts := textOptions()
	opts.Delimiter, opts.Null = '|', "NULL"
	got, err := parseAll(opts, 3, "NULL|a\\|b|\\N\n")
	if want := [][]string{{null, "a|b", "N"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("delimiter |, null NULL: got %q, %v", got, err)
	}
}

func TestCopyParseCSV(t *testing.T) {
	for _, c := range []struct {
		name, data string
		ncols      int
		want       [][]string
	}{
		{"plain", "1,x\n2,y\n", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"quoted", `"a,b","c""d",""` + "\n", 3, [][]string{{"a,b", `c"d`, ""}}},
		{"null is unquoted empty", `,"",x` + "\n", 3, [][]string{{null, "", "x"}}},
		{"quoted newline", "\"a\nb\",1\n2,\"c\r\nd\"\n", 2, [][]string{{"a\nb", "1"}, {"2", "c\r\nd"}}},
		{"partly quoted", `ab"c,d"e` + "\n", 1, [][]string{{"abc,de"}}},
		{"spaces kept", " a , b \n", 2, [][]string{{" a ", " b "}}},
		{"backslash is data", `a\.,\N` + "\n", 2, [][]string{{`a\.`, `\N`}}},
		{"end marker", "1\n\\.\n2\n", 1, [][]string{{"1"}}},
		{"quoted end marker is data", "\"\\.\"\n", 1, [][]string{{`\.`}}},
		{"end marker not alone", "\\.x\n", 1, [][]string{{`\.x`}}},
		{"crlf", "1,x\r\n2,y\r\n", 2, [][]string{{"1", "x"}, {"2", "y"}}},
		{"empty line one column", "\n", 1, [][]string{{null}}},
	} {
		got, err := parseAll(csvOptions(), c.ncols, c.data)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	opts := csvOptions()
	opts.Quote, opts.Escape, opts.Null = '\'', '\\', "NA"
	got, err := parseAll(opts, 3, `'it\'s','a\\b\c',NA`+"\n")
	if want := [][]string{{"it's", `a\b\c`, null}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("quote ', escape \\: got %q, %v", got, err)
	}
	opts = csvOptions()
	opts.ForceNotNull, opts.ForceNull = []bool{true, false}, []bool{false, true}
	got, err = parseAll(opts, 2, `,""`+"\n")
	if want := [][]string{{"", null}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("FORCE_NOT_NULL, FORCE_NULL: got %q, %v", got, err)
	}
}

func TestCopyParseHeader(t *testing.T) {
	opts := csvOptions()
	opts.Header = true
	got, err := parseAll(opts, 2, "x,y\n1,2\n")
	if want := [][]string{{"1", "2"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("header: got %q, %v", got, err)
	}
	opts.HeaderMatch = true
	if got, err := parseAll(opts, 2, "a,b\n1,2\n"); err != nil || len(got) != 1 {
		t.Errorf("header match: got %q, %v", got, err)
	}
	for data, msg := range map[string]string{
		"a,c\n":   `column name mismatch in header line field 2: got "c", expected "b"`,
		"a\n":     "wrong number of fields in header line: got 1, expected 2",
		",b\n":    `column name mismatch in header line field 1: got null value (""), expected "a"`,
		"a,b,c\n": "wrong number of fields in header line: got 3, expected 2",
	} {
		if _, err := parseAll(opts, 2, data); err == nil || err.Error() != msg {
			t.Errorf("header match of %q: %v, want %s", data, err, msg)
		}
	}
}

func TestCopyParseErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		opts *sql.CopyOptions
		data string
		// msg is the error; where its CONTEXT for a table t.
		msg, where string
	}{
		{"extra", textOptions(), "1\t2\t3\n", "extra data after last expected column", `COPY t, line 1: "1	2	3"`},
		{"missing", textOptions(), "1\t2\n3\n", `missing data for column "b"`, `COPY t, line 2: "3"`},
		{"missing csv", csvOptions(), "1\n", `missing data for column "b"`, `COPY t, line 1: "1"`},
		{"newline after crlf", textOptions(), "1\t2\r\n3\t4\n", "literal newline found in data", "COPY t, line 2"},
		{"cr after nl", textOptions(), "1\t2\n3\t4\r\n", "literal carriage return found in data", "COPY t, line 2"},
		{"csv cr after nl", csvOptions(), "1,2\n3,4\r", "unquoted carriage return found in data", "COPY t, line 2"},
		// Newlines quoted in the first line do not count: its end of line
		// is not known yet.
		{"unterminated quote", csvOptions(), "1,\"2\n3,4\n", "unterminated CSV quoted field", "COPY t, line 1: \"1,\"2\n3,4\n\""},
		{"unterminated quote line 3", csvOptions(), "0,1\n1,\"2\n3,4", "unterminated CSV quoted field", "COPY t, line 3: \"1,\"2\n3,4\""},
		{"after quoted newlines", csvOptions(), "0,1\n\"a\nb\nc\",2\nx\n", `missing data for column "b"`, `COPY t, line 5: "x"`},
		{"after quoted crlf", csvOptions(), "0,1\r\n\"a\r\nb\",2\r\nx\r\n", `missing data for column "b"`, `COPY t, line 4: "x"`},
		{"corrupt end marker", textOptions(), "1\t2\n\\.x\n", "end-of-copy marker corrupt", "COPY t, line 2"},
		{"end marker newline style", textOptions(), "1\t2\r\n\\.\n", "end-of-copy marker does not match previous newline style", "COPY t, line 2"},
		// The line is not quoted back: it is not valid text itself.
		{"bad utf8", textOptions(), "\xff\t1\n", `invalid byte sequence for encoding "UTF8": 0xff`, "COPY t, line 1"},
		{"escaped bad utf8", textOptions(), "\\377\t1\n", `invalid byte sequence for encoding "UTF8": 0xff`, `COPY t, line 1: "\377	1"`},
		{"nul", textOptions(), "a\\0\t1\n", `invalid byte sequence for encoding "UTF8": 0x00`, `COPY t, line 1: "a\0	1"`},
		{"long line", textOptions(), strings.Repeat("é", 60) + "\t1\t2\n", "extra data after last expected column",
			`COPY t, line 1: "` + strings.Repeat("é", 50) + `..."`},
	} {
		p := newCopyParser(strings.NewReader(c.data), c.opts, []string{"a", "b"})
		s := newCopySplitter(c.opts, []string{"a", "b"})
		var err error
		for err == nil {
			var fields []copyField
			if fields, err = nextFields(p, s); err == nil && len(fields) < 2 {
				err = s.missing(len(fields))
			}
		}
		pe, ok := err.(*pgerr.Error)
		if !ok || pe.Code != "22P04" && pe.Code != "22021" || pe.Message != c.msg {
			t.Errorf("%s: %v, want %s", c.name, err, c.msg)
			continue
		}
		if where := p.where("t"); where != c.where {
			t.Errorf("%s: context %q, want %q", c.name, where, c.where)
		}
	}
}

func TestCopyWrite(t *testing.T) {
	text := &copyWriter{opts: textOptions()}
	line := text.appendField(nil, []byte("a\tb\nc\\d\re\x01f\bg\fh\vi"), false)
	if got, want := string(line), `a\tb\nc\\d\re`+"\x01"+`f\bg\fh\vi`; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
	if got := string(text.appendHeader(nil, []string{"a\tb", "c"})); got != "a\\tb\tc\n" {
		t.Errorf("text header: %q", got)
	}
	opts := textOptions()
	opts.Delimiter = '|'
	if got := string((&copyWriter{opts: opts}).appendField(nil, []byte("a|b\tc"), false)); got != `a\|b\tc` {
		t.Errorf("text delimiter |: %q", got)
	}

	csv := &copyWriter{opts: csvOptions()}
	for in, want := range map[string]string{
		"plain":   "plain",
		"a,b":     `"a,b"`,
		`say "x"`: `"say ""x"""`,
		"a\nb":    "\"a\nb\"",
		"a\rb":    "\"a\rb\"",
		"":        `""`,
		`\.`:      `\.`,
		" sp ":    " sp ",
	} {
		if got := string(csv.appendField(nil, []byte(in), false)); got != want {
			t.Errorf("csv %q: got %q, want %q", in, got, want)
		}
	}
	if got := string(csv.appendField(nil, []byte("x"), true)); got != `"x"` {
		t.Errorf("csv force quote: %q", got)
	}
	single := &copyWriter{opts: csvOptions(), single: true}
	if got := string(single.appendField(nil, []byte(`\.`), false)); got != `"\."` {
		t.Errorf("csv lone \\. in one column: %q", got)
	}
	opts = csvOptions()
	opts.Quote, opts.Escape = '\'', '\\'
	if got := string((&copyWriter{opts: opts}).appendField(nil, []byte(`it's \ "q"`), false)); got != `'it\'s \\ "q"'` {
		t.Errorf("csv quote ', escape \\: %q", got)
	}
}

// TestCopyRoundTrip writes random values in each format and reads them
// back.
func TestCopyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", ",", "\t", "\n", "\r", "\\", `"`, "'", ".", "N", " ", "é", "|", "\x01"}
	for _, opts := range []*sql.CopyOptions{textOptions(), csvOptions(),
		{Format: sql.CopyCSV, Delimiter: '|', Null: `\N`, Quote: '\'', Escape: '\\'}} {
		for _, ncols := range []int{1, 3} {
			w := &copyWriter{opts: opts, single: ncols == 1}
			var data []byte
			var want [][]string
			for r := 0; r < 200; r++ {
				var row []string
				for c := 0; c < ncols; c++ {
					if c > 0 {
						data = append(data, opts.Delimiter)
					}
					if rng.Intn(5) == 0 {
						row = append(row, null)
						data = append(data, opts.Null...)
						continue
					}
					var b strings.Builder
					for n := rng.Intn(6); n > 0; n-- {
						b.WriteString(alphabet[rng.Intn(len(alphabet))])
					}
					row = append(row, b.String())
					data = w.appendField(data, []byte(b.String()), false)
				}
				want = append(want, row)
				data = append(data, '\n')
			}
			got, err := parseAll(opts, ncols, string(data))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("format %d, %d columns: %v\ngot  %q\nwant %q\ndata %q", opts.Format, ncols, err, got, want, data)
			}
		}
	}
}

// TestCopyWriteRows formats Arrow rows (NULLs, an untyped NULL column,
// an embedding) in each format.
func TestCopyWriteRows(t *testing.T) {
	mem := memory.DefaultAllocator
	ints := array.NewInt32Builder(mem)
	ints.AppendValues([]int32{1, 0}, []bool{true, false})
	strs := array.NewStringBuilder(mem)
	strs.AppendValues([]string{"a,b", "x\ty"}, nil)
	emb := types.NewBuilder(mem, types.ArrayOf(types.Float4T, 1))
	if err := types.AppendValue(emb, types.NewArray(types.Float4T, 0.5, -1.0), types.ArrayOf(types.Float4T, 1)); err != nil {
		t.Fatal(err)
	}
	emb.AppendNull()
	arrs := []arrow.Array{ints.NewArray(), strs.NewArray(), emb.NewArray(), array.NewNull(2)}
	defer releaseAll(arrs)
	colTypes := []types.T{types.Int4T, types.TextT, types.ArrayOf(types.Float4T, 1), types.TextT}
	for _, c := range []struct {
		opts *sql.CopyOptions
		want []string
	}{
		{textOptions(), []string{"1\ta,b\t{0.5,-1}\t\\N\n", "\\N\tx\\ty\t\\N\t\\N\n"}},
		{csvOptions(), []string{"1,\"a,b\",\"{0.5,-1}\",\n", ",x\ty,,\n"}},
	} {
		w := &copyWriter{opts: c.opts, types: colTypes}
		for r, want := range c.want {
			got, err := w.appendRow(nil, arrs, r)
			if err != nil || string(got) != want {
				t.Errorf("format %d row %d: got %q, %v; want %q", c.opts.Format, r, got, err, want)
			}
		}
	}
	w := &copyWriter{opts: &sql.CopyOptions{Format: sql.CopyBinary}, types: colTypes}
	got, err := w.appendRow(nil, arrs, 1)
	want := "\x00\x04" + "\xff\xff\xff\xff" + "\x00\x00\x00\x03x\ty" + "\xff\xff\xff\xff" + "\xff\xff\xff\xff"
	if err != nil || string(got) != want {
		t.Errorf("binary: got %q, %v; want %q", got, err, want)
	}
}

// binaryData is binary COPY data: the header, the tuples (nil fields are
// NULL) and the trailer.
func binaryData(tuples ...[][]byte) string {
	b := []byte(binarySignature)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, tup := range tuples {
		b = binary.BigEndian.AppendUint16(b, uint16(len(tup)))
		for _, f := range tup {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return string(binary.BigEndian.AppendUint16(b, math.MaxUint16))
}

func TestCopyParseBinary(t *testing.T) {
	opts := &sql.CopyOptions{Format: sql.CopyBinary}
	data := binaryData([][]byte{[]byte("ab"), nil}, [][]byte{{}, []byte("\x00\x01")})
	got, err := parseAll(opts, 2, data)
	if want := [][]string{{"ab", null}, {"", "\x00\x01"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("binary: got %q, %v", got, err)
	}
	p := newCopyParser(strings.NewReader(data), opts, []string{"a", "b"})
	s := newCopySplitter(opts, []string{"a", "b"})
	var raws [][]byte
	for {
		fields, err := nextFields(p, s)
		if err != nil {
			break
		}
		for _, f := range fields {
			if f.null {
				raws = append(raws, nil)
			} else {
				raws = append(raws, append([]byte{}, f.b...))
			}
		}
	}
	if want := [][]byte{[]byte("ab"), nil, {}, {0, 1}}; !reflect.DeepEqual(raws, want) {
		t.Errorf("binary fields: %q", raws)
	}
	header := data[:len(binarySignature)+8]
	for name, c := range map[string]struct{ data, msg string }{
		"signature":    {"PGCOPY\n\377\r\n\x01" + data[len(binarySignature):], "COPY file signature not recognized"},
		"no flags":     {binarySignature + "\x00\x00", "invalid COPY file header (missing flags)"},
		"oids":         {binarySignature + "\x00\x01\x00\x00" + data[len(binarySignature)+4:], "invalid COPY file header (WITH OIDS)"},
		"critical":     {binarySignature + "\x00\x02\x00\x00" + data[len(binarySignature)+4:], "unrecognized critical flags in COPY file header"},
		"extension":    {binarySignature + "\x00\x00\x00\x00\x00\x00\x00\x09abc", "invalid COPY file header (wrong length)"},
		"field count":  {binaryData([][]byte{[]byte("a")}), "row field count is 1, expected 2"},
		"truncated":    {header + "\x00\x02\x00\x00\x00\x05ab", "unexpected EOF in COPY data"},
		"field size":   {header + "\x00\x02\xff\xff\xff\xfe", "invalid field size"},
		"after":        {data + "x", "received copy data after EOF marker"},
		"half a count": {header + "\x00", "unexpected EOF in COPY data"},
	} {
		if _, err := parseAll(opts, 2, c.data); err == nil || err.Error() != c.msg {
			t.Errorf("%s: %v, want %s", name, err, c.msg)
		}
	}
	// No trailer: the data ends all the same.
	if got, err := parseAll(opts, 1, header); err != nil || got != nil {
		t.Errorf("header only: %q, %v", got, err)
	}
}

// TestCopyParseStopsAtEveryOffset reads long unquoted runs (looked at
// eight bytes at a time) with a byte that ends the run at every offset
// within and across those words: an escape and an end-of-data marker in
// text, a quote and a backslash in CSV, CRLF ends of line.
func TestCopyParseStopsAtEveryOffset(t *testing.T) {
	for off := range 24 {
		pad := strings.Repeat("a", off)
		for _, c := range []struct {
			name string
			opts *sql.CopyOptions
			data string
			want [][]string
		}{
			{"text escape", textOptions(), pad + `\t` + pad + "b\t" + pad + "\n",
				[][]string{{pad + "\t" + pad + "b", pad}}},
			{"text crlf", textOptions(), pad + "\t1\r\n" + pad + "\t2\r\n\\.\r\n",
				[][]string{{pad, "1"}, {pad, "2"}}},
			{"csv quote", csvOptions(), pad + `,"` + pad + `,x"` + "\n" + pad + `\` + pad + ",2\n",
				[][]string{{pad, pad + ",x"}, {pad + `\` + pad, "2"}}},
		} {
			p := newCopyParser(strings.NewReader(c.data), c.opts, []string{"a", "b"})
			s := newCopySplitter(c.opts, []string{"a", "b"})
			var got [][]string
			for {
				fields, err := nextFields(p, s)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s at %d: %v", c.name, off, err)
				}
				var row []string
				for _, f := range fields {
					row = append(row, string(f.b))
				}
				got = append(got, row)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%s at %d: %q, want %q", c.name, off, got, c.want)
			}
		}
	}
}

// BenchmarkCopyParseText parses COPY text data of agent-memory-like rows
// (an id, a sentence, a JSON object), the path every COPY FROM row takes.
func BenchmarkCopyParseText(b *testing.B) {
	var data strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&data, "%d\tthe agent remembered that the deploy of service %d failed with an out-of-memory error — retry later\t{\"repo\": \"api\", \"step\": %d}\n", i, i, i)
	}
	text := data.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		p := newCopyParser(strings.NewReader(text), textOptions(), []string{"id", "note", "meta"})
		s := newCopySplitter(textOptions(), []string{"id", "note", "meta"})
		for {
			if _, err := nextFields(p, s); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// BenchmarkCopyParseEmbeddings parses CSV and text as psql sends
// cairn-bench's agent memories: an id, a sentence, a JSON object (quoted,
// with doubled quotes, in CSV) and a 384-d embedding (quoted in CSV), the
// embedding most of each line.
func BenchmarkCopyParseEmbeddings(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	var csvData, textData strings.Builder
	for i := range 2000 {
		var e strings.Builder
		e.WriteByte('{')
		for d := range 384 {
			if d > 0 {
				e.WriteByte(',')
			}
			e.WriteString(strconv.FormatFloat(rng.NormFloat64()*0.05, 'g', -1, 32))
		}
		e.WriteByte('}')
		fmt.Fprintf(&csvData, "%d,the agent remembered that deploy %d failed,\"{\"\"repo\"\": \"\"api\"\", \"\"step\"\": %d}\",\"%s\"\n", i, i, i, e.String())
		fmt.Fprintf(&textData, "%d\tthe agent remembered that deploy %d failed\t{\"repo\": \"api\", \"step\": %d}\t%s\n", i, i, i, e.String())
	}
	names := []string{"id", "note", "meta", "embedding"}
	for _, c := range []struct {
		name string
		opts func() *sql.CopyOptions
		data string
	}{{"csv", csvOptions, csvData.String()}, {"text", textOptions, textData.String()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				p := newCopyParser(strings.NewReader(c.data), c.opts(), names)
				s := newCopySplitter(c.opts(), names)
				for {
					if _, err := nextFields(p, s); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
		})
	}
}
