package functions

// Tests of the catalog and introspection functions (format_type,
// pg_size_pretty, has_*_privilege, pg_get_*def, ...). Cases that need no
// catalog and give the same answer on PostgreSQL 15 run against the oracle
// too; the others run with a fake Catalog and Session standing in for
// sql/syscat's View and a session.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func TestFormatType(t *testing.T) {
	T := "text"
	runCases(t, []tc{
		{"format_type", []string{"1043", "24"}, "character varying(20)", T},
		{"format_type", []string{"1700", "655366"}, "numeric(10,2)", T},
		{"format_type", []string{"1021", "-1"}, "real[]", T},
		{"format_type", []string{"23", "NULL"}, "integer", T},
		{"format_type", []string{"23", "5"}, "integer", T},
		{"format_type", []string{"0", "NULL"}, "-", T},
		{"format_type", []string{"999999", "NULL"}, "???", T},
		{"format_type", []string{"NULL", "5"}, NULL, T},
		// char: typmod -1 prints the internal name, no typmod the SQL one.
		{"format_type", []string{"1042", "14"}, "character(10)", T},
		{"format_type", []string{"1042", "-1"}, "bpchar", T},
		{"format_type", []string{"1042", "NULL"}, "character", T},
		{"format_type", []string{"1042", "5"}, "character(1)", T},
		{"format_type", []string{"1014", "-1"}, "bpchar[]", T},
		{"format_type", []string{"1014", "NULL"}, "character[]", T},
		{"format_type", []string{"1014", "14"}, "character(10)[]", T},
		{"format_type", []string{"1043", "-1"}, "character varying", T},
		{"format_type", []string{"1043", "4"}, "character varying", T},
		{"format_type", []string{"1043", "2"}, "character varying", T},
		{"format_type", []string{"1043", "65539"}, "character varying(65535)", T},
		{"format_type", []string{"1015", "24"}, "character varying(20)[]", T},
		// numeric: ((p << 16) | s) + 4, the scale an 11-bit signed field.
		{"format_type", []string{"1231", "655366"}, "numeric(10,2)[]", T},
		{"format_type", []string{"1700", "65540"}, "numeric(1,0)", T},
		{"format_type", []string{"1700", "657410"}, "numeric(10,-2)", T},
		{"format_type", []string{"1700", "65537004"}, "numeric(1000,1000)", T},
		{"format_type", []string{"1700", "4"}, "numeric(0,0)", T},
		{"format_type", []string{"1700", "3"}, "numeric", T},
		{"format_type", []string{"1700", "-1"}, "numeric", T},
		{"format_type", []string{"1114", "3"}, "timestamp(3) without time zone", T},
		{"format_type", []string{"1114", "-1"}, "timestamp without time zone", T},
		{"format_type", []string{"1115", "3"}, "timestamp(3) without time zone[]", T},
		{"format_type", []string{"1184", "6"}, "timestamp(6) with time zone", T},
		{"format_type", []string{"1184", "0"}, "timestamp(0) with time zone", T},
		{"format_type", []string{"1184", "NULL"}, "timestamp with time zone", T},
		{"format_type", []string{"1083", "0"}, "time(0) without time zone", T},
		{"format_type", []string{"1186", "-1"}, "interval", T},
		{"format_type", []string{"1186", "2147418114"}, "interval(2)", T},
		{"format_type", []string{"1186", "327679"}, "interval year", T},
		{"format_type", []string{"1186", "262147"}, "interval year(3)", T},
		{"format_type", []string{"1186", "458751"}, "interval year to month", T},
		{"format_type", []string{"1186", "469827583"}, "interval hour to second", T},
		{"format_type", []string{"1186", "469762050"}, "interval hour to second(2)", T},
		{"format_type", []string{"1186", "393215"}, "ERROR XX000: invalid INTERVAL typmod: 0x5ffff", ""},
		// Types with no typmod output function print the typmod raw.
		{"format_type", []string{"25", "10"}, "text(10)", T},
		{"format_type", []string{"1082", "5"}, "date(5)", T},
		{"format_type", []string{"2950", "1"}, "uuid(1)", T},
		{"format_type", []string{"705", "3"}, "unknown(3)", T},
		{"format_type", []string{"2205", "4"}, "regclass(4)", T},
		{"format_type", []string{"16", "3"}, "boolean", T},
		{"format_type", []string{"701", "5"}, "double precision", T},
		{"format_type", []string{"2205", "-1"}, "regclass", T},
		{"format_type", []string{"2210", "-1"}, "regclass[]", T},
		{"format_type", []string{"2206", "-1"}, "regtype", T},
		{"format_type", []string{"4089", "-1"}, "regnamespace", T},
		{"format_type", []string{"4096", "-1"}, "regrole", T},
		{"format_type", []string{"24", "-1"}, "regproc", T},
		{"format_type", []string{"19", "-1"}, "name", T},
		{"format_type", []string{"1003", "-1"}, "name[]", T},
		{"format_type", []string{"26", "-1"}, "oid", T},
		{"format_type", []string{"705", "-1"}, "unknown", T},
		{"format_type", []string{"2249", "-1"}, "record", T},
		{"format_type", []string{"1009", "-1"}, "text[]", T},
		{"format_type", []string{"1000", "-1"}, "boolean[]", T},
		{"format_type", []string{"3802", "-1"}, "jsonb", T},
	})
	// pgvector's vector(n) stores n itself (the oracle has no pgvector).
	runCasesNoOracle(t, []tc{
		{"format_type", []string{fmt.Sprint(types.VectorOID), "3"}, "vector(3)", T},
		{"format_type", []string{fmt.Sprint(types.VectorOID), "-1"}, "vector", T},
	})
}

