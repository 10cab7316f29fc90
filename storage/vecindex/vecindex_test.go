package vecindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// dataset is n clustered vectors of dimension dim, as real embeddings are:
// centres spread at random, rows scattered around them.
func dataset(seed int64, n, dim, clusters int) [][]float32 {
	rng := rand.New(rand.NewSource(seed))
	centres := make([][]float32, clusters)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for d := range centres[i] {
			centres[i][d] = float32(rng.NormFloat64())
		}
	}
	rows := make([][]float32, n)
	for i := range rows {
		c := centres[rng.Intn(clusters)]
		rows[i] = make([]float32, dim)
		for d := range rows[i] {
			rows[i][d] = c[d] + 0.6*float32(rng.NormFloat64())
		}
	}
	return rows
}

func accessor(rows [][]float32) func(int) []float32 {
	return func(r int) []float32 { return rows[r] }
}

// exact is the brute-force answer Search must match: the k accepted rows
// nearest q.
func exact(m Metric, rows [][]float32, q []float32, k int, allow func(uint32) bool) []Hit {
	if m == Cosine {
		u := make([]float32, len(q))
		normalize(q, u)
		q = u
	}
	var hits []Hit
	for r, v := range rows {
		if v == nil || allow != nil && !allow(uint32(r)) {
			continue
		}
		if d, ok := exactDist(m, q, v); ok {
			hits = append(hits, Hit{uint32(r), d})
		}
	}
	slices.SortFunc(hits, cmpHit)
	return hits[:min(k, len(hits))]
}

// recall is the fraction of want's rows found in got.
func recall(got, want []Hit) float64 {
	if len(want) == 0 {
		return 1
	}
	found := 0
	for _, w := range want {
		for _, g := range got {
			if g.Row == w.Row {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(want))
}

// fixture is a built index over a clustered dataset with its queries,
// shared by the tests of one metric.
type fixture struct {
	rows, queries [][]float32
	x             *Index
}

var (
	fixtures   [metricCount]fixture
	fixturesMu [metricCount]sync.Once
)

func getFixture(t testing.TB, m Metric) *fixture {
	fixturesMu[m].Do(func() {
		f := &fixtures[m]
		all := dataset(1, fixtureRows+100, 128, 64)
		f.rows, f.queries = all[:fixtureRows], all[fixtureRows:]
		var err error
		if f.x, err = Build(context.Background(), len(f.rows), 128, accessor(f.rows), Params{Metric: m, Seed: 1}); err != nil {
			t.Fatal(err)
		}
	})
	if fixtures[m].x == nil {
		t.Fatal("fixture build failed")
	}
	return &fixtures[m]
}

func TestRecall(t *testing.T) {
	for _, m := range []Metric{Cosine, L2, InnerProduct} {
		t.Run(m.String(), func(t *testing.T) {
			f := getFixture(t, m)
			var sum float64
			for _, q := range f.queries {
				got := f.x.Search(q, 10, Effort{Ef: 100}, nil, accessor(f.rows))
				want := exact(m, f.rows, q, 10, nil)
				if len(got) != 10 {
					t.Fatalf("%d hits, want 10", len(got))
				}
				for i, h := range got {
					if d, _ := exactDist(m, unitFor(m, q), f.rows[h.Row]); d != h.Dist {
						t.Fatalf("hit %d: distance %v, exact %v", i, h.Dist, d)
					}
					if i > 0 && got[i-1].Dist > h.Dist {
						t.Fatalf("hits out of order: %v", got)
					}
				}
				sum += recall(got, want)
			}
			if r := sum / float64(len(f.queries)); r < 0.98 {
				t.Errorf("recall@10 at ef 100 is %.3f, want ≥ 0.98", r)
			} else {
				t.Logf("recall@10 at ef 100: %.3f", r)
			}
		})
	}
}

// unitFor is q as Search compares it: normalised under Cosine.
func unitFor(m Metric, q []float32) []float32 {
	if m != Cosine {
		return q
	}
	u := make([]float32, len(q))
	normalize(q, u)
	return u
}

func TestFilteredSearch(t *testing.T) {
	f := getFixture(t, L2)
	for _, sel := range []float64{0.001, 0.01, 0.02, 0.05, 0.1, 0.5} {
		for _, forceWalk := range []bool{false, true} {
			t.Run(fmt.Sprintf("%g/walk=%v", sel, forceWalk), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(sel * 1000)))
				set := make([]bool, len(f.rows))
				for i := range set {
					set[i] = rng.Float64() < sel
				}
				allow := func(r uint32) bool { return set[r] }
				var sum float64
				for _, q := range f.queries {
					want := exact(L2, f.rows, q, 10, allow)
					var got []Hit
					if forceWalk {
						got = f.x.walkOnly(q, 10, 100, allow, accessor(f.rows))
					} else {
						got = f.x.Search(q, 10, Effort{Ef: 100}, allow, accessor(f.rows))
					}
					if len(got) != len(want) && !forceWalk {
						t.Fatalf("%d hits, want %d", len(got), len(want))
					}
					for _, h := range got {
						if !set[h.Row] {
							t.Fatalf("row %d is not accepted", h.Row)
						}
					}
					sum += recall(got, want)
				}
				r := sum / float64(len(f.queries))
				t.Logf("recall@10: %.3f", r)
				if r < 0.99 && (!forceWalk || sel >= 0.1) {
					t.Errorf("recall@10 %.3f, want ≥ 0.99", r)
				}
			})
		}
	}
}

