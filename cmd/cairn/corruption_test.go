package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestCorruption damages a data directory the ways disks and crashes do —
// a WAL cut short, a flipped byte in the last or in an earlier WAL record,
// a truncated, garbage or bit-flipped Parquet segment, a garbage manifest
// or catalog — and starts the real server on it. It must either start and
// say what it dropped (then answer exactly the surviving transactions), or
// refuse to start with a message naming the damaged file; it must never
// panic nor answer wrong rows.
func TestCorruption(t *testing.T) {
	base := t.TempDir()
	// 5 transactions of 120 rows each become Parquet segments (the flush
	// threshold is 100 rows); 8 of 3 rows stay in the WAL only.
	flags := []string{"--flush-rows", "100"}
	p := startLogged(t, base, flags...)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE t (id bigint PRIMARY KEY, v text, emb float4[])`)
	var txRows [][]int64 // the ids each transaction inserted
	id := int64(0)
	insertTx := func(n int) {
		var sb strings.Builder
		sb.WriteString("INSERT INTO t VALUES ")
		var ids []int64
		for i := 0; i < n; i++ {
			id++
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'row %d', '%s')", id, id, corruptVec(id))
			ids = append(ids, id)
		}
		mustExec(t, conn, sb.String())
		txRows = append(txRows, ids)
	}
	for i := 0; i < 5; i++ {
		insertTx(120)
	}
	// Wait for the flushes to write the segments. segs lists those the
	// table's manifest names (compaction may have merged the first ones
	// and left their files to be deleted later).
	segs := func(dir string) []string {
		manifests, _ := filepath.Glob(filepath.Join(dir, "tables", "*", "*", "manifest.json"))
		var m []string
		for _, f := range manifests {
			var man struct {
				Segments []struct {
					File string `json:"file"`
				} `json:"segments"`
			}
			if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &man) == nil {
				for _, s := range man.Segments {
					m = append(m, filepath.Join(filepath.Dir(f), s.File))
				}
			}
		}
		sort.Strings(m)
		return m
	}
	for deadline := time.Now().Add(10 * time.Second); len(segs(base)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no segment was written")
		}
	}
	for i := 0; i < 8; i++ {
		insertTx(3)
	}
	p.kill() // the WAL keeps every record

	walFiles, _ := filepath.Glob(filepath.Join(base, "wal", "*.log"))
	sort.Strings(walFiles)
	var wal string
	for _, f := range walFiles {
		if len(walRecords(t, f)) > 0 {
			wal = f
		}
	}
	if wal == "" {
		t.Fatal("no wal file")
	}
	recs := walRecords(t, wal)
	if len(recs) < 10 {
		t.Fatalf("%d wal records", len(recs))
	}
	// rel maps a file of base to its copy in dir.
	rel := func(dir, path string) string {
		r, err := filepath.Rel(base, path)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, r)
	}
	all := slices.Concat(txRows...)
	withoutLast := slices.Concat(txRows[:len(txRows)-1]...)

	type result int
	const (
		starts  result = iota // and answers want
		refuses               // naming the file
		either                // starts (answering want, or erring naming the file) or refuses
	)
	for _, tc := range []struct {
		name   string
		damage func(dir string) string // returns the damaged file's name
		result result
		want   []int64
		logs   string // what the log must say when it starts
	}{
		{"wal cut short", func(dir string) string {
			f := rel(dir, wal)
			last := recs[len(recs)-1]
			must(t, os.Truncate(f, last.off+last.size/2))
			return f
		}, starts, withoutLast, "dropping it"},
		{"wal last record flipped", func(dir string) string {
			f := rel(dir, wal)
			last := recs[len(recs)-1]
			flip(t, f, last.off+last.size-5)
			return f
		}, starts, withoutLast, "dropping it"},
		{"wal earlier record flipped", func(dir string) string {
			f := rel(dir, wal)
			r := recs[len(recs)-4]
			flip(t, f, r.off+r.size/2)
			return f
		}, refuses, nil, ""},
		{"wal earlier record length flipped", func(dir string) string {
			f := rel(dir, wal)
			r := recs[len(recs)-3]
			flip(t, f, r.off+1)
			return f
		}, refuses, nil, ""},
		{"segment truncated", func(dir string) string {
			f := rel(dir, segs(base)[0])
			st, _ := os.Stat(f)
			must(t, os.Truncate(f, st.Size()/2))
			return f
		}, refuses, nil, ""},
		{"segment garbage", func(dir string) string {
			f := rel(dir, segs(base)[0])
			st, _ := os.Stat(f)
			b := make([]byte, st.Size())
			for i := range b {
				b[i] = byte(i*7919 + 13)
			}
			must(t, os.WriteFile(f, b, 0o644))
			return f
		}, refuses, nil, ""},
		{"segment byte flipped", func(dir string) string {
			f := rel(dir, segs(base)[0])
			st, _ := os.Stat(f)
			flip(t, f, st.Size()/2)
			return f
		}, either, all, ""},
		{"segment missing", func(dir string) string {
			f := rel(dir, segs(base)[0])
			must(t, os.Remove(f))
			return f
		}, refuses, nil, ""},
		{"manifest garbage", func(dir string) string {
			f := filepath.Join(filepath.Dir(rel(dir, segs(base)[0])), "manifest.json")
			must(t, os.WriteFile(f, []byte(`{"segments": [`), 0o644))
			return f
		}, refuses, nil, ""},
		{"catalog garbage", func(dir string) string {
			f := filepath.Join(dir, "catalog.json")
			must(t, os.WriteFile(f, []byte("\x00\x01garbage"), 0o644))
			return f
		}, refuses, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if out, err := exec.Command("cp", "-a", base, dir).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			os.Remove(filepath.Join(dir, "LOCK"))
			damaged := tc.damage(dir)
			p := startLogged(t, dir, flags...)
			defer p.kill()
			log := p.log()
			if p.addr == "" {
				code := p.wait(10 * time.Second)
				log = p.log()
				noPanic(t, log)
				if tc.result == starts {
					t.Fatalf("refused to start (exit %d):\n%s", code, log)
				}
				if code == 0 {
					t.Fatalf("exited 0 without serving:\n%s", log)
				}
				if !strings.Contains(log, damaged) {
					t.Fatalf("refused to start without naming %s:\n%s", damaged, log)
				}
				t.Logf("refused: %s", lastLine(log))
				return
			}
			if tc.result == refuses {
				t.Fatalf("started on a damaged %s:\n%s", damaged, log)
			}
			if tc.logs != "" && !(strings.Contains(log, tc.logs) && strings.Contains(log, damaged)) {
				t.Errorf("the log does not report what was dropped (%q, %s):\n%s", tc.logs, damaged, log)
			}
			conn := p.connect(t)
			got, err := corruptRead(conn)
			switch {
			case err != nil && tc.result == either && strings.Contains(err.Error(), filepath.Base(damaged)):
				t.Logf("query error names the file: %v", err)
			case err != nil:
				t.Fatalf("query: %v", err)
			case !slices.Equal(got, tc.want):
				t.Fatalf("rows %d..., want %d rows (%d...)", len(got), len(tc.want), tc.want[:3])
			}
			noPanic(t, p.log())
		})
	}
}

// corruptVec is row id's embedding.
func corruptVec(id int64) string {
	var parts []string
	for _, f := range corruptVecValues(id) {
		parts = append(parts, fmt.Sprint(f))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func corruptVecValues(id int64) []float32 {
	out := make([]float32, 16)
	for i := range out {
		out[i] = math.Float32frombits(uint32(id*2654435761+int64(i)*40503) & 0x3fffffff)
	}
	return out
}

// corruptRead reads the table back, checking every column, and returns the
// ids.
func corruptRead(conn *pgx.Conn) ([]int64, error) {
	rows, err := conn.Query(context.Background(), `SELECT id, v, emb FROM t ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		var v string
		var emb []float32
		if err := rows.Scan(&id, &v, &emb); err != nil {
			return nil, err
		}
		if v != fmt.Sprintf("row %d", id) || !slices.Equal(emb, corruptVecValues(id)) {
			return nil, fmt.Errorf("wrong row: %d %q %v", id, v, emb)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

type walRec struct{ off, size int64 }

// walRecords lists the frames of a WAL file ([len u32][crc u32][payload]).
func walRecords(t *testing.T, path string) []walRec {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []walRec
	for off := int64(0); off+8 <= int64(len(b)); {
		n := int64(binary.LittleEndian.Uint32(b[off:]))
		if n == 0 {
			break // the zeros a WAL file is filled with ahead of its records
		}
		out = append(out, walRec{off: off, size: 8 + n})
		off += 8 + n
	}
	return out
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
