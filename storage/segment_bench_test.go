package storage

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/types"
)

// agentMemorySpecs are the columns of bench/copy.sh's agent-memory table.
func agentMemorySpecs() []segColumnSpec {
	return []segColumnSpec{
		{id: 1, name: "id", typ: types.Int8T.Arrow()},
		{id: 2, name: "task", typ: types.TextT.Arrow()},
		{id: 3, name: "meta", typ: types.JSONBT.Arrow()},
		{id: 4, name: "embedding", typ: types.Float4ArrayT.Arrow()},
	}
}

// agentMemoryChunk builds n agent-memory rows from row from: a ~200-byte
// text, a small jsonb and a 384-d embedding, as COPY hands them to a spill.
func agentMemoryChunk(from, n int, rng *rand.Rand) segmentChunk {
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	task := array.NewStringBuilder(memory.DefaultAllocator)
	meta := array.NewStringBuilder(memory.DefaultAllocator)
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Float32)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	rids := array.NewInt64Builder(memory.DefaultAllocator)
	vb.Reserve(n * embedDim)
	vec := make([]float32, embedDim)
	words := strings.Fields("agent planned the refactor of the storage layer after reading the failing test output and the design notes on compaction")
	for i := 0; i < n; i++ {
		ids.Append(int64(from + i))
		rids.Append(int64(from + i))
		var sb strings.Builder
		for sb.Len() < 200 {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		task.Append(sb.String())
		meta.Append(fmt.Sprintf(`{"n": %d, "repo": "cairn", "tags": ["a", "b"], "session": "s%d"}`, i%7, (from+i)/100))
		for k := range vec {
			vec[k] = rng.Float32()*2 - 1
		}
		lb.Append(true)
		vb.AppendValues(vec, nil)
	}
	return segmentChunk{cols: []arrow.Array{ids.NewArray(), task.NewArray(), meta.NewArray(), lb.NewArray()}, rowIDs: rids.NewInt64Array()}
}

// BenchmarkSegmentWrite writes 65,536 agent-memory rows to a segment file
// in chunks of 4,096, as a spill does (no fsync: the commit's), reported
// as rows/s; MB/s is of the file written.
func BenchmarkSegmentWrite(b *testing.B) {
	const rows, chunk = 65536, 4096
	rng := rand.New(rand.NewSource(1))
	chunks := make([]segmentChunk, rows/chunk)
	for i := range chunks {
		chunks[i] = agentMemoryChunk(i*chunk, chunk, rng)
	}
	dir := b.TempDir()
	specs := agentMemorySpecs()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		sw, err := newSegmentWriter(filepath.Join(dir, fmt.Sprintf("seg-%06d.parquet", it)), specs)
		if err != nil {
			b.Fatal(err)
		}
		sw.noSync = true
		for _, c := range chunks {
			if err := sw.write(c); err != nil {
				b.Fatal(err)
			}
		}
		seg, err := sw.finish()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(seg.bytes)
		// Not kept: the page cache would fill with the files of every
		// iteration.
		os.Remove(seg.path)
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSegmentRead decodes every column of a 65,536-row agent-memory
// segment (as written by BenchmarkSegmentWrite's writer) into Arrow, no
// cache, reported as rows/s.
func BenchmarkSegmentRead(b *testing.B) {
	const rows, chunk = 65536, 4096
	rng := rand.New(rand.NewSource(1))
	specs := agentMemorySpecs()
	sw, err := newSegmentWriter(filepath.Join(b.TempDir(), "seg-000001.parquet"), specs)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < rows/chunk; i++ {
		if err := sw.write(agentMemoryChunk(i*chunk, chunk, rng)); err != nil {
			b.Fatal(err)
		}
	}
	seg, err := sw.finish()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		sf, err := openSegment(seg)
		if err != nil {
			b.Fatal(err)
		}
		for g := 0; g < sf.numRowGroups(); g++ {
			for _, s := range specs {
				a, err := sf.readColumn(g, s.id, s.typ)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		}
		sf.close()
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
}
