package vecindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// ivfLists is the lists of the IVF fixtures: about 300 rows a list.
const ivfLists = fixtureRows / 300

var (
	ivfFixtures   [metricCount]fixture
	ivfFixturesMu [metricCount]sync.Once
)

// getIVF is an IVF index of metric m over rows in many more clusters than
// it has lists, so that one list seldom holds all of a query's
// neighbours.
func getIVF(t testing.TB, m Metric) (*fixture, *Index) {
	f := &ivfFixtures[m]
	ivfFixturesMu[m].Do(func() {
		all := dataset(13, fixtureRows+100, 64, fixtureRows/8)
		f.rows, f.queries = all[:fixtureRows], all[fixtureRows:]
		var err error
		if f.x, err = Build(context.Background(), len(f.rows), 64, accessor(f.rows), Params{Metric: m, Lists: ivfLists, Seed: 1}); err != nil {
			t.Fatal(err)
		}
	})
	if f.x == nil {
		t.Fatal("IVF fixture build failed")
	}
	return f, f.x
}

// TestIVFProbes checks that recall rises with the probes, that probing
// every list finds exact search's answer (the same distances, so the same
// rows up to ties), and that hits carry exact distances, nearest first.
func TestIVFProbes(t *testing.T) {
	for _, m := range []Metric{Cosine, L2, InnerProduct} {
		t.Run(m.String(), func(t *testing.T) {
			f, x := getIVF(t, m)
			if x.lists() != ivfLists || x.top != -1 || len(x.links0) != 0 {
				t.Fatalf("%d lists, top %d, %d link words", x.lists(), x.top, len(x.links0))
			}
			prev := 0.0
			for _, probes := range []int{1, 2, 8, ivfLists} {
				var sum float64
				for _, q := range f.queries {
					got := x.Search(q, 10, Effort{Probes: probes}, nil, accessor(f.rows))
					want := exact(m, f.rows, q, 10, nil)
					if len(got) != 10 {
						t.Fatalf("probes %d: %d hits", probes, len(got))
					}
					for i, h := range got {
						if d, _ := exactDist(m, unitFor(m, q), f.rows[h.Row]); d != h.Dist {
							t.Fatalf("hit %d: distance %v, exact %v", i, h.Dist, d)
						}
						if i > 0 && got[i-1].Dist > h.Dist {
							t.Fatalf("hits out of order: %v", got)
						}
					}
					if probes == ivfLists {
						for i := range want {
							if got[i].Dist != want[i].Dist {
								t.Fatalf("all lists probed: %v, exact %v", got, want)
							}
						}
					}
					sum += recall(got, want)
				}
				r := sum / float64(len(f.queries))
				t.Logf("probes %d: recall@10 %.3f", probes, r)
				if r < prev {
					t.Errorf("probes %d: recall@10 %.3f, below %.3f with fewer", probes, r, prev)
				}
				prev = r
			}
			if prev < 1 {
				t.Errorf("every list probed: recall %.3f", prev)
			}
		})
	}
}

// TestIVFFiltered checks that a filtered IVF search returns min(k,
// accepted) accepted rows at every selectivity, however few lists it
// probes, with the recall of the lists it had to score; and that
// SearchRows and ScanRows serve an IVF index as they do a graph.
func TestIVFFiltered(t *testing.T) {
	f, x := getIVF(t, L2)
	for _, sel := range []float64{0.0005, 0.01, 0.1, 0.5} {
		for _, probes := range []int{1, ivfLists} {
			t.Run(fmt.Sprintf("%g/probes=%d", sel, probes), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(sel * 10000)))
				set := make([]bool, len(f.rows))
				var listed []uint32
				for i := range set {
					if set[i] = rng.Float64() < sel; set[i] {
						listed = append(listed, uint32(i))
					}
				}
				allow := func(r uint32) bool { return set[r] }
				var sum float64
				for _, q := range f.queries {
					want := exact(L2, f.rows, q, 10, allow)
					got := x.Search(q, 10, Effort{Probes: probes}, allow, accessor(f.rows))
					if len(got) != len(want) {
						t.Fatalf("%d hits, want %d", len(got), len(want))
					}
					for _, h := range got {
						if !set[h.Row] {
							t.Fatalf("row %d is not accepted", h.Row)
						}
					}
					sum += recall(got, want)
					if rows := x.SearchRows(q, 10, Effort{Ef: 40}, listed, accessor(f.rows)); recall(rows, want) < 1 || len(rows) != len(want) {
						t.Fatalf("SearchRows: %v, exact %v", rows, want)
					}
				}
				r := sum / float64(len(f.queries))
				t.Logf("recall@10 %.3f", r)
				if probes == ivfLists && r < 1 {
					t.Errorf("every list probed: recall@10 %.3f", r)
				}
			})
		}
	}
	// A few accepted rows are scored where they are listed; most are
	// found by probing.
	if !x.ScanRows(10, Effort{Ef: 40, Probes: 1}) || x.ScanRows(len(f.rows)/2, Effort{Ef: 40, Probes: 1}) {
		t.Error("ScanRows: want a scan of 10 rows and a probe among half the rows")
	}
}