func TestPgSizePretty(t *testing.T) {
	T := "text"
	var cases []tc
	for _, c := range [][2]string{
		{"0", "0 bytes"}, {"1", "1 bytes"}, {"1023", "1023 bytes"}, {"1024", "1024 bytes"},
		{"10239", "10239 bytes"}, {"10240", "10 kB"}, {"10241", "10 kB"}, {"10751", "10 kB"},
		{"10752", "11 kB"}, {"5242880", "5120 kB"}, {"-5000", "-5000 bytes"}, {"-10239", "-10239 bytes"},
		{"-10240", "-10 kB"}, {"-10751", "-10 kB"}, {"-10752", "-11 kB"}, {"-512", "-512 bytes"},
		{"10485247", "10239 kB"}, {"10485759", "10 MB"}, {"10485760", "10 MB"}, {"10486271", "10 MB"},
		{"1099511627776", "1024 GB"}, {"2251799813685247", "2048 TB"}, {"9007199254740991", "8192 TB"},
		{"11258999068426239", "10 PB"}, {"11258999068426240", "10 PB"}, {"-1", "-1 bytes"},
	} {
		cases = append(cases, tc{"pg_size_pretty", []string{c[0] + "::int8"}, c[1], T})
	}
	cases = append(cases, []tc{
		{"pg_size_pretty", []string{"9223372036854775807"}, "8192 PB", T},
		{"pg_size_pretty", []string{"-9223372036854775808"}, "-8192 PB", T},
		{"pg_size_pretty", []string{"NULL::int8"}, NULL, T},
		// integer converts to both bigint and numeric, as in PostgreSQL.
		{"pg_size_pretty", []string{"1"}, "ERROR 42725: function pg_size_pretty(integer) is not unique", ""},
		// numeric: bytes keep their fraction; larger units are integers.
		{"pg_size_pretty", []string{"0.4"}, "0.4 bytes", T},
		{"pg_size_pretty", []string{"-0.5"}, "-0.5 bytes", T},
		{"pg_size_pretty", []string{"1.00"}, "1.00 bytes", T},
		{"pg_size_pretty", []string{"1023.5"}, "1023.5 bytes", T},
		{"pg_size_pretty", []string{"10239.5"}, "10239.5 bytes", T},
		{"pg_size_pretty", []string{"10239.999"}, "10239.999 bytes", T},
		{"pg_size_pretty", []string{"-10239.5"}, "-10239.5 bytes", T},
		{"pg_size_pretty", []string{"10240.00"}, "10 kB", T},
		{"pg_size_pretty", []string{"10751.5"}, "10 kB", T},
		{"pg_size_pretty", []string{"-10751.5"}, "-10 kB", T},
		{"pg_size_pretty", []string{"-10240.99"}, "-10 kB", T},
		{"pg_size_pretty", []string{"10485760.7"}, "10 MB", T},
		{"pg_size_pretty", []string{"1e30"}, "888178419700125 PB", T},
		{"pg_size_pretty", []string{"99999999999999999999999999"}, "88817841970 PB", T},
		{"pg_size_pretty", []string{"'NaN'::numeric"}, "NaN PB", T},
		{"pg_size_pretty", []string{"'Infinity'::numeric"}, "Infinity PB", T},
		{"pg_size_pretty", []string{"'-Infinity'::numeric"}, "-Infinity PB", T},
		{"pg_size_pretty", []string{"NULL::numeric"}, NULL, T},
	}...)
	runCases(t, cases)
}

