package syscat

import (
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Tests of what drivers' metadata calls read besides psql's: regproc
// names, pg_settings, pg_get_serial_sequence and serial defaults.

// serialCatalog has a serial column (public.t.id) in a schema on the
// search path and one in a schema off it (app.u.id).
func serialCatalog() *catalog.Catalog {
	return &catalog.Catalog{
		Schemas: map[string]*catalog.SchemaDef{"public": {Name: "public"}, "app": {Name: "app"}},
		Tables: map[uint64]*catalog.TableDef{
			1: {ID: 1, Schema: "public", Name: "t", Columns: []catalog.ColumnDef{
				{ID: 1, Name: "id", Type: types.Int4T, Default: "nextval('public.t_id_seq'::regclass)"},
				{ID: 2, Name: "Note", Type: types.TextT, Default: "'it''s'::text"},
			}},
			2: {ID: 2, Schema: "app", Name: "u", Columns: []catalog.ColumnDef{
				{ID: 1, Name: "id", Type: types.Int8T, Default: "nextval('app.u_id_seq'::regclass)"},
			}},
		},
		Sequences: map[string]*catalog.SequenceDef{
			"public.t_id_seq": {Schema: "public", Name: "t_id_seq", Start: 1, Increment: 1, Min: 1, Max: 1 << 31},
			"app.u_id_seq":    {Schema: "app", Name: "u_id_seq", Start: 1, Increment: 1, Min: 1, Max: 1 << 62},
		},
	}
}

func TestRegProc(t *testing.T) {
	v := NewView(serialCatalog(), "cairn", "cairn", []string{"public"})
	for _, c := range []struct {
		text string
		oid  int64
	}{
		{"array_in", 750}, {"pg_catalog.array_in", 750}, {"int4in", 42}, {"jsonb_send", 3803},
		{"varchartypmodin", 2915}, {"-", 0}, {"750", 750},
		{"vector_in", procs["vector_in"].oid}, {"public.vector_in", procs["vector_in"].oid},
	} {
		if oid, err := v.Lookup(types.RegProc, c.text); err != nil || oid != c.oid {
			t.Errorf("'%s'::regproc = %d, %v; want %d", c.text, oid, err, c.oid)
		}
	}
	for _, text := range []string{"no_such_function", "public.array_in", "app.vector_in"} {
		if _, err := v.Lookup(types.RegProc, text); pgerr.Code(err) != "42883" {
			t.Errorf("'%s'::regproc: error %v, want 42883", text, err)
		}
	}
	// Every function pg_type names prints as its name, and reads back.
	for name, p := range procs {
		got, ok := v.Name(types.RegProc, p.oid)
		if !ok || got != name {
			t.Errorf("regproc %d prints %q, want %q", p.oid, got, name)
		}
		if oid, err := v.Lookup(types.RegProc, got); err != nil || oid != p.oid {
			t.Errorf("'%s'::regproc = %d, %v; want %d", got, oid, err, p.oid)
		}
	}
	// Off the search path pgvector's functions are qualified.
	off := NewView(serialCatalog(), "cairn", "cairn", []string{"app"})
	if got, _ := off.Name(types.RegProc, procs["vector_in"].oid); got != "public.vector_in" {
		t.Errorf("vector_in off the search path prints %q", got)
	}
}

// pg_type names each type's functions ("" for none, OID 0); arrays share
// array_in and the element's typmod functions.
func TestTypeProcs(t *testing.T) {
	v := NewView(serialCatalog(), "cairn", "cairn", []string{"public"})
	r := Lookup("pg_catalog", "pg_type")
	col := map[string]int{}
	for i, c := range r.Cols {
		col[c.Name] = i
	}
	want := map[string][4]string{
		"int4":     {"int4in", "int4send", "", ""},
		"_int4":    {"array_in", "array_send", "", "array_typanalyze"},
		"varchar":  {"varcharin", "varcharsend", "varchartypmodin", ""},
		"_varchar": {"array_in", "array_send", "varchartypmodin", "array_typanalyze"},
		"date":     {"date_in", "date_send", "", ""},
		"vector":   {"vector_in", "vector_send", "vector_typmod_in", ""},
	}
	seen := 0
	for _, row := range r.Rows(v) {
		w, ok := want[row[col["typname"]].(string)]
		if !ok {
			continue
		}
		seen++
		var got [4]string
		for i, name := range []string{"typinput", "typsend", "typmodin", "typanalyze"} {
			got[i], _ = v.Name(types.RegProc, row[col[name]].(int64))
		}
		if got != w {
			t.Errorf("%s: functions %v, want %v", row[col["typname"]], got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d types", seen, len(want))
	}
}

func TestPgSettings(t *testing.T) {
	v := NewView(serialCatalog(), "cairn", "cairn", []string{"public"})
	v.Settings = []Setting{
		{Name: "work_mem", Value: "64MB", Default: "4MB"},
		{Name: "max_index_keys", Value: "32", Default: "32"},
		{Name: "datestyle", Value: "ISO, MDY", Default: "ISO, MDY"},
		{Name: "is_superuser", Value: "on", Default: "on"},
	}
	r := Lookup("pg_catalog", "pg_settings")
	var got [][]any
	for _, row := range r.Rows(v) {
		// name, setting, unit, source, min_val, max_val, boot_val
		got = append(got, []any{row[0], row[1], row[2], row[8], row[9], row[10], row[12]})
	}
	want := [][]any{
		{"DateStyle", "ISO, MDY", nil, "default", nil, nil, "ISO, MDY"},
		{"max_index_keys", "32", nil, "default", "32", "32", "32"},
		{"work_mem", "65536", "kB", "session", "64", "2147483647", "4096"},
	}
	if len(got) != len(want) {
		t.Fatalf("pg_settings rows %v, want %v", got, want)
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("pg_settings row %d: %v, want %v", i, got[i], want[i])
				break
			}
		}
	}
	for _, c := range [][3]string{{"4MB", "kB", "4096"}, {"1GB", "kB", "1048576"}, {"512kB", "kB", "512"}, {"100", "kB", "100"}, {"5s", "ms", "5s"}, {"lots", "kB", "lots"}} {
		if got := inUnit(c[0], c[1]); got != c[2] {
			t.Errorf("inUnit(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestSerialSequence(t *testing.T) {
	v := NewView(serialCatalog(), "cairn", "cairn", []string{"public"})
	for _, c := range []struct {
		table, column, seq string
		ok                 bool
		code               string
	}{
		{"t", "id", "public.t_id_seq", true, ""},
		{"public.T", "id", "public.t_id_seq", true, ""},
		{"app.u", "id", "app.u_id_seq", true, ""},
		{"t", "Note", "", false, ""},
		{"pg_catalog.pg_class", "relname", "", false, ""},
		{"t", "note", "", false, "42703"},
		{"t_id_seq", "id", "", false, "42703"},
		{"pg_class", "nope", "", false, "42703"},
		{"nope", "id", "", false, "42P01"},
	} {
		seq, ok, err := v.SerialSequence(c.table, c.column)
		if seq != c.seq || ok != c.ok || pgerr.Code(err) != c.code {
			t.Errorf("SerialSequence(%q, %q) = %q, %v, %v; want %q, %v, %s", c.table, c.column, seq, ok, err, c.seq, c.ok, c.code)
		}
	}
}

// A serial column's default names its sequence as a regclass value
// prints: bare on the search path, qualified off it.
func TestDefaultExpr(t *testing.T) {
	v := NewView(serialCatalog(), "cairn", "cairn", []string{"public"})
	for _, c := range [][2]string{
		{"nextval('public.t_id_seq'::regclass)", "nextval('t_id_seq'::regclass)"},
		{"nextval('app.u_id_seq'::regclass)", "nextval('app.u_id_seq'::regclass)"},
		{`nextval('public."Odd''s"'::regclass)`, `nextval('"Odd''s"'::regclass)`},
		{"nextval('t_id_seq'::regclass)", "nextval('t_id_seq'::regclass)"},
		{"'it''s'::text", "'it''s'::text"},
		{"nextval('unterminated", "nextval('unterminated"},
	} {
		if got := v.defaultExpr(c[0]); got != c[1] {
			t.Errorf("defaultExpr(%s) = %s, want %s", c[0], got, c[1])
		}
	}
}