// TestIVFSmall covers segments with fewer rows than lists, duplicate rows
// (k-means lists left empty), NULL rows, and inner product over zero
// vectors: every indexed row is in exactly one list and a search returns
// min(k, indexed) rows.
func TestIVFSmall(t *testing.T) {
	ctx := context.Background()
	same := make([][]float32, 500)
	for i := range same {
		same[i] = []float32{1, 2, 3}
		if i%50 == 0 {
			same[i] = []float32{-1, 0, 1}
		}
	}
	zeros := [][]float32{{0, 0}, {0, 0}, nil, {0, 0}}
	cases := []struct {
		name  string
		rows  [][]float32
		dim   int
		p     Params
		lists int
	}{
		{"fewer rows than lists", dataset(11, 5, 8, 2), 8, Params{Metric: L2, Lists: 100}, 5},
		{"duplicates", same, 3, Params{Metric: Cosine, Lists: 20}, 20},
		{"zero vectors", zeros, 2, Params{Metric: InnerProduct, Lists: 3}, 1},
		{"all NULL", make([][]float32, 7), 4, Params{Metric: L2, Lists: 3}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, err := Build(ctx, len(c.rows), c.dim, accessor(c.rows), c.p)
			if err != nil {
				t.Fatal(err)
			}
			if x.lists() != c.lists {
				t.Fatalf("%d lists, want %d", x.lists(), c.lists)
			}
			if err := x.validate(); err != nil {
				t.Fatal(err)
			}
			q := make([]float32, c.dim)
			q[0] = 1
			for _, probes := range []int{1, 1000} {
				got := x.Search(q, 10, Effort{Probes: probes}, nil, accessor(c.rows))
				if len(got) != min(10, x.count) {
					t.Fatalf("probes %d: %d hits of %d rows", probes, len(got), x.count)
				}
			}
			var buf bytes.Buffer
			if _, err := x.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if y, err := Read(buf.Bytes()); err != nil || y.lists() != c.lists {
				t.Fatalf("read back: %v", err)
			}
		})
	}
}

// TestIVFRoundTrip checks that a read IVF index answers as the built one,
// that a build is repeatable, and that a version 1 (HNSW) file still reads.
func TestIVFRoundTrip(t *testing.T) {
	f, x := getIVF(t, Cosine)
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	y, err := Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if y.Params() != x.Params() || y.Bytes() != x.Bytes() || y.lists() != ivfLists {
		t.Fatal("read index differs")
	}
	allow := func(r uint32) bool { return r%3 == 0 }
	for _, q := range f.queries {
		for _, a := range []func(uint32) bool{nil, allow} {
			if g, w := y.Search(q, 10, Effort{Probes: 3}, a, accessor(f.rows)), x.Search(q, 10, Effort{Probes: 3}, a, accessor(f.rows)); !slices.Equal(g, w) {
				t.Fatalf("read index answers %v, built one %v", g, w)
			}
		}
	}
	b := smallIVFBytes(t)
	if again := smallIVFBytes(t); !bytes.Equal(b, again) {
		t.Error("two IVF builds with one seed differ")
	}

	// Version 1 is version 2 of a graph without the lists fields.
	v2 := smallIndexBytes(t)
	v1 := append(slices.Clone(v2[:headerSize1]), v2[headerSize:]...)
	binary.LittleEndian.PutUint16(v1[4:], 1)
	z, err := Read(withChecksum(v1))
	if err != nil {
		t.Fatalf("version 1: %v", err)
	}
	w, _ := Read(v2)
	q := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	rows := dataset(6, 300, 12, 4)
	if g, want := z.Search(q, 5, Effort{Ef: 20}, nil, accessor(rows)), w.Search(q, 5, Effort{Ef: 20}, nil, accessor(rows)); !slices.Equal(g, want) || len(g) != 5 {
		t.Fatalf("version 1 answers %v, version 2 %v", g, want)
	}
}

func TestIVFSearchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	f, x := getIVF(t, L2)
	allow := func(r uint32) bool { return r%2 == 0 }
	for _, a := range []func(uint32) bool{nil, allow} {
		if n := testing.AllocsPerRun(50, func() { x.Search(f.queries[0], 10, Effort{Probes: 4}, a, accessor(f.rows)) }); n > 1 {
			t.Errorf("%v allocations per search, want 1 (the result)", n)
		}
	}
}

// TestIVFReadCorrupt is TestReadCorrupt for an IVF index, whose lists
// Read must check: no list row out of range, none in two lists.
func TestIVFReadCorrupt(t *testing.T) {
	b := smallIVFBytes(t)
	x, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	// A row moved from one list to another's place: in two lists.
	c := bytes.Clone(b)
	rows := len(c) - 4 - 4*x.count
	binary.LittleEndian.PutUint32(c[rows:], x.listRows[1])
	if _, err := Read(withChecksum(c)); err == nil {
		t.Error("a row in two lists: no error")
	}
	binary.LittleEndian.PutUint32(c[rows:], uint32(x.n))
	if _, err := Read(withChecksum(c)); err == nil {
		t.Error("a list row out of range: no error")
	}
	for i := 0; i < len(b); i += 5 {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		if _, err := Read(c); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	rng := rand.New(rand.NewSource(12))
	for range 2000 {
		c := bytes.Clone(b)
		for range 1 + rng.Intn(3) {
			c[rng.Intn(len(c)-4)] = byte(rng.Intn(256))
		}
		searchCorrupt(withChecksum(c))
	}
}

// smallIVFBytes is a small IVF index with NULL rows, written.
func smallIVFBytes(t testing.TB) []byte {
	rows := dataset(6, 300, 12, 4)
	rows[7] = nil
	x, err := Build(context.Background(), len(rows), 12, accessor(rows), Params{Lists: 6, Metric: InnerProduct})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