func TestPgEncodingToChar(t *testing.T) {
	runCases(t, []tc{
		{"pg_encoding_to_char", []string{"6"}, "UTF8", "name"},
		{"pg_encoding_to_char", []string{"0"}, "SQL_ASCII", "name"},
		{"pg_encoding_to_char", []string{"8"}, "LATIN1", "name"},
		{"pg_encoding_to_char", []string{"41"}, "SHIFT_JIS_2004", "name"},
		{"pg_encoding_to_char", []string{"42"}, "", "name"},
		{"pg_encoding_to_char", []string{"-1"}, "", "name"},
		{"pg_encoding_to_char", []string{"NULL"}, NULL, "name"},
	})
}

func TestPrivilegeFunctions(t *testing.T) {
	B := "boolean"
	unrecognized := func(p string) string {
		return `ERROR 22023: unrecognized privilege type: "` + p + `"`
	}
	runCases(t, []tc{
		{"has_table_privilege", []string{"'pg_class'", "'foo'"}, unrecognized("foo"), ""},
		{"has_table_privilege", []string{"'pg_class'", "'select,'"}, unrecognized(""), ""},
		{"has_table_privilege", []string{"'pg_class'", "','"}, unrecognized(""), ""},
		{"has_table_privilege", []string{"'pg_class'", "'usage'"}, unrecognized("usage"), ""},
		{"has_table_privilege", []string{"'pg_class'", "'select  with  grant  option'"}, unrecognized("select  with  grant  option"), ""},
		{"has_table_privilege", []string{"'pg_class'", "NULL"}, NULL, B},
		{"has_table_privilege", []string{"NULL::text", "'select'"}, NULL, B},
		{"has_column_privilege", []string{"'pg_class'", "'relname'", "'delete'"}, unrecognized("delete"), ""},
		{"has_column_privilege", []string{"'pg_class'", "1", "'select'"},
			"ERROR 42883: function has_column_privilege(unknown, integer, unknown) does not exist", ""},
		{"has_any_column_privilege", []string{"'pg_class'", "'trigger'"}, unrecognized("trigger"), ""},
		{"has_schema_privilege", []string{"'public'", "'select'"}, unrecognized("select"), ""},
		{"has_database_privilege", []string{"'postgres'", "'connect'"}, "t", B},
		{"has_database_privilege", []string{"'postgres'", "'temp'"}, "t", B},
		{"has_database_privilege", []string{"'postgres'", "'postgres'", "'temporary'"}, "t", B},
		{"has_database_privilege", []string{"'postgres'", "'usage'"}, unrecognized("usage"), ""},
		{"has_function_privilege", []string{"'now()'", "'execute'"}, "t", B},
		{"has_function_privilege", []string{"1299", "'execute'"}, "t", B},
		{"has_function_privilege", []string{"'now()'", "'usage'"}, unrecognized("usage"), ""},
	})
	// PostgreSQL checks that the sequence exists; cairn answers for any.
	runCasesNoOracle(t, []tc{
		{"has_sequence_privilege", []string{"'s'", "'delete'"}, unrecognized("delete"), ""},
	})
}

func TestCatalogFunctionsWithoutObjects(t *testing.T) {
	// NULL for OIDs naming nothing, on PostgreSQL as here.
	var cases []tc
	for _, c := range []struct {
		fn   string
		args []string
	}{
		{"obj_description", []string{"99999"}},
		{"obj_description", []string{"99999", "'pg_class'"}},
		{"obj_description", []string{"NULL"}},
		{"col_description", []string{"99999", "1"}},
		{"shobj_description", []string{"99999", "'pg_database'"}},
		{"pg_get_indexdef", []string{"99999"}},
		{"pg_get_indexdef", []string{"99999", "0", "true"}},
		{"pg_get_constraintdef", []string{"99999"}},
		{"pg_get_constraintdef", []string{"99999", "true"}},
		{"pg_get_viewdef", []string{"99999"}},
		{"pg_get_viewdef", []string{"99999", "true"}},
		{"pg_get_viewdef", []string{"99999", "80"}},
		{"pg_get_triggerdef", []string{"99999"}},
		{"pg_get_triggerdef", []string{"99999", "true"}},
		{"pg_get_statisticsobjdef_columns", []string{"99999"}},
		{"pg_get_function_result", []string{"99999"}},
		{"pg_get_function_arguments", []string{"99999"}},
		{"pg_get_function_identity_arguments", []string{"99999"}},
	} {
		cases = append(cases, tc{c.fn, c.args, NULL, "text"})
	}
	cases = append(cases, []tc{
		{"pg_get_userbyid", []string{"12345"}, "unknown (OID=12345)", "name"},
		{"pg_type_is_visible", []string{"23"}, "t", "boolean"},
		{"pg_type_is_visible", []string{"1007"}, "t", "boolean"},
		{"pg_type_is_visible", []string{"99999"}, NULL, "boolean"},
		{"pg_function_is_visible", []string{"1242"}, "t", "boolean"},
		{"pg_is_in_recovery", nil, "f", "boolean"},
	}...)
	runCases(t, cases)
	// cairn-specific answers: no catalog to ask, no pg_node_tree type.
	runCasesNoOracle(t, []tc{
		{"pg_table_is_visible", []string{"1259"}, "f", "boolean"},
		{"pg_type_is_visible", []string{fmt.Sprint(types.VectorOID)}, "t", "boolean"},
		{"pg_relation_size", []string{"1259"}, "0", "bigint"},
		{"pg_get_expr", []string{"'(a + 1)'", "1259"}, "(a + 1)", "text"},
		{"pg_get_expr", []string{"'nextval(''s''::regclass)'", "1259", "true"}, "nextval('s'::regclass)", "text"},
		{"pg_get_expr", []string{"NULL", "1259"}, NULL, "text"},
	})
}

