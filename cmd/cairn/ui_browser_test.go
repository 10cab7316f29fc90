package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/functions/embedding"
	"github.com/cairn-db/cairn/wire"
	"github.com/cairn-db/cairn/wire/mcp"
)

// TestUIBrowser drives the memory explorer in Debian's chromium,
// headless: log in with ?token=, search a table (hybrid, with the test
// embedding endpoint), open a hit's row, read an agent's timeline, and
// cancel then terminate a pgx session's pg_sleep with the buttons of the
// running queries' page. Screenshots of each step are written to
// $CAIRN_TEST_ARTIFACTS when set (CI keeps that folder), else to the
// test's temporary directory; the test logs where.
func TestUIBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (%v): run testdata/setup/clients.sh", err)
	}
	artifacts := os.Getenv("CAIRN_TEST_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	artifacts = filepath.Join(artifacts, "ui-browser")
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", artifacts)

	e := startEmbedEndpoint(t)
	emb, err := embedding.New(embedding.Config{URL: e.URL + "/v1", Model: "test-embed", Key: "k3y"})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, "", session.Options{Embedder: emb})
	api := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret"})
	conn := ts.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE notes (id int PRIMARY KEY, text text, embedding float4[], metadata jsonb)`,
		`INSERT INTO notes (id, text, metadata) VALUES (1, 'deploys go out on tuesdays <script>document.title="pwned"</script>', '{"team": "ops", "days": ["tue"]}'),
		  (2, 'the cafeteria serves soup on fridays', '{}')`,
		`UPDATE notes SET embedding = embed(text)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	store := &mcp.Store{DB: mcp.PgxDB{Conn: conn}}
	for _, tr := range []mcp.TraceInput{
		{Agent: "codex", Action: "ran the tests", Reasoning: "before the release", Result: "failure", ToolOutput: "--- FAIL: TestDeploy"},
		{Agent: "codex", Action: "fixed the deploy script", Result: "success", Tags: []string{"deploy"}},
	} {
		if _, err := store.TraceStore(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // the tests may run as root, where chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	// The terminate button asks first (window.confirm): say yes, from
	// another goroutine as Listen requires.
	dialogs := make(chan string, 4)
	accept := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		return err
	})
	err = chromedp.Listen(bctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs <- d.Message
			go chromedp.Do(bctx, accept)
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, t)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(artifacts, name+".png"), png, 0o644)
		})
	}
	do := func(step string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			chromedp.Do(bctx, shot(step+"-failed"))
			t.Fatalf("%s: %v", step, err)
		}
	}
	get := func(a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(bctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	do("login",
		chromedp.Navigate(api.base+"/ui/?token=s3cret"),
		chromedp.WaitVisible(`a[href="/ui/tables/public/notes"]`),
		shot("1-workspaces"),
	)
	if location := get(chromedp.Location()); location != api.base+"/ui/" {
		t.Errorf("after ?token= the browser is at %s, want the page without the token", location)
	}
	do("search",
		chromedp.Click(`a[href="/ui/tables/public/notes"]`),
		chromedp.WaitVisible(`#q`),
		chromedp.SendKeys(`#q`, "deploys tuesdays"),
		chromedp.Click(`#search`),
		chromedp.WaitVisible(`#hits`),
		shot("2-search"),
	)
	// Hybrid: both rows, each with its vector and keyword parts.
	heading, mode, hits := get(chromedp.Text(`h1`)), get(chromedp.Text(`#mode`)), get(chromedp.Text(`#hits tbody`))
	if heading != "public.notes" || !strings.HasPrefix(mode, "hybrid: ") || !strings.Contains(hits, `<script>document.title="pwned"</script>`) || !strings.Contains(hits, "cafeteria") ||
		!regexp.MustCompile(`^0\.\d{4}\t0\.\d{4}\t0\.\d{4}\tdeploys go out`).MatchString(hits) {
		t.Errorf("search: heading %q, mode %q, hits:\n%s", heading, mode, hits)
	}
	do("row",
		chromedp.Click(`#hits a.open[href$="?id=1"]`),
		chromedp.WaitVisible(`#row`),
		shot("3-row"),
	)
	rowText, title := get(chromedp.Text(`#row pre.json`)), get(chromedp.Title())
	if want := "{\n  \"days\": [\n    \"tue\"\n  ],\n  \"team\": \"ops\"\n}"; rowText != want || title == "pwned" {
		t.Errorf("row view: JSON %q (want %q), title %q", rowText, want, title)
	}

	do("traces",
		chromedp.Click(`nav a[href="/ui/traces"]`),
		chromedp.WaitVisible(`#timeline`),
		shot("4-traces"),
	)
	if timeline := get(chromedp.Text(`#timeline`)); !regexp.MustCompile(`(?s)fixed the deploy script.*ran the tests.*before the release.*--- FAIL: TestDeploy`).MatchString(timeline) {
		t.Errorf("timeline, newest first, not as expected:\n%s", timeline)
	}

	for i, action := range []string{"cancel", "terminate"} {
		sleeper := ts.connect(t)
		pid := sleeper.PgConn().PID()
		errc := make(chan error, 1)
		go func() {
			_, err := sleeper.Exec(ctx, "SELECT pg_sleep(60)")
			errc <- err
		}()
		button := fmt.Sprintf(`tr[data-pid="%d"] button.%s`, pid, action)
		do(action,
			chromedp.Navigate(api.base+"/ui/activity"),
			chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
				// Reload until the session shows its statement.
				for {
					n, err := chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, button))(ctx, t)
					if err != nil || n == 1 {
						return err
					}
					time.Sleep(50 * time.Millisecond)
					if _, err := chromedp.Reload()(ctx, t); err != nil {
						return err
					}
				}
			}),
			shot(fmt.Sprintf("%d-activity-%s", 5+2*i, action)),
			chromedp.Click(button),
			chromedp.WaitVisible(`#done`),
			shot(fmt.Sprintf("%d-%s-done", 6+2*i, action)),
		)
		if action == "terminate" {
			select {
			case msg := <-dialogs:
				if want := fmt.Sprintf("Terminate session %d?", pid); msg != want {
					t.Errorf("terminate asked %q, want %q", msg, want)
				}
			default:
				t.Error("terminate did not ask first")
			}
		}
		want := fmt.Sprintf("pg_%s_backend(%d) returned true", action, pid)
		if done := get(chromedp.Text(`#done`)); done != want {
			t.Errorf("%s: the page says %q, want %q", action, done, want)
		}
		select {
		case err := <-errc:
			var pe *pgconn.PgError
			code := map[string]string{"cancel": pgerrcode.QueryCanceled, "terminate": pgerrcode.AdminShutdown}[action]
			if !errors.As(err, &pe) || pe.Code != code {
				t.Errorf("%s: pg_sleep ended with %v, want SQLSTATE %s", action, err, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: pg_sleep still runs", action)
		}
	}
}
