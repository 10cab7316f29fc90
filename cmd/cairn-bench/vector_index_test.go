package main

import (
	"bytes"
	"context"
	"os"
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
// server: the table loads by binary COPY, the index builds, and both
// queries answer every query with the exact top-10 (or, once an
// approximate index answers, nearly so at this size).
func TestVectorIndexCairn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	ctx := context.Background()
	d := newVIData(800, 16, 8, 10)
	qs := d.queries(20)
	s, err := cairnSystem(ctx, startTestServer(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.conn.Close(ctx)
	if _, err := s.load(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.buildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []viConfig{{ef: 40, iterative: "off"}, {ef: 40, filtered: true, iterative: "relaxed_order"}} {
		r, err := s.measure(ctx, c, qs, 2)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if r.recall < 0.9 || r.full != len(qs) {
			t.Errorf("%+v: recall %.3f, %d of %d queries answered in full", c, r.recall, r.full, len(qs))
		}
	}
}