// fakeCatalog stands in for sql/syscat's View: relation mem (OID 100001,
// on the search path), other.mem (100002, hidden by it), two indexes and
// a primary key.
type fakeCatalog struct{}

func (fakeCatalog) Description(oid int64, class string, sub int64) (string, bool) {
	return "", false
}
func (fakeCatalog) SharedDescription(oid int64, class string) (string, bool) { return "", false }

var fakeRelations = map[int64]string{100001: "mem", 100002: "other.mem", 200: "mem_pkey", 201: "mem_i"}

func (fakeCatalog) Name(f types.Family, oid int64) (string, bool) {
	switch f {
	case types.RegClass:
		name, ok := fakeRelations[oid]
		return name, ok
	case types.RegType:
		if t, ok := types.ByOID(uint32(oid)); ok {
			return t.String(), true
		}
	}
	return "", false
}

func (fakeCatalog) Lookup(f types.Family, text string) (int64, error) {
	switch f {
	case types.RegClass:
		for oid, name := range fakeRelations {
			if name == text {
				return oid, nil
			}
		}
		return 0, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", text)
	case types.RegType:
		if t, ok := types.Named(text); ok {
			return int64(t.OID()), nil
		}
	}
	return 0, pgerr.New(pgerrcode.UndefinedObject, "%s \"%s\" does not exist", types.T{Family: f}, text)
}

func (fakeCatalog) TableVisible(oid int64) bool { return oid == 100001 }

func (fakeCatalog) ViewDef(oid int64) (string, bool) { return "", false }

func (fakeCatalog) IndexDef(oid int64, column int, _ bool) (string, bool) {
	keys := map[int64][]string{200: {"id"}, 201: {"b", `"Weird, col"`, "lower(b)", "c"}}[oid]
	switch {
	case keys == nil:
		return "", false
	case column == 0 && oid == 200:
		return "CREATE UNIQUE INDEX mem_pkey ON public.mem USING btree (id)", true
	case column == 0:
		return `CREATE INDEX mem_i ON public.mem USING btree (b, "Weird, col", lower(b)) INCLUDE (c)`, true
	case column < 0 || column > len(keys):
		return "", true
	}
	return keys[column-1], true
}

func (fakeCatalog) ConstraintDef(oid int64, _ bool) (string, bool) {
	if oid == 300 {
		return "PRIMARY KEY (id)", true
	}
	return "", false
}

// runCatalogCases runs cases with the fake catalog and session.
func runCatalogCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.sqlOf(), func(t *testing.T) {
			m := memory.NewCheckedAllocator(memory.NewGoAllocator())
			ctx := testCtx(m)
			ctx.Catalog = fakeCatalog{}
			ctx.Session = fakeSession{}
			got, res, _, _ := evalCase(ctx, c)
			if got != c.want {
				t.Errorf("%s = %q, want %q", c.sqlOf(), got, c.want)
			}
			if c.typ != "" && !strings.HasPrefix(got, "ERROR") && typeName(res) != c.typ {
				t.Errorf("%s: result type %s, want %s", c.sqlOf(), typeName(res), c.typ)
			}
			m.AssertSize(t, 0)
		})
	}
}