// TestSearchRows checks the search among listed rows: min(k, listed)
// rows, all of them listed, with recall ≥ 0.99 against exact search among
// them, and none for an empty list.
func TestSearchRows(t *testing.T) {
	f := getFixture(t, L2)
	if got := f.x.SearchRows(f.queries[0], 10, Effort{Ef: 40}, nil, accessor(f.rows)); len(got) != 0 {
		t.Fatalf("no rows listed: %d hits", len(got))
	}
	for _, n := range []int{1, 5, 10, 200, 3000} {
		rng := rand.New(rand.NewSource(int64(n)))
		rows := rng.Perm(len(f.rows))[:n]
		listed := make([]uint32, n)
		set := make([]bool, len(f.rows))
		for i, r := range rows {
			listed[i], set[r] = uint32(r), true
		}
		allow := func(r uint32) bool { return set[r] }
		var sum float64
		for _, q := range f.queries {
			got := f.x.SearchRows(q, 10, Effort{Ef: 40}, listed, accessor(f.rows))
			want := exact(L2, f.rows, q, 10, allow)
			if len(got) != len(want) {
				t.Fatalf("%d rows listed: %d hits, want %d", n, len(got), len(want))
			}
			for _, h := range got {
				if !set[h.Row] {
					t.Fatalf("row %d is not listed", h.Row)
				}
			}
			sum += recall(got, want)
		}
		if r := sum / float64(len(f.queries)); r < 0.99 {
			t.Errorf("%d rows listed: recall@10 %.3f, want ≥ 0.99", n, r)
		}
	}
}

// TestFilterOnRowNumbers filters on row numbers, which a regular sample
// of rows would alias with (every 100th row sampled every 390.6 rows).
func TestFilterOnRowNumbers(t *testing.T) {
	f := getFixture(t, L2)
	for _, mod := range []uint32{100, 30, 10} {
		allow := func(r uint32) bool { return r%mod == 0 }
		var sum float64
		for _, q := range f.queries {
			got := f.x.Search(q, 10, Effort{Ef: 40}, allow, accessor(f.rows))
			if len(got) != 10 {
				t.Fatalf("1/%d: %d hits", mod, len(got))
			}
			sum += recall(got, exact(L2, f.rows, q, 10, allow))
		}
		if r := sum / float64(len(f.queries)); r < 0.99 {
			t.Errorf("1/%d: recall@10 %.3f, want ≥ 0.99", mod, r)
		}
	}
}

// walkOnly is Search without the choice of an exact scan up front.
func (x *Index) walkOnly(query []float32, k, ef int, allow func(uint32) bool, vector func(int) []float32) []Hit {
	s := x.pool.Get().(*searcher)
	defer x.pool.Put(s)
	q := unitFor(x.params.Metric, query)
	x.quant.prepare(q, s.codes, &s.probe)
	e := cand{x.dist(&s.probe, x.entry), x.entry}
	for l := x.top; l > 0; l-- {
		e = x.greedy(s, e, l)
	}
	x.walk(s, e, max(ef, 4*k), allow, -1)
	var hits []Hit
	for _, c := range s.res.drain(nil) {
		d, _ := exactDist(x.params.Metric, q, vector(int(c.id)))
		hits = append(hits, Hit{c.id, d})
	}
	slices.SortFunc(hits, cmpHit)
	return hits[:min(k, len(hits))]
}

