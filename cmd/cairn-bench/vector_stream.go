package main

// The streamed dataset of the --vector-index mode, for sizes whose vectors
// do not fit the client's memory beside the server's (10M x 384 is 15 GB
// of float32s): the rows are generated in chunks, in parallel, each chunk
// from its own seed (so the dataset does not depend on the number of
// workers), and written in order to a file of compact rows while the exact
// top-10 of every query, and of its filtered variant, are kept up to date
// from each chunk. The server then loads the file as binary COPY data
// converted on the fly (a byte shuffle per row): the COPY measures the
// server, not the generator. A compact row is the id and the tag (int32),
// the vector (dim float32s) and the text (uint16 length, bytes), little
// endian; the file is half the size of the COPY data, whose arrays give
// every element its own length word.

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// viStreamRows is the most rows the mode keeps in memory; a larger
// dataset is streamed (and measured on cairn alone: pgvector would take
// hours to index it on this machine).
const viStreamRows = 2_000_000

// viChunkRows is the rows of one generated chunk.
const viChunkRows = 1 << 16

// viChunk is one generated chunk: its compact rows and the best rows it
// holds for each query.
type viChunk struct {
	rows     []byte
	top      []viTop // per query
	filtered []viTop // per query, among the rows with the query's tag
}

// viTop is a top-k list: scores best first and the ids holding them.
type viTop struct {
	scores []float64
	ids    []int64
}

// offer adds a candidate, keeping the k best (ties in the order offered).
func (t *viTop) offer(k int, score float64, id int64) {
	if len(t.scores) == k && score <= t.scores[k-1] {
		return
	}
	j := sort.Search(len(t.scores), func(j int) bool { return t.scores[j] < score })
	if len(t.scores) < k {
		t.scores, t.ids = append(t.scores, 0), append(t.ids, 0)
	}
	copy(t.scores[j+1:], t.scores[j:])
	copy(t.ids[j+1:], t.ids[j:])
	t.scores[j], t.ids[j] = score, id
}

// merge offers every candidate of o (a later chunk's: its ties rank after).
func (t *viTop) merge(k int, o viTop) {
	for i, s := range o.scores {
		t.offer(k, s, o.ids[i])
	}
}

// stream generates rows rows: written as compact rows to path unless path
// is "", and the exact answers of qs set from them.
func (d *viData) stream(rows int, qs []viQuery, path string) error {
	var w *bufio.Writer
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = bufio.NewWriterSize(f, 1<<20)
	}
	qq := make([]float64, len(qs))
	for i := range qs {
		qq[i] = vecmath.SqNorm(qs[i].vec)
	}
	chunks := (rows + viChunkRows - 1) / viChunkRows
	// Workers generate chunks in any order; the results are taken in
	// order, at most a few chunks ahead of the writer.
	results := make([]chan *viChunk, chunks)
	for c := range results {
		results[c] = make(chan *viChunk, 1)
	}
	ahead := make(chan struct{}, runtime.NumCPU()+1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				results[c] <- d.chunk(c, min(viChunkRows, rows-c*viChunkRows), qs, qq, w != nil)
			}
		}()
	}
	go func() {
		for c := range chunks {
			ahead <- struct{}{}
			next <- c
		}
		close(next)
	}()
	tops, filtered := make([]viTop, len(qs)), make([]viTop, len(qs))
	var werr error
	for c := range chunks {
		ch := <-results[c]
		<-ahead
		for i := range qs {
			tops[i].merge(topK, ch.top[i])
			filtered[i].merge(topK, ch.filtered[i])
		}
		if w != nil && werr == nil {
			_, werr = w.Write(ch.rows)
		}
	}
	wg.Wait()
	for i := range qs {
		qs[i].exact, qs[i].exactFiltered = tops[i].ids, filtered[i].ids
	}
	if w == nil {
		return nil
	}
	if werr != nil {
		return werr
	}
	return w.Flush()
}

