package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cairn-db/cairn/wire"
)

// metricName finds the metric names of a PromQL expression: cairn's,
// the Go runtime's and the process's.
var metricName = regexp.MustCompile(`\b(?:cairn|go|process)_[a-z_]+\b`)

// TestGrafanaDashboard: the dashboard in the repository is valid JSON
// whose every panel queries something, and every metric it names is one
// that /metrics serves (a histogram's _bucket, _sum and _count series
// are its family).
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile("grafana/cairn-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	if dash.Title == "" || len(dash.Panels) == 0 {
		t.Fatalf("dashboard %q has %d panels", dash.Title, len(dash.Panels))
	}

	ts := startServer(t, "")
	mustExec(t, ts.connect(t), `CREATE TABLE g (id int PRIMARY KEY)`)
	api := startHTTP(t, ts, wire.HTTPOptions{})
	status, _, out := api.do("GET", "/metrics", nil)
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			names := metricName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: %q names no metric", p.Title, tg.Expr)
			}
			for _, name := range names {
				used++
				family := name
				if families[family] == nil {
					for _, suffix := range []string{"_bucket", "_sum", "_count"} {
						if f, ok := strings.CutSuffix(name, suffix); ok && families[f] != nil {
							family = f
						}
					}
				}
				if families[family] == nil {
					t.Errorf("panel %q uses %s, which /metrics does not serve", p.Title, name)
				}
			}
		}
	}
	t.Logf("%d panels, %d metric uses", len(dash.Panels), used)
}