func TestNullRows(t *testing.T) {
	rows := dataset(2, 3000, 16, 8)
	rows[0] = make([]float32, 16) // zero: no direction under Cosine
	for i := 1; i < len(rows); i += 3 {
		rows[i] = nil
	}
	rows[2][5] = float32(math.NaN())
	x, err := Build(context.Background(), len(rows), 16, accessor(rows), Params{Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(rows) || x.count != len(rows)-1000-2 {
		t.Fatalf("Len %d, indexed %d", x.Len(), x.count)
	}
	for _, q := range dataset(3, 20, 16, 8) {
		for _, h := range x.Search(q, 50, Effort{Ef: 100}, nil, accessor(rows)) {
			if h.Row == 0 || h.Row == 2 || h.Row%3 == 1 {
				t.Fatalf("row %d is not indexed", h.Row)
			}
		}
	}
}

func TestEdgeCases(t *testing.T) {
	ctx := context.Background()
	empty, err := Build(ctx, 3, 4, func(int) []float32 { return nil }, Params{})
	if err != nil || empty.Search([]float32{1, 2, 3, 4}, 5, Effort{Ef: 10}, nil, nil) != nil {
		t.Fatalf("all-NULL index: %v", err)
	}
	var buf bytes.Buffer
	if _, err := empty.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if y, err := Read(buf.Bytes()); err != nil || y.Len() != 3 || y.Search([]float32{1, 2, 3, 4}, 5, Effort{Ef: 10}, nil, nil) != nil {
		t.Fatalf("all-NULL index read back: %v", err)
	}
	rows := [][]float32{{1, 0}, {0, 1}, {1, 1}}
	one, err := Build(ctx, 3, 2, accessor(rows), Params{Metric: L2})
	if err != nil {
		t.Fatal(err)
	}
	if got := one.Search([]float32{1, 0.9}, 5, Effort{Ef: 1}, nil, accessor(rows)); len(got) != 3 || got[0].Row != 2 {
		t.Fatalf("3 rows: %v", got)
	}
	if got := one.Search([]float32{float32(math.NaN()), 0}, 5, Effort{Ef: 10}, nil, accessor(rows)); got != nil {
		t.Fatalf("NaN query: %v", got)
	}
	if _, err := Build(ctx, 3, 3, accessor(rows), Params{}); err == nil {
		t.Fatal("a row of the wrong dimension must be an error")
	}
	if _, err := Build(ctx, 3, 2, accessor(rows), Params{M: 1}); err == nil {
		t.Fatal("M 1 must be an error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Build(cancelled, 3, 2, accessor(rows), Params{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
}

func TestHighDimension(t *testing.T) {
	const dim = 4096
	rows := dataset(4, highDimRows, dim, 10)
	x, err := Build(context.Background(), len(rows), dim, accessor(rows), Params{Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	queries := dataset(5, 20, dim, 10)
	for _, q := range queries {
		sum += recall(x.Search(q, 10, Effort{Ef: 100}, nil, accessor(rows)), exact(Cosine, rows, q, 10, nil))
	}
	if r := sum / float64(len(queries)); r < 0.98 {
		t.Errorf("recall %.3f", r)
	}
}

func TestConcurrentSearch(t *testing.T) {
	f := getFixture(t, Cosine)
	want := make([][]Hit, len(f.queries))
	for i, q := range f.queries {
		want[i] = f.x.Search(q, 10, Effort{Ef: 60}, nil, accessor(f.rows))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(f.queries); i += 2 {
				var allow func(uint32) bool
				if i%3 == 0 {
					allow = func(r uint32) bool { return r%7 != 0 }
				}
				got := f.x.Search(f.queries[i], 10, Effort{Ef: 60}, allow, accessor(f.rows))
				if allow == nil && !slices.Equal(got, want[i]) {
					t.Errorf("query %d: %v, alone %v", i, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
}

func TestSearchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	f := getFixture(t, L2)
	allow := func(r uint32) bool { return r%2 == 0 }
	for _, a := range []func(uint32) bool{nil, allow} {
		if n := testing.AllocsPerRun(50, func() { f.x.Search(f.queries[0], 10, Effort{Ef: 100}, a, accessor(f.rows)) }); n > 1 {
			t.Errorf("%v allocations per search, want 1 (the result)", n)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	f := getFixture(t, InnerProduct)
	var buf bytes.Buffer
	n, err := f.x.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
	y, err := Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if y.Len() != f.x.Len() || y.Dim() != f.x.Dim() || y.Params() != f.x.Params() || y.Bytes() != f.x.Bytes() {
		t.Fatal("read index differs")
	}
	allow := func(r uint32) bool { return r%2 == 0 }
	for _, q := range f.queries {
		for _, a := range []func(uint32) bool{nil, allow} {
			if g, w := y.Search(q, 10, Effort{Ef: 50}, a, accessor(f.rows)), f.x.Search(q, 10, Effort{Ef: 50}, a, accessor(f.rows)); !slices.Equal(g, w) {
				t.Fatalf("read index answers %v, built one %v", g, w)
			}
		}
	}
}

func TestReadCorrupt(t *testing.T) {
	b := smallIndexBytes(t)
	if _, err := Read(b); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, headerSize, len(b) / 2, len(b) - 1} {
		if _, err := Read(b[:n]); err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	for i := 0; i < len(b); i += 7 {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		if _, err := Read(c); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	// Corruption the checksum does not see (it is recomputed) must be
	// refused by Read's checks, or give an index Search can walk.
	rng := rand.New(rand.NewSource(10))
	for range 2000 {
		c := bytes.Clone(b)
		for range 1 + rng.Intn(3) {
			c[rng.Intn(len(c)-4)] = byte(rng.Intn(256))
		}
		searchCorrupt(withChecksum(c))
	}
}

// withChecksum replaces the last 4 bytes of b with the checksum of the rest.
func withChecksum(b []byte) []byte {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	}
	return b
}

// searchCorrupt reads b and, if Read accepts it, searches the index with
// and without a filter: neither may panic or loop.
func searchCorrupt(b []byte) {
	x, err := Read(b)
	if err != nil {
		return
	}
	q := make([]float32, x.Dim())
	for i := range q {
		q[i] = float32(i)
	}
	vec := func(int) []float32 { return q }
	x.Search(q, 5, Effort{Ef: 10, Probes: 2}, nil, vec)
	x.Search(q, 5, Effort{Ef: 10, Probes: 2}, func(r uint32) bool { return r%2 == 0 }, vec)
}

// smallIndexBytes is a small index with NULL rows and upper layers, written.
func smallIndexBytes(t testing.TB) []byte {
	rows := dataset(6, 300, 12, 4)
	rows[7] = nil
	x, err := Build(context.Background(), len(rows), 12, accessor(rows), Params{M: 4, EfConstruction: 16, Metric: L2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDotCodes checks the SWAR and the assembly code dot products against
// the plain sum, at the largest codes and at lengths with tails.
func TestDotCodes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{8, 16, 24, 32, 40, 64, 96, 384, 4096} {
		a, b := make([]byte, n), make([]byte, n)
		var want uint64
		for i := range a {
			a[i], b[i] = byte(rng.Intn(codeMax+1)), byte(rng.Intn(codeMax+1))
			if i%5 == 0 {
				a[i], b[i] = codeMax, codeMax
			}
			want += uint64(a[i]) * uint64(b[i])
		}
		words := make([]uint64, n/4)
		packWords(a, words)
		if got := dotCodes(words, b); got != want {
			t.Errorf("n %d: SWAR %d, want %d", n, got, want)
		}
		if hasCodeAsm {
			if got := dotCodesAsm(a, b); got != want {
				t.Errorf("n %d: assembly %d, want %d", n, got, want)
			}
		}
	}
}

// TestDistRows checks the batched distances of a list of rows against
// dist's one at a time, for strides with and without a tail past whole
// 32-byte blocks.
func TestDistRows(t *testing.T) {
	for _, dim := range []int{5, 32, 40, 100, 384} {
		rows := dataset(3, 300, dim, 4)
		x, err := Build(context.Background(), len(rows), dim, accessor(rows), Params{Metric: L2})
		if err != nil {
			t.Fatal(err)
		}
		s := x.pool.Get().(*searcher)
		x.quant.prepare(dataset(4, 1, dim, 1)[0], s.codes, &s.probe)
		ids := []uint32{299, 0, 17, 17, 150}
		got := s.probe.distRows(x.codes, x.stride, x.terms, ids, s.dots, nil)
		for i, r := range ids {
			if want := x.dist(&s.probe, r); got[i] != want {
				t.Errorf("dim %d row %d: distRows %v, dist %v", dim, r, got[i], want)
			}
		}
	}
}

func TestQuantizedDistance(t *testing.T) {
	rows := dataset(8, 200, 32, 4)
	for _, m := range []Metric{Cosine, L2, InnerProduct} {
		x, err := Build(context.Background(), len(rows), 32, accessor(rows), Params{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		s := x.pool.Get().(*searcher)
		q := unitFor(m, dataset(9, 1, 32, 1)[0])
		x.quant.prepare(q, s.codes, &s.probe)
		want := make([]float64, len(rows))
		for r := range rows {
			d, _ := exactDist(m, q, rows[r])
			want[r] = float64(d)
		}
		spread := slices.Max(want) - slices.Min(want)
		for r := range rows {
			if got := float64(x.dist(&s.probe, uint32(r))); math.Abs(got-want[r]) > 0.03*spread {
				t.Fatalf("%v row %d: approximate %v, exact %v (spread %v)", m, r, got, want[r], spread)
			}
		}
	}
}

// FuzzRead feeds Read arbitrary bytes with a valid checksum, so that the
// fuzzer explores the checks behind it.
func FuzzRead(f *testing.F) {
	f.Add(smallIndexBytes(f))
	f.Add(smallIVFBytes(f))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		searchCorrupt(withChecksum(b))
	})
}

// TestCellOrderedBuild builds indexes in cell order (order.go, with
// smaller cells) over rows with NULLs between them, and checks that the
// graph, translated back to row numbers, is whole (validate), links no
// unindexed row and no row to itself, reaches every indexed row from the
// entry point, and finds the exact neighbours.
func TestCellOrderedBuild(t *testing.T) {
	defer func(cellRows int) { rowsPerCell = cellRows }(rowsPerCell)
	rowsPerCell = 500
	const dim = 8
	n := 4000 // 3,428 indexed rows: 6 cells
	rows := dataset(21, n+20, dim, 40)
	queries := rows[n:]
	rows = rows[:n]
	for i := 3; i < n; i += 7 {
		rows[i] = nil
	}
	for _, m := range []Metric{L2, InnerProduct} {
		t.Run(m.String(), func(t *testing.T) {
			x, err := Build(context.Background(), n, dim, accessor(rows), Params{Metric: m, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if cellSampler(x.params, n, dim) == nil {
				t.Fatalf("%d rows are not built in cell order", n)
			}
			if err := x.validate(); err != nil {
				t.Fatal(err)
			}
			reached := map[uint32]bool{x.entry: true}
			queue := []uint32{x.entry}
			for len(queue) > 0 {
				r := queue[0]
				queue = queue[1:]
				for l := 0; l <= int(x.level[r]); l++ {
					for _, nb := range x.neighbours(r, l) {
						if nb == r || rows[nb] == nil || x.level[nb] < int8(l) {
							t.Fatalf("row %d links row %d at layer %d (its layer %d)", r, nb, l, x.level[nb])
						}
						if !reached[nb] {
							reached[nb] = true
							queue = append(queue, nb)
						}
					}
				}
			}
			if len(reached) != x.count {
				t.Fatalf("%d of %d indexed rows reachable from the entry point", len(reached), x.count)
			}
			var sum float64
			for _, q := range queries {
				sum += recall(x.Search(q, 10, Effort{Ef: 100}, nil, accessor(rows)), exact(m, rows, q, 10, nil))
			}
			if r := sum / float64(len(queries)); r < 0.98 {
				t.Errorf("recall@10 at ef 100 is %.3f, want ≥ 0.98", r)
			}
		})
	}
}