// chunk generates chunk c of n rows from its own seed: their compact rows
// (when encode is set) and each query's best rows among them.
func (d *viData) chunk(c, n int, qs []viQuery, qq []float64, encode bool) *viChunk {
	rng := rand.New(rand.NewSource(datasetSeed + 1 + int64(c)))
	zipf := rand.NewZipf(rng, 1.1, 1, viVocabulary-1)
	out := &viChunk{top: make([]viTop, len(qs)), filtered: make([]viTop, len(qs))}
	dim := d.ref.dim
	if encode {
		out.rows = make([]byte, 0, n*(8+4*dim+2+viTextWords*6))
	}
	words := make([]string, viTextWords)
	for r := range n {
		id := int64(c*viChunkRows + r + 1)
		tag := int32(rng.Intn(d.ntags))
		vec := d.draw(rng)
		for w := range words {
			words[w] = viWord(int(zipf.Uint64()))
		}
		if encode {
			out.rows = appendCompactRow(out.rows, int32(id), tag, vec, strings.Join(words, " "))
		}
		for i := range qs {
			dot, vv := vecmath.DotNorm(vec, qs[i].vec, nil)
			score := dot / math.Sqrt(vv*qq[i])
			out.top[i].offer(topK, score, id)
			if tag == qs[i].tag {
				out.filtered[i].offer(topK, score, id)
			}
		}
	}
	return out
}

// appendCompactRow appends one compact row.
func appendCompactRow(b []byte, id, tag int32, vec []float32, text string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(id))
	b = binary.LittleEndian.AppendUint32(b, uint32(tag))
	for _, x := range vec {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(text)))
	return append(b, text...)
}

// copyRows converts the compact rows of r, of dim-dimensional vectors, to
// binary COPY data for (int4, int4, float4[], text) on w, and returns how
// many rows it wrote.
func copyRows(w *bufio.Writer, r *bufio.Reader, dim int) (int64, error) {
	w.WriteString("PGCOPY\n\xff\r\n\x00")
	w.Write(make([]byte, 8)) // flags, header extension length
	row := make([]byte, 8+4*dim+2)
	var out []byte
	n := int64(0)
	for {
		if _, err := io.ReadFull(r, row); err == io.EOF {
			break
		} else if err != nil {
			return n, err
		}
		text := make([]byte, binary.LittleEndian.Uint16(row[8+4*dim:]))
		if _, err := io.ReadFull(r, text); err != nil {
			return n, err
		}
		out = binary.BigEndian.AppendUint16(out[:0], 4)
		for _, x := range []uint32{4, binary.LittleEndian.Uint32(row), 4, binary.LittleEndian.Uint32(row[4:])} {
			out = binary.BigEndian.AppendUint32(out, x)
		}
		// The array: dimensions, has-nulls flag, element type (float4,
		// oid 700), the dimension's length and lower bound, then each
		// element with its length.
		out = binary.BigEndian.AppendUint32(out, uint32(20+8*dim))
		for _, x := range []uint32{1, 0, 700, uint32(dim), 1} {
			out = binary.BigEndian.AppendUint32(out, x)
		}
		for i := range dim {
			out = binary.BigEndian.AppendUint32(out, 4)
			out = binary.BigEndian.AppendUint32(out, binary.LittleEndian.Uint32(row[8+4*i:]))
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(text)))
		out = append(out, text...)
		if _, err := w.Write(out); err != nil {
			return n, err
		}
		n++
	}
	w.Write([]byte{0xff, 0xff}) // the trailer: a field count of -1
	return n, w.Flush()
}

// loadFile (re)creates the table and loads a file of compact rows written
// by stream into it, returning how long the COPY took.
func (s *viSystem) loadFile(ctx context.Context, path string, rows, dim int) (time.Duration, error) {
	for _, stmt := range []string{"DROP TABLE IF EXISTS " + viTable, s.createTable} {
		if _, err := s.conn.Exec(ctx, stmt); err != nil {
			return 0, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	converted := make(chan error, 1)
	go func() {
		_, err := copyRows(bufio.NewWriterSize(pw, 1<<20), bufio.NewReaderSize(f, 1<<20), dim)
		pw.CloseWithError(err)
		converted <- err
	}()
	start := time.Now()
	tag, err := s.conn.PgConn().CopyFrom(ctx, pr,
		"COPY "+viTable+" ("+strings.Join(s.columns, ", ")+") FROM STDIN (FORMAT binary)")
	pr.Close()
	if cerr := <-converted; err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: COPY: %w", s.name, err)
	}
	if tag.RowsAffected() != int64(rows) {
		return 0, fmt.Errorf("%s: COPY loaded %d rows of %d", s.name, tag.RowsAffected(), rows)
	}
	return time.Since(start), nil
}
