package functions

// Tests of the functions drivers' metadata calls use: parse_ident,
// to_reg*, pg_get_serial_sequence, set_config, current_schemas against a
// catalog, pg_advisory_unlock_all.

import (
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func TestParseIdent(t *testing.T) {
	A := "text[]"
	runCases(t, []tc{
		{"parse_ident", []string{"'books'"}, "{books}", A},
		{"parse_ident", []string{"'public.Books'"}, "{public,books}", A},
		{"parse_ident", []string{`'"Public"."My Table"'`}, `{Public,"My Table"}`, A},
		{"parse_ident", []string{`'"a""b".C'`}, `{"a\"b",c}`, A},
		{"parse_ident", []string{"' a . b '"}, "{a,b}", A},
		{"parse_ident", []string{"'a.b.c.d'"}, "{a,b,c,d}", A},
		{"parse_ident", []string{"'_x$1.Ünïcode'"}, "{_x$1,Ünïcode}", A},
		{"parse_ident", []string{"'a.b junk'", "false"}, "{a,b}", A},
		{"parse_ident", []string{"'a.b()'", "false"}, "{a,b}", A},
		{"parse_ident", []string{"'a.b junk'"}, `ERROR 22023: string is not a valid identifier: "a.b junk"`, ""},
		{"parse_ident", []string{"'a.'"}, `ERROR 22023: string is not a valid identifier: "a."`, ""},
		{"parse_ident", []string{"'.a'"}, `ERROR 22023: string is not a valid identifier: ".a"`, ""},
		{"parse_ident", []string{"''"}, `ERROR 22023: string is not a valid identifier: ""`, ""},
		{"parse_ident", []string{"'1a'"}, `ERROR 22023: string is not a valid identifier: "1a"`, ""},
		{"parse_ident", []string{`'"unclosed'`}, `ERROR 22023: string is not a valid identifier: ""unclosed"`, ""},
		{"parse_ident", []string{`'""'`}, `ERROR 22023: string is not a valid identifier: """"`, ""},
		{"parse_ident", []string{"NULL::text"}, NULL, A},
	})
}

// The OIDs print as numbers here: naming them is the output path's job.
func TestToReg(t *testing.T) {
	runCatalogCases(t, []tc{
		{"to_regclass", []string{"'mem'"}, "mem", "regclass"},
		{"to_regclass", []string{"'other.mem'"}, "other.mem", "regclass"},
		{"to_regclass", []string{"'nope'"}, NULL, "regclass"},
		{"to_regclass", []string{"'100001'"}, NULL, "regclass"},
		{"to_regclass", []string{"'-'"}, NULL, "regclass"},
		{"to_regtype", []string{"'int4'"}, "integer", "regtype"},
		{"to_regtype", []string{"'nope'"}, NULL, "regtype"},
		{"to_regproc", []string{"'nope'"}, NULL, "regproc"},
		{"to_regnamespace", []string{"'nope'"}, NULL, "regnamespace"},
		{"to_regrole", []string{"'nope'"}, NULL, "regrole"},
		{"to_regclass", []string{"NULL::text"}, NULL, "regclass"},
	})
}

// serialCatalog adds pg_get_serial_sequence's lookup to fakeCatalog: mem.id
// draws from public.mem_id_seq, mem.b has no sequence.
type serialCatalog struct{ fakeCatalog }

func (serialCatalog) SerialSequence(table, column string) (string, bool, error) {
	if table != "mem" {
		return "", false, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", table)
	}
	switch column {
	case "id":
		return "public.mem_id_seq", true, nil
	case "b":
		return "", false, nil
	}
	return "", false, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"mem\" does not exist", column)
}

// settingSession adds set_config's writes to fakeSession, recording them.
type settingSession struct {
	fakeSession
	set *[]string
}

