package functions

import (
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

type fakeSession struct{}

func (fakeSession) User() string          { return "agent" }
func (fakeSession) Database() string      { return "memories" }
func (fakeSession) CurrentSchema() string { return "ws" }
func (fakeSession) SearchPath() []string  { return []string{"ws", "public"} }
func (fakeSession) BackendPID() int32     { return 4242 }
func (fakeSession) Setting(name string) (string, bool) {
	if name == "timezone" {
		return "UTC", true
	}
	return "", false
}

func TestSessionInfo(t *testing.T) {
	ctx := testCtx(nil)
	ctx.Session = fakeSession{}
	for _, c := range []struct {
		name string
		args []any
		ts   []types.T
		want string
	}{
		{"version", nil, nil, "PostgreSQL 15.6 (cairn) on x86_64-pc-linux-gnu, compiled by Go"},
		{"current_database", nil, nil, "memories"},
		{"current_catalog", nil, nil, "memories"},
		{"current_schema", nil, nil, "ws"},
		{"current_user", nil, nil, "agent"},
		{"session_user", nil, nil, "agent"},
		{"user", nil, nil, "agent"},
		{"current_setting", []any{"TimeZone"}, []types.T{types.TextT}, "UTC"},
		{"current_setting", []any{"nope", true}, []types.T{types.TextT, types.BoolT}, NULL},
		{"current_setting", []any{"nope"}, []types.T{types.TextT}, `ERROR 42704: unrecognized configuration parameter "nope"`},
		{"pg_backend_pid", nil, nil, "4242"},
		{"current_schemas", []any{true}, []types.T{types.BoolT}, "{pg_catalog,ws,public}"},
		{"current_schemas", []any{false}, []types.T{types.BoolT}, "{ws,public}"},
	} {
		ov, targets, err := Resolve(c.name, c.ts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		v, err := ov.Eval(ctx, c.args)
		got := NULL
		switch {
		case err != nil:
			got = errText(err)
		case v != nil:
			got = outputText(ctx, v, ResultType(ov, targets))
		}
		if got != c.want {
			t.Errorf("%s(%v) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
	// Without a session: defaults.
	ov, _, _ := Resolve("current_schema", nil)
	if v, _ := ov.Eval(testCtx(nil), nil); v != "public" {
		t.Errorf("current_schema() without a session = %v", v)
	}
	if ov, _, _ := Resolve("current_user", nil); ResultType(ov, nil).String() != "name" {
		t.Errorf("current_user is of type %s", ResultType(ov, nil))
	}
}

func TestGenRandomUUID(t *testing.T) {
	for _, name := range []string{"gen_random_uuid", "uuid_generate_v4"} {
		ov, _, err := Resolve(name, nil)
		if err != nil || ov.Volatility != Volatile {
			t.Fatalf("%s: %v volatile=%v", name, err, ov != nil && ov.Volatility == Volatile)
		}
		a, _ := ov.Eval(nil, nil)
		b, _ := ov.Eval(nil, nil)
		u := a.([16]byte)
		if a == b || u[6]>>4 != 4 || u[8]>>6 != 2 {
			t.Errorf("%s gave %x and %x", name, a, b)
		}
		if s := types.FormatText(a, types.UUIDT); len(s) != 36 || s[14] != '4' {
			t.Errorf("%s formats as %s", name, s)
		}
	}
}