func TestCatalogFunctionsWithCatalog(t *testing.T) {
	pkey := "CREATE UNIQUE INDEX mem_pkey ON public.mem USING btree (id)"
	runCatalogCases(t, []tc{
		{"pg_get_userbyid", []string{"10"}, "agent", "name"},
		{"pg_get_userbyid", []string{"12345"}, "agent", "name"},
		{"pg_table_is_visible", []string{"100001"}, "t", "boolean"},
		{"pg_table_is_visible", []string{"'mem'::regclass"}, "t", "boolean"},
		{"pg_table_is_visible", []string{"100002"}, "f", "boolean"},
		{"pg_table_is_visible", []string{"99999"}, NULL, "boolean"},
		{"pg_get_indexdef", []string{"200"}, pkey, "text"},
		{"pg_get_indexdef", []string{"200", "0", "true"}, pkey, "text"},
		{"pg_get_indexdef", []string{"200", "1", "false"}, "id", "text"},
		{"pg_get_indexdef", []string{"201", "1", "false"}, "b", "text"},
		{"pg_get_indexdef", []string{"201", "2", "false"}, `"Weird, col"`, "text"},
		{"pg_get_indexdef", []string{"201", "3", "false"}, "lower(b)", "text"},
		{"pg_get_indexdef", []string{"201", "4", "false"}, "c", "text"},
		{"pg_get_indexdef", []string{"201", "5", "false"}, "", "text"},
		{"pg_get_indexdef", []string{"201", "-1", "false"}, "", "text"},
		{"pg_get_indexdef", []string{"99999", "1", "false"}, NULL, "text"},
		{"pg_get_constraintdef", []string{"300"}, "PRIMARY KEY (id)", "text"},
		{"pg_get_constraintdef", []string{"300", "true"}, "PRIMARY KEY (id)", "text"},
		{"pg_get_constraintdef", []string{"200"}, NULL, "text"},
		// The size functions take regclass: a name, an OID or a number.
		{"pg_relation_size", []string{"'mem'"}, "0", "bigint"},
		{"pg_relation_size", []string{"100001"}, "0", "bigint"},
		{"pg_relation_size", []string{"'nope'"}, `ERROR 42P01: relation "nope" does not exist`, ""},
		{"pg_relation_size", []string{"99999"}, NULL, "bigint"},
		{"pg_relation_size", []string{"'mem'", "'fsm'"}, "0", "bigint"},
		{"pg_relation_size", []string{"'mem'", "'MAIN'"}, "ERROR 22023: invalid fork name", ""},
		{"pg_relation_size", []string{"99999", "'bogus'"}, NULL, "bigint"},
		{"pg_table_size", []string{"100001::oid"}, "0", "bigint"},
		{"pg_table_size", []string{"99999::oid"}, NULL, "bigint"},
		{"pg_total_relation_size", []string{"'mem'::regclass"}, "0", "bigint"},
		{"pg_indexes_size", []string{"'mem'"}, "0", "bigint"},
		{"pg_relation_is_publishable", []string{"'mem'"}, "f", "boolean"},
		{"pg_relation_is_publishable", []string{"99999"}, NULL, "boolean"},
		{"format_type", []string{"'int4'::regtype", "NULL"}, "integer", "text"},
	})
}

func TestPgPostmasterStartTime(t *testing.T) {
	ov, targets, err := Resolve("pg_postmaster_start_time", nil)
	if err != nil {
		t.Fatal(err)
	}
	if typ := typeName(ResultType(ov, targets)); typ != "timestamp with time zone" {
		t.Errorf("pg_postmaster_start_time() is of type %s", typ)
	}
	a, _ := ov.Eval(testCtx(nil), nil)
	b, _ := ov.Eval(testCtx(nil), nil)
	if a != serverStart || b != a {
		t.Errorf("pg_postmaster_start_time() = %v then %v, want %v", a, b, serverStart)
	}
}

func BenchmarkFormatType(b *testing.B) {
	ov, _, err := Resolve("format_type", []types.T{types.OidT, types.Int4T})
	if err != nil {
		b.Fatal(err)
	}
	rows := [][]any{{int64(1043), int64(24)}, {int64(1700), int64(655366)}, {int64(23), int64(-1)}, {int64(1021), nil}}
	ctx := testCtx(nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ov.Eval(ctx, rows[i%len(rows)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPgSizePretty(b *testing.B) {
	ov, _, err := Resolve("pg_size_pretty", []types.T{types.Int8T})
	if err != nil {
		b.Fatal(err)
	}
	rows := [][]any{{int64(1023)}, {int64(10752)}, {int64(5 << 30)}, {int64(-1 << 52)}}
	ctx := testCtx(nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ov.Eval(ctx, rows[i%len(rows)]); err != nil {
			b.Fatal(err)
		}
	}
}