func (s settingSession) SetSetting(name, value string, reset, local bool) (string, error) {
	if name == "nope" {
		return "", pgerr.New(pgerrcode.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if reset {
		value = "default"
	}
	if local {
		value += " (local)"
	}
	*s.set = append(*s.set, name+"="+value)
	return value, nil
}

// namespaceCatalog knows schemas public and pg_catalog only.
type namespaceCatalog struct{ fakeCatalog }

func (c namespaceCatalog) Lookup(f types.Family, text string) (int64, error) {
	if f == types.RegNamespace {
		switch text {
		case "public":
			return 2200, nil
		case "pg_catalog":
			return 11, nil
		}
		return 0, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", text)
	}
	return c.fakeCatalog.Lookup(f, text)
}

func TestSessionFunctionsWithCatalog(t *testing.T) {
	var set []string
	for _, c := range []struct {
		cat     Catalog
		session SessionInfo
		fn      string
		args    []any
		ts      []types.T
		want    string
	}{
		{serialCatalog{}, fakeSession{}, "pg_get_serial_sequence", []any{"mem", "id"}, []types.T{tText, tText}, "public.mem_id_seq"},
		{serialCatalog{}, fakeSession{}, "pg_get_serial_sequence", []any{"mem", "b"}, []types.T{tText, tText}, NULL},
		{serialCatalog{}, fakeSession{}, "pg_get_serial_sequence", []any{"mem", "c"}, []types.T{tText, tText}, `ERROR 42703: column "c" of relation "mem" does not exist`},
		{serialCatalog{}, fakeSession{}, "pg_get_serial_sequence", []any{"t", "id"}, []types.T{tText, tText}, `ERROR 42P01: relation "t" does not exist`},
		{fakeCatalog{}, fakeSession{}, "pg_get_serial_sequence", []any{"mem", "id"}, []types.T{tText, tText}, NULL},
		{fakeCatalog{}, settingSession{set: &set}, "set_config", []any{"work_mem", "8MB", false}, []types.T{tText, tText, tBool}, "8MB"},
		{fakeCatalog{}, settingSession{set: &set}, "set_config", []any{"work_mem", nil, true}, []types.T{tText, tText, tBool}, "default (local)"},
		{fakeCatalog{}, settingSession{set: &set}, "set_config", []any{"work_mem", "1MB", nil}, []types.T{tText, tText, tBool}, "1MB"},
		{fakeCatalog{}, settingSession{set: &set}, "set_config", []any{"nope", "1", false}, []types.T{tText, tText, tBool}, `ERROR 42704: unrecognized configuration parameter "nope"`},
		{fakeCatalog{}, settingSession{set: &set}, "set_config", []any{nil, "1", false}, []types.T{tText, tText, tBool}, "ERROR 22004: SET requires parameter name"},
		{fakeCatalog{}, fakeSession{}, "set_config", []any{"work_mem", "8MB", false}, []types.T{tText, tText, tBool}, `ERROR 42704: unrecognized configuration parameter "work_mem"`},
		// fakeSession's path is ws, public; ws does not exist.
		{namespaceCatalog{}, fakeSession{}, "current_schemas", []any{true}, []types.T{tBool}, "{pg_catalog,public}"},
		{namespaceCatalog{}, fakeSession{}, "current_schemas", []any{false}, []types.T{tBool}, "{public}"},
	} {
		ctx := testCtx(nil)
		ctx.Catalog, ctx.Session = c.cat, c.session
		ov, targets, err := Resolve(c.fn, c.ts)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		got := NULL
		switch v, err := ov.Eval(ctx, c.args); {
		case err != nil:
			got = errText(err)
		case v != nil:
			got = outputText(ctx, v, ResultType(ov, targets))
		}
		if got != c.want {
			t.Errorf("%s(%v) = %q, want %q", c.fn, c.args, got, c.want)
		}
	}
	if want := []string{"work_mem=8MB", "work_mem=default (local)", "work_mem=1MB"}; len(set) != len(want) || set[0] != want[0] || set[1] != want[1] || set[2] != want[2] {
		t.Errorf("set_config set %v, want %v", set, want)
	}
}

// A reg* value of 0 names no object and prints as "-", with a catalog or
// without.
func TestRegZeroPrintsDash(t *testing.T) {
	for _, cat := range []Catalog{nil, fakeCatalog{}} {
		ctx := testCtx(nil)
		ctx.Catalog = cat
		for _, f := range []types.Family{types.RegClass, types.RegType, types.RegProc, types.RegNamespace, types.RegRole} {
			from := types.T{Family: f, Mod: -1}
			if v, err := Cast(ctx, int64(0), from, tText, true); err != nil || v != "-" {
				t.Errorf("0::%s::text = %v, %v", from, v, err)
			}
		}
	}
}
