package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/storage/objstore"
)

// BenchmarkExportRound times one --follow round on a store whose log
// holds benchCommits commits since its checkpoint (a 10,000-row segment
// before them), each round after one more commit, and reports the bytes
// and objects it read from cairn's store (the warehouse aside):
// "restart" reads the store afresh each round (the checkpoint, then every
// log object since: what each round did before rounds were incremental),
// "incremental" keeps the reader open and applies the new log object.
// Both run on gofakes3 in process over loopback HTTP.
func BenchmarkExportRound(b *testing.B) {
	const benchCommits = 3000
	ctx := context.Background()
	for _, mode := range []string{"restart", "incremental"} {
		b.Run(mode, func(b *testing.B) {
			startS3(b)
			st, err := objstore.NewS3(ctx, testBucket, "db", objstore.S3Options{})
			if err != nil {
				b.Fatal(err)
			}
			srv := startServerOpts(b, b.TempDir(), storage.Options{Store: st})
			conn, err := pgx.Connect(ctx, srv.url)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `CREATE TABLE events (id int8, kind text, at timestamptz);
				INSERT INTO events SELECT g, 'load', now() FROM generate_series(1, 10000) g`); err != nil {
				b.Fatal(err)
			}
			if err := srv.db.Checkpoint(); err != nil {
				b.Fatal(err)
			}
			id := int64(10000)
			commit := func() {
				id++
				if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ($1, 'event', now())`, id); err != nil {
					b.Fatal(err)
				}
			}
			for range benchCommits {
				commit()
			}
			counter := &readCounter{Store: st}
			src := &source{store: counter, url: "s3://" + testBucket + "/db", reader: storage.NewStoreReader(counter, b.TempDir())}
			defer src.reader.Close()
			var out bytes.Buffer
			e := newExporter(src, &out, b.TempDir(), 10)
			warehouse := "s3://" + testBucket + "/warehouse"
			if err := e.round(ctx, warehouse, nil, true); err != nil {
				b.Fatal(err)
			}
			counter.take()
			var bytesRead, gets int64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				commit()
				if mode == "restart" {
					src.reader.Close() // the next Read starts over
				}
				b.StartTimer()
				if err := e.round(ctx, warehouse, nil, true); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				r := counter.take()
				bytesRead += r.bytes
				gets += int64(r.gets)
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(bytesRead)/float64(b.N), "store-B/op")
			b.ReportMetric(float64(gets)/float64(b.N), "store-gets/op")
		})
	}
}
