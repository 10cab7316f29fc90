package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// report is what --json writes.
type report struct {
	Date    string            `json:"date"`
	Machine string            `json:"machine"`
	Addr    string            `json:"addr"`
	Table   string            `json:"table"`
	Loaded  bool              `json:"loaded"`
	Load    loadResult        `json:"load"`
	Warmup  int               `json:"warmup_per_client"`
	Verify  bool              `json:"verify_exact_topk"`
	Results []*mixResult      `json:"results"`
	Explain map[string]string `json:"explain_analyze,omitempty"`
}

// printTable writes the results as an aligned table, then a line for
// each result that failed saying why.
func printTable(w io.Writer, results []*mixResult) {
	const row = "%-18s %7v %5v %9v %9v %9v %9v  %s\n"
	fmt.Fprintf(w, row, "query", "clients", "n", "p50 ms", "p90 ms", "p99 ms", "qps", "status")
	var notes []string
	for _, r := range results {
		f := func(x float64) string { return fmt.Sprintf("%.2f", x) }
		fmt.Fprintf(w, row, r.Query, r.Clients, r.N, f(r.P50ms), f(r.P90ms), f(r.P99ms), fmt.Sprintf("%.1f", r.QPS), statusWord(r))
		if !r.ok() {
			notes = append(notes, fmt.Sprintf("%s x%d: %s", r.Query, r.Clients, r.status()))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// statusWord is the short status for the table.
func statusWord(r *mixResult) string {
	switch {
	case r.ok():
		return "ok"
	case r.Errors > 0:
		return "FAIL"
	default:
		return "WRONG"
	}
}

// writeJSON writes rep to path.
func writeJSON(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// machine describes this machine: CPU model, cores, memory, OS.
func machine() string {
	cpu := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v) + ", "
				break
			}
		}
		f.Close()
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%s%d cores%s, %s/%s", cpu, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH)
}

// today is the UTC date and time of the run.
func today() string { return time.Now().UTC().Format(time.RFC3339) }
