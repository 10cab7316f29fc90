package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/sql/types"
)

// ingestBenchRows are the agent-memory rows the insert benchmarks load
// per operation: a six-word task, a small JSON object and a 384-d
// embedding.
const ingestBenchRows = 2000

// ingestBenchRow is one generated row.
type ingestBenchRow struct {
	task, meta string
	emb        []float32
}

// ingestBenchData generates n rows from a fixed seed.
func ingestBenchData(n int) []ingestBenchRow {
	rng := rand.New(rand.NewSource(1))
	words := strings.Fields("fix crash oom memory leak timeout retry parquet csv etl pipeline deadlock race")
	rows := make([]ingestBenchRow, n)
	for i := range rows {
		var task []string
		for range 6 {
			task = append(task, words[rng.Intn(len(words))])
		}
		emb := make([]float32, 384)
		for k := range emb {
			emb[k] = float32(rng.NormFloat64() * 0.05)
		}
		rows[i] = ingestBenchRow{strings.Join(task, " "), fmt.Sprintf(`{"repo": "r%d", "memory_type": "episodic"}`, i%5), emb}
	}
	return rows
}

// BenchmarkIngest times loading agent-memory rows into a table with a
// bigserial primary key over real sockets, ingestBenchRows rows per
// operation (http-ingest-10k: five times as many), committed: a pgx
// batch of multi-row INSERTs with binary parameters (4 statements of 500
// rows, one Sync: one transaction), the HTTP /ingest endpoint (one
// columnar JSON body) and /query/batch (one INSERT per parameter list,
// one transaction).
func BenchmarkIngest(b *testing.B) {
	rows := ingestBenchData(ingestBenchRows)
	ctx := context.Background()
	const table = "CREATE TABLE m (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding real[])"

	b.Run("pgx-batch", func(b *testing.B) {
		ts := startServer(b)
		host, port, _ := net.SplitHostPort(ts.addr)
		conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://bench@%s:%s/bench?sslmode=disable", host, port))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, table); err != nil {
			b.Fatal(err)
		}
		const perStmt = 500
		var sb strings.Builder
		sb.WriteString("INSERT INTO m (task, metadata, embedding) VALUES ")
		for i := 0; i < perStmt; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "($%d, $%d::jsonb, $%d)", 3*i+1, 3*i+2, 3*i+3)
		}
		insert := sb.String()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			batch := &pgx.Batch{}
			for s := 0; s < len(rows); s += perStmt {
				args := make([]any, 0, 3*perStmt)
				for _, r := range rows[s : s+perStmt] {
					args = append(args, r.task, r.meta, r.emb)
				}
				batch.Queue(insert, args...)
			}
			if err := conn.SendBatch(ctx, batch).Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
	})

	post := func(b *testing.B, url string, body []byte) {
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			var e errorBody
			json.NewDecoder(resp.Body).Decode(&e)
			b.Fatalf("%s: %d %+v", url, resp.StatusCode, e)
		}
	}
	// http-ingest-10k posts 10,000 rows per body (47 MB, under the
	// default body limit): the commit's fixed costs shared by more rows.
	for _, bench := range []struct {
		name string
		rows []ingestBenchRow
	}{{"http-ingest", rows}, {"http-ingest-10k", ingestBenchData(5 * ingestBenchRows)}} {
		b.Run(bench.name, func(b *testing.B) {
			rows := bench.rows
			ts := startServer(b)
			hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
			defer hs.Close()
			post(b, hs.URL+"/workspaces/w/tables/query", []byte(`{"query": "CREATE SCHEMA w"}`))
			post(b, hs.URL+"/workspaces/w/tables/query", []byte(`{"query": "`+table+`"}`))
			body := ingestBody(rows)
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				post(b, hs.URL+"/workspaces/w/tables/m/ingest", body)
			}
			b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}

	b.Run("http-query-batch", func(b *testing.B) {
		ts := startServer(b)
		hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
		defer hs.Close()
		post(b, hs.URL+"/workspaces/w/tables/query", []byte(`{"query": "CREATE SCHEMA w"}`))
		post(b, hs.URL+"/workspaces/w/tables/query", []byte(`{"query": "`+table+`"}`))
		body := []byte(`{"query": "INSERT INTO m (task, metadata, embedding) VALUES ($1, $2, $3)", "params_batch": [`)
		for i, r := range rows {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(appendJSONQuoted(append(body, '['), r.task), ',')
			body = append(appendJSONQuoted(body, r.meta), ',')
			body = append(appendEmbeddingJSON(body, r.emb), ']')
		}
		body = append(body, "]}"...)
		b.SetBytes(int64(len(body)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			post(b, hs.URL+"/workspaces/w/tables/query/batch", body)
		}
		b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// appendEmbeddingJSON appends emb as a JSON array of numbers.
func appendEmbeddingJSON(dst []byte, emb []float32) []byte {
	dst = append(dst, '[')
	for k, x := range emb {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(x), 'g', -1, 32)
	}
	return append(dst, ']')
}

// appendJSONQuoted appends s as a JSON string.
func appendJSONQuoted(dst []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(dst, q...)
}

// ingestBody is the columnar /ingest body of rows: task, metadata (an
// object) and embedding.
func ingestBody(rows []ingestBenchRow) []byte {
	col := func(body []byte, name string, value func(dst []byte, r ingestBenchRow) []byte) []byte {
		body = append(appendJSONQuoted(body, name), ":["...)
		for i, r := range rows {
			if i > 0 {
				body = append(body, ',')
			}
			body = value(body, r)
		}
		return append(body, ']')
	}
	body := col([]byte{'{'}, "task", func(dst []byte, r ingestBenchRow) []byte { return appendJSONQuoted(dst, r.task) })
	body = col(append(body, ','), "metadata", func(dst []byte, r ingestBenchRow) []byte { return append(dst, r.meta...) })
	body = col(append(body, ','), "embedding", func(dst []byte, r ingestBenchRow) []byte { return appendEmbeddingJSON(dst, r.emb) })
	return append(body, '}')
}

// BenchmarkIngestDecode times what the server does with an ingest body
// before its insert, without the server: the split, the validation of
// every value (which parses the embeddings) and the conversion into
// Arrow records of a text, a jsonb and a real[] column.
func BenchmarkIngestDecode(b *testing.B) {
	body := ingestBody(ingestBenchData(ingestBenchRows))
	ts := []types.T{types.TextT, types.JSONBT, types.Float4ArrayT}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		cols, ok := splitColumns(body)
		if !ok || !validValues(cols) {
			b.Fatal("the body did not split or validate")
		}
		recs, err := toArrow(cols, ts, nil)
		if err != nil {
			b.Fatal(err)
		}
		releaseRecords(recs)
	}
	b.ReportMetric(float64(ingestBenchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
