package storage

import (
	"context"
	"math/rand"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// TestIVFFlatIndex checks that an ivfflat index builds IVF-Flat indexes
// of its lists (under a key of its own, apart from the graph an hnsw
// index of the same column has), that ivfflat.probes is honoured (probing
// every list is exact search, one list finds less), and that a restart
// reads the IVF files.
func TestIVFFlatIndex(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_ivf", Table: def.ID, Method: "ivfflat",
		Columns: []int{def.Columns[1].ID}, OpClass: catalog.OpClassCosine, Options: map[string]string{"lists": "20"}}
	hnsw := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_hnsw", Table: def.ID, Method: "hnsw",
		Columns: []int{def.Columns[1].ID}, OpClass: catalog.OpClassCosine}
	spec, _ := vectorSpec(ix, def)
	if hspec, _ := vectorSpec(hnsw, def); spec.params.Lists != 20 || hspec.params.Lists != 0 || spec.key == hspec.key {
		t.Fatalf("ivfflat spec %+v, hnsw spec %+v", spec, hspec)
	}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	rng := rand.New(rand.NewSource(9))
	const dim = 16
	vecs := clustered(rng, 3000, dim)
	for s := 0; s < 2; s++ {
		insertSegment(t, db, def, vecs, s*1500, (s+1)*1500)
	}
	waitVectorBuilds(t, db)
	rows := map[int64][]float32{}
	tx = db.Begin()
	for _, r := range scanRows(t, tx, def.ID, true) {
		rows[r[2].(int64)] = vecs[r[0].(int)]
	}
	tx.Rollback()

	queries := clustered(rng, 20, dim)
	recallAt := func(probes int) float64 {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		total := 0.0
		for _, q := range queries {
			hits, err := tx.VectorSearch(context.Background(), def.ID, ix, q, 10, VectorEffort{Ef: 40, Probes: probes}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 10 {
				t.Fatalf("probes %d: %d hits", probes, len(hits))
			}
			total += recall(hits, exactTop(rows, q, 10))
		}
		return total / float64(len(queries))
	}
	one, all := recallAt(1), recallAt(20)
	t.Logf("recall@10: %.3f at 1 probe, %.3f at 20", one, all)
	if all < 1 || one >= all {
		t.Fatalf("recall@10 %.3f at 1 probe, %.3f at every list", one, all)
	}

	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	for _, seg := range db.published.Load().tables[def.ID].segments {
		if x := db.segVectorIndex(seg, def, spec); x == nil || x.Params().Lists != 20 {
			t.Fatalf("segment %s: index %v after a restart", seg.path, x)
		}
	}
	if r := recallAt(20); r < 1 {
		t.Fatalf("after a restart: recall@10 %.3f", r)
	}
}
