package session

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// copyBenchData is COPY FROM data of rows agent-memory rows (id, a text of
// about 200 bytes, a small JSON object, a 384-d embedding) in format csv,
// text or binary.
func copyBenchData(format string, rows int) []byte {
	rng := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	if format == "binary" {
		b.WriteString("PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	}
	task := bytes.Repeat([]byte("fix the flaky test "), 10)
	var arr []byte
	emb := make([]float32, 384)
	for id := 1; id <= rows; id++ {
		meta := fmt.Sprintf(`{"repo": "r%d", "memory_type": "episodic"}`, id%5)
		for i := range emb {
			emb[i] = float32(rng.NormFloat64() * 0.05)
		}
		switch format {
		case "binary":
			w := func(v uint32) { b.Write(binary.BigEndian.AppendUint32(nil, v)) }
			b.Write([]byte{0, 4})
			w(8)
			b.Write(binary.BigEndian.AppendUint64(nil, uint64(id)))
			w(uint32(len(task)))
			b.Write(task)
			w(uint32(1 + len(meta)))
			b.WriteByte(1)
			b.WriteString(meta)
			w(uint32(20 + 8*len(emb)))
			for _, v := range []uint32{1, 0, 700, uint32(len(emb)), 1} {
				w(v)
			}
			for _, x := range emb {
				w(4)
				w(math.Float32bits(x))
			}
			continue
		}
		arr = append(arr[:0], '{')
		for i, x := range emb {
			if i > 0 {
				arr = append(arr, ',')
			}
			arr = strconv.AppendFloat(arr, float64(x), 'g', -1, 32)
		}
		arr = append(arr, '}')
		if format == "csv" {
			fmt.Fprintf(&b, "%d,%s,\"%s\",\"%s\"\n", id, task, bytes.ReplaceAll([]byte(meta), []byte(`"`), []byte(`""`)), arr)
		} else {
			fmt.Fprintf(&b, "%d\t%s\t%s\t%s\n", id, task, meta, arr)
		}
	}
	if format == "binary" {
		b.Write([]byte{0xff, 0xff})
	}
	return b.Bytes()
}

// BenchmarkCopyFrom times COPY FROM of agent-memory rows into a table with
// a primary key, in each format, committed.
func BenchmarkCopyFrom(b *testing.B) {
	const rows = 20000
	for _, format := range []string{"csv", "text", "binary"} {
		b.Run(format, func(b *testing.B) {
			data := copyBenchData(format, rows)
			s, _ := copySession(b)
			run(b, s, `CREATE TABLE m (id bigint PRIMARY KEY, task text, meta jsonb, embedding real[])`)
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, s, `TRUNCATE m`)
				p := bindOne(b, s, `COPY m FROM STDIN (FORMAT `+format+`)`)
				if tag, err := s.CopyFrom(context.Background(), p, bytes.NewReader(data)); err != nil || tag.Rows != rows {
					b.Fatalf("COPY: %v %v", tag, err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
