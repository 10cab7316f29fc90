package main

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// TestLargeTopK checks exact top-k over a table large enough to be
// scanned in parallel partitions, flushed to Parquet segments and read
// through the column cache, against a brute-force ranking in the test.
func TestLargeTopK(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE big (id bigint PRIMARY KEY, repo text, embedding float4[])`)
	const n, dim = 70000, 8
	rng := rand.New(rand.NewSource(1))
	vecs := make([][]float32, n)
	for start := 0; start < n; start += 2000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO big VALUES ")
		for i := start; i < start+2000; i++ {
			v := make([]float32, dim)
			parts := make([]string, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
				parts[j] = fmt.Sprint(v[j])
			}
			vecs[i] = v
			if i > start {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'r%d', '{%s}')", i, i%7, strings.Join(parts, ","))
		}
		mustExec(t, conn, sb.String())
	}
	q := []float32{1, -1, 0.5, 0, 0, 2, 0, 1}
	cos := func(v []float32) float64 {
		var dot, na, nb float64
		for i := range v {
			dot += float64(v[i]) * float64(q[i])
			na += float64(v[i]) * float64(v[i])
			nb += float64(q[i]) * float64(q[i])
		}
		return dot / math.Sqrt(na*nb)
	}
	expect := func(filter func(i int) bool, k, offset int) []int64 {
		var ids []int64
		for i := range vecs {
			if filter(i) {
				ids = append(ids, int64(i))
			}
		}
		sort.SliceStable(ids, func(a, b int) bool { return cos(vecs[ids[a]]) > cos(vecs[ids[b]]) })
		return ids[offset : offset+k]
	}
	check := func(sql string, want []int64) {
		t.Helper()
		rows, err := conn.Query(ctx, sql, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s:\n got %v\nwant %v", sql, got, want)
		}
	}
	for round := 0; round < 2; round++ { // cold, then warm column cache
		check(`SELECT id FROM big ORDER BY embedding <#> $1::float4[] DESC LIMIT 10`, expect(func(int) bool { return true }, 10, 0))
		check(`SELECT id FROM big ORDER BY cosine_similarity(embedding, $1::float4[]) DESC LIMIT 5 OFFSET 7`, expect(func(int) bool { return true }, 5, 7))
		check(`SELECT id FROM big WHERE repo = 'r3' ORDER BY embedding <#> $1::float4[] DESC LIMIT 10`, expect(func(i int) bool { return i%7 == 3 }, 10, 0))
	}
	// Deleted rows never come back, in any partition.
	best := expect(func(int) bool { return true }, 3, 0)
	mustExec(t, conn, fmt.Sprintf(`DELETE FROM big WHERE id IN (%d, %d)`, best[0], best[2]))
	check(`SELECT id FROM big ORDER BY embedding <#> $1::float4[] DESC LIMIT 1`, best[1:2])
}
