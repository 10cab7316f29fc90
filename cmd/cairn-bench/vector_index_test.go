package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestRecall(t *testing.T) {
	for _, c := range []struct {
		got, exact []int64
		want       float64
	}{
		{[]int64{1, 2, 3}, []int64{3, 2, 1}, 1},
		{[]int64{1, 2, 9}, []int64{1, 2, 3, 4}, 0.5},
		{nil, []int64{1, 2}, 0},
		{nil, nil, 1},
	} {
		if r := recall(c.got, c.exact); r != c.want {
			t.Errorf("recall(%v, %v) = %v, want %v", c.got, c.exact, r, c.want)
		}
	}
}

func TestPgvectorBinary(t *testing.T) {
	want := []byte{0, 2, 0, 0, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0} // 2 dims, unused, 1.0, -2.0
	if got := pgvectorBinary([]float32{1, -2}); !bytes.Equal(got, want) {
		t.Errorf("pgvectorBinary = % x, want % x", got, want)
	}
}

func TestProcessMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no /proc/self/smaps_rollup")
	}
	pid := os.Getpid()
	if m := processMemory(pid); !strings.HasPrefix(m, "RSS ") || strings.HasPrefix(m, "RSS 0 MiB") {
		t.Errorf("processMemory = %q", m)
	}
	if m := processTreeMemory(pid); !strings.HasPrefix(m, "PSS ") || strings.HasPrefix(m, "PSS 0 MiB") {
		t.Errorf("processTreeMemory = %q", m)
	}
}

// TestVectorIndexCairn runs the mode's cairn half against an in-process
// server on both datasets (clustered in the full space, and on a 4-d
// latent space): the table loads by binary COPY, the index builds, and
// both queries answer every query with the exact top-10 (or, once an
// approximate index answers, nearly so at this size).
func TestVectorIndexCairn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	ctx := context.Background()
	s, err := cairnSystem(ctx, startTestServer(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.conn.Close(ctx)
	for _, latent := range []int{0, 4} {
		d := newVIData(800, 16, 8, latent, 10)
		qs := d.queries(20)
		if _, err := s.load(ctx, d); err != nil {
			t.Fatal(err)
		}
		if _, err := s.buildIndex(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []viConfig{{ef: 40, iterative: "off"}, {ef: 40, filtered: true, iterative: "relaxed_order"}} {
			r, err := s.measure(ctx, c, qs, 2)
			if err != nil {
				t.Fatalf("latent %d, %+v: %v", latent, c, err)
			}
			if r.recall < 0.9 || r.full != len(qs) {
				t.Errorf("latent %d, %+v: recall %.3f, %d of %d queries answered in full", latent, c, r.recall, r.full, len(qs))
			}
		}
	}
}

// TestLatentData checks the latent dataset's shape: unit vectors of the
// full width that lie close to a latentDim-dimensional subspace, so a
// row's nearest neighbour is far nearer than on the clustered dataset.
func TestLatentData(t *testing.T) {
	nearest := func(d *viData) float64 { // mean cosine of a row to its nearest other row
		var sum float64
		for i := range 50 {
			best := -1.0
			for j := range len(d.tags) {
				if j == i {
					continue
				}
				var dot float64
				for k, x := range d.vector(i) {
					dot += float64(x * d.vector(j)[k])
				}
				best = max(best, dot)
			}
			sum += best
		}
		return sum / 50
	}
	flat, latent := newVIData(2000, 384, 8, 0, 10), newVIData(2000, 384, 8, 8, 10)
	for i := range len(latent.tags) {
		var norm float64
		for _, x := range latent.vector(i) {
			norm += float64(x * x)
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Fatalf("row %d has squared norm %v", i, norm)
		}
	}
	if f, l := nearest(flat), nearest(latent); l < 0.9 || l <= f+0.2 {
		t.Errorf("nearest-neighbour cosine: latent %.3f, clustered %.3f", l, f)
	}
}

// TestStreamedVectorData streams a dataset of two chunks: its exact
// answers are those computed over the rows it wrote, and the rows load
// into a server through the converting COPY with every vector intact.
func TestStreamedVectorData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	const rows, dim = viChunkRows + 300, 8
	d := newVIData(0, dim, 8, 4, 10)
	qs := d.queries(5)
	path := t.TempDir() + "/rows"
	if err := d.stream(rows, qs, path); err != nil {
		t.Fatal(err)
	}
	// Read the compact rows back into a reference.
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ref := &reference{dim: dim}
	var tags []int32
	for off := 0; off < len(f); {
		ref.ids = append(ref.ids, int64(binary.LittleEndian.Uint32(f[off:])))
		tags = append(tags, int32(binary.LittleEndian.Uint32(f[off+4:])))
		for i := range dim {
			ref.emb = append(ref.emb, math.Float32frombits(binary.LittleEndian.Uint32(f[off+8+4*i:])))
		}
		off += 8 + 4*dim
		off += 2 + int(binary.LittleEndian.Uint16(f[off:]))
	}
	if len(ref.ids) != rows || ref.ids[rows-1] != rows {
		t.Fatalf("%d rows written, last id %d", len(ref.ids), ref.ids[len(ref.ids)-1])
	}
	for i, q := range qs {
		_, exact := ref.topCosineWhere(q.vec, topK, func(int) bool { return true })
		_, filtered := ref.topCosineWhere(q.vec, topK, func(j int) bool { return tags[j] == q.tag })
		if !slices.Equal(q.exact, exact) || !slices.Equal(q.exactFiltered, filtered) {
			t.Errorf("query %d: streamed exact %v / %v, recomputed %v / %v", i, q.exact, q.exactFiltered, exact, filtered)
		}
	}
	ctx := context.Background()
	s, err := cairnSystem(ctx, startTestServer(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.conn.Close(ctx)
	if _, err := s.loadFile(ctx, path, rows, dim); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{1, viChunkRows, rows} {
		var emb []float32
		var tag int32
		if err := s.conn.QueryRow(ctx, "SELECT tag, emb FROM "+viTable+" WHERE id = $1", id).Scan(&tag, &emb); err != nil {
			t.Fatal(err)
		}
		if want := ref.emb[(id-1)*dim : id*dim]; tag != tags[id-1] || !slices.Equal(emb, want) {
			t.Errorf("row %d: tag %d, emb %v; wrote tag %d, emb %v", id, tag, emb, tags[id-1], want)
		}
	}
}
