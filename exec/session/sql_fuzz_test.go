package session

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
	"github.com/jackc/pgerrcode"
)

// The SQL fuzzers run statements through the whole engine in-process
// (parse -> bind -> plan -> execute over real storage) against a small
// fixture: table t has a column of each main type and a few rows, NULLs
// included, and table m is a deeplake memory table with an embedding and
// a text index. Every input runs in a fresh session inside BEGIN ...
// ROLLBACK, so it starts from the fixture's state; an input that ends the
// transaction itself (COMMIT, ROLLBACK) may have changed the fixture, which
// is then rebuilt in a fresh data directory. An input fails the fuzzer
// when it panics, when an error has no SQLSTATE (or XX000, an internal
// error: a recovered panic or a bug) or when a result batch is malformed.

// fuzzFixtureSQL creates the fixture the SQL fuzzers run against.
var fuzzFixtureSQL = []string{
	`CREATE TABLE t (id int8 PRIMARY KEY, i int4, s int2, f float8, r float4, n numeric, txt text,
		vc varchar(10), b bool, d date, ts timestamp, tz timestamptz, iv interval, j jsonb, js json,
		emb float4[], ia int4[], ta text[], u uuid, by bytea, tm time, c char(3))`,
	`INSERT INTO t VALUES
		(1, 10, 1, 1.5, 0.25, 12.345, 'hello world', 'abc', true, '2024-01-02', '2024-01-02 03:04:05',
		 '2024-01-02 03:04:05+00', '1 day 2 hours', '{"a": 1, "b": [1, 2], "c": {"d": "e"}}', '{"x": null}',
		 '{1, 2, 3}', '{1, 2}', '{a, b}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00ff', '12:34:56', 'xy'),
		(2, -5, -2, -0.0, 'NaN', -1e20, 'the quick brown fox', '', false, 'infinity', '1999-12-31 23:59:59.999999',
		 '-infinity', '-3 months', '[1, "two", null, true]', '[]', '{0, 0, 0}', '{}', '{}', '00000000-0000-0000-0000-000000000000', '', '00:00', ''),
		(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		(4, 2147483647, 32767, 'Infinity', '-Infinity', 0, 'héllo 世界 ☃', 'zzzzzzzzzz', true, '0001-01-01', '9999-12-31 23:59:59',
		 '2000-02-29 12:00:00+05:30', '-1 year -2 mons +3 days -04:05:06', '"str"', '3', '{NULL, 1.5, -2}', '{NULL}', '{NULL, ""}',
		 'ffffffff-ffff-ffff-ffff-ffffffffffff', '\xdeadbeef', '23:59:59.999999', 'a')`,
	`CREATE INDEX t_txt ON t (txt)`,
	`CREATE TABLE m (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding float4[]) USING deeplake`,
	`INSERT INTO m (task, metadata, embedding) VALUES
		('fix the oom in parquet', '{"repo": "data-pipeline", "n": 1}', '{0.1, 0.2, 0.3}'),
		('ci/cd pipeline flake', '{"repo": "web"}', '{0.3, 0.2, 0.1}'),
		('ai-driven recall', NULL, NULL),
		('', '{}', '{0, 0, 0}')`,
	`CREATE VIEW v AS SELECT id, txt, j FROM t WHERE id < 3`,
	`CREATE SEQUENCE sq`,
}

// fuzzEngine is the engine the SQL fuzzers share within one process (a
// fuzz worker runs its inputs one at a time).
type fuzzEngine struct {
	dir    string
	db     *storage.DB
	engine *Engine
}

// openFuzzEngine creates the fixture in a fresh data directory under root.
func openFuzzEngine(root string) (*fuzzEngine, error) {
	dir, err := os.MkdirTemp(root, "db")
	if err != nil {
		return nil, err
	}
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		return nil, err
	}
	fe := &fuzzEngine{dir: dir, db: db, engine: NewEngine(db, Options{})}
	s := fe.engine.NewSession("fuzz", "fuzz")
	defer s.Close()
	for _, q := range fuzzFixtureSQL {
		if err := runFuzzSQL(context.Background(), s, q); err != nil {
			fe.close()
			return nil, fmt.Errorf("fixture: %s: %w", q, err)
		}
	}
	// The fixture must be what the seeds and the generator expect: a
	// broken one would turn every input into the same error.
	p, err := s.Prepare(`SELECT t.id FROM t JOIN m ON t.id = m.id JOIN v ON v.id = t.id`, nil)
	var rows int64
	if err == nil {
		var portal *Portal
		if portal, err = s.Bind(p[0], nil); err == nil {
			_, _, err = s.Execute(context.Background(), portal, 0, func(r arrow.Record) error { rows += r.NumRows(); return nil })
		}
	}
	if err != nil || rows != 2 {
		fe.close()
		return nil, fmt.Errorf("fixture: the check query returns %d rows (want 2): %v", rows, err)
	}
	return fe, nil
}

func (fe *fuzzEngine) close() {
	fe.db.Close()
	os.RemoveAll(fe.dir)
}

// runFuzzSQL runs text as a simple query does: each statement in turn,
// stopping at the first error. A COPY FROM reads no data, a COPY TO's
// data is dropped, and every result batch is checked for shape.
func runFuzzSQL(ctx context.Context, s *Session, text string) error {
	stmts, err := s.Prepare(text, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		p, err := s.Bind(st, nil)
		if err != nil {
			return err
		}
		switch p.Copy().Dir {
		case CopyIn:
			_, err = s.CopyFrom(ctx, p, strings.NewReader(""))
		case CopyOut:
			_, err = s.CopyTo(ctx, p, func([]byte) error { return nil })
		default:
			_, _, err = s.Execute(ctx, p, 0, checkBatch)
		}
		s.ClosePortal(p)
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBatch fails on a result batch whose columns disagree with its row
// count or its schema: a client would read garbage from it.
func checkBatch(rec arrow.Record) error {
	if int(rec.NumCols()) != len(rec.Schema().Fields()) {
		return fmt.Errorf("batch has %d columns, schema %d", rec.NumCols(), len(rec.Schema().Fields()))
	}
	for i, c := range rec.Columns() {
		if c.Len() != int(rec.NumRows()) {
			return fmt.Errorf("column %d has %d rows, batch %d", i, c.Len(), rec.NumRows())
		}
		if !arrow.TypeEqual(c.DataType(), rec.Schema().Field(i).Type) {
			return fmt.Errorf("column %d is %s, schema says %s", i, c.DataType(), rec.Schema().Field(i).Type)
		}
	}
	return nil
}

// fuzzErrorOK reports whether err is an answer a client may get: nil or an
// error with a SQLSTATE other than XX000.
func fuzzErrorOK(err error) bool {
	if err == nil {
		return true
	}
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Code != "" && pe.Code != pgerrcode.InternalError
}

// fuzzRunner runs fuzz inputs against a fixture it rebuilds when an input
// committed.
type fuzzRunner struct {
	root string
	fe   *fuzzEngine
}

func newFuzzRunner(f *testing.F) *fuzzRunner {
	r := &fuzzRunner{root: f.TempDir()}
	fe, err := openFuzzEngine(r.root)
	if err != nil {
		f.Fatal(err)
	}
	r.fe = fe
	f.Cleanup(func() { r.fe.close() })
	return r
}

// run runs text in a fresh session inside a transaction it rolls back,
// failing t on a panic, an error without a proper SQLSTATE or a malformed
// batch.
func (r *fuzzRunner) run(t *testing.T, text string) {
	s := r.fe.engine.NewSession("fuzz", "fuzz")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, q := range []string{`SET statement_timeout = '2s'`, `SET lock_timeout = '100ms'`, `BEGIN`} {
		if err := runFuzzSQL(ctx, s, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	err := runFuzzSQL(ctx, s, text)
	t.Logf("%s: %v", text, err) // shown by go test -v: what the seeds and the generator reach
	if !fuzzErrorOK(err) {
		t.Errorf("%q: error without a SQLSTATE or internal: %v (%T)", text, err, err)
	}
	ended := s.TxStatus() == TxIdle
	if !ended {
		if err := runFuzzSQL(ctx, s, `ROLLBACK`); err != nil {
			t.Errorf("%q: ROLLBACK: %v", text, err)
		}
	}
	s.Close()
	if ended {
		// The input ended the transaction itself: what it did may have
		// been committed, so the next input gets a fresh fixture.
		r.fe.close()
		fe, err := openFuzzEngine(r.root)
		if err != nil {
			t.Fatal(err)
		}
		r.fe = fe
	}
}

// fuzzing reports whether this process is fuzzing (-test.fuzz set) rather
// than replaying seeds as a plain test run does.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// logicTestSeeds returns a seed per statement and query block of
// testdata/sql/**/*.test (the logic tests' input): the statement after
// the file's earlier CREATE, INSERT and ALTER statements, so that the seed
// finds the tables it reads (up to seedSetupBytes of them, the latest).
func logicTestSeeds(f *testing.F) []string {
	const seedSetupBytes = 4096
	files, err := filepath.Glob("../../testdata/sql/*/*.test")
	if err != nil || len(files) == 0 {
		f.Fatalf("no logic tests found: %v", err)
	}
	var out []string
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var setup []string
		var cur []string
		in := false
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case !in && (strings.HasPrefix(line, "statement") || strings.HasPrefix(line, "query")):
				in, cur = true, nil
			case in && line == "----":
				in = false
				stmt := strings.Join(cur, "\n")
				out = append(out, strings.Join(append(setup, stmt), ";\n"))
				switch strings.ToUpper(strings.SplitN(strings.TrimSpace(stmt), " ", 2)[0]) {
				case "CREATE", "INSERT", "ALTER":
					setup = append(setup, stmt)
					for len(strings.Join(setup, ";\n")) > seedSetupBytes {
						setup = setup[1:]
					}
				}
			case in:
				cur = append(cur, line)
			}
		}
	}
	return out
}

// FuzzSQL runs arbitrary SQL text through the engine. Its corpus is every
// statement of the logic tests, which the fuzzer mutates; a plain test run
// replays a sample of them (TestLogic runs them all) and the regression
// seeds in testdata/fuzz/FuzzSQL.
func FuzzSQL(f *testing.F) {
	for i, q := range logicTestSeeds(f) {
		if fuzzing() || i%10 == 0 {
			f.Add(q)
		}
	}
	f.Add(`SELECT * FROM t ORDER BY id`)
	f.Add(`SELECT id, embedding <#> '{0.1,0.2,0.3}'::float4[] AS score FROM m ORDER BY score DESC LIMIT 2`)
	f.Add(`SELECT task, task <#> 'oom parquet' AS score FROM m ORDER BY score DESC LIMIT 3`)
	f.Add(`SELECT j->'c'->>'d', jsonb_array_length(j), emb[1], count(*) OVER (PARTITION BY b) FROM t`)
	r := newFuzzRunner(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<14 {
			return // deep-nesting crashers need far less; keep executions fast
		}
		r.run(t, text)
	})
}

// FuzzSQLGrammar runs SQL that a small generator builds from the fuzzer's
// bytes: every input is a well-formed SELECT over the fixture whose
// expressions are typed calls of registered functions and operators on
// columns, literals, casts, CASE, subqueries, aggregates and windows. It
// reaches the binder's, planner's and kernels' corners that random text
// seldom gets past the parser to.
func FuzzSQLGrammar(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01\x02\x03\x04", "select count(*) from t group by b", "\xff\xfe\xfd\xfc\xfb\xfa\xf9"} {
		f.Add([]byte(seed))
	}
	g := newSQLGen()
	r := newFuzzRunner(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r.run(t, g.statement(data))
	})
}

// sqlGen builds SQL from bytes. The choices it reads come from the input in
// order (zero once it is used up), so a small change to the input makes a
// small change to the statement.
type sqlGen struct {
	scalars    []*functions.Overload
	aggregates []string
	// columns of t by typeKey; every type has at least a literal.
	columns map[string][]string
}

// typeKey names a type without its modifiers, for looking up columns and
// literals; an array of unknown element type is "anyarray".
func typeKey(t types.T) string {
	if t.Family == types.ArrayFamily {
		if t.Elem == nil || t.Elem.Family == types.Unknown {
			return "anyarray"
		}
		return typeKey(*t.Elem) + "[]"
	}
	return types.T{Family: t.Family, Mod: -1}.String()
}

func newSQLGen() *sqlGen {
	g := &sqlGen{columns: map[string][]string{}}
	for _, name := range functions.Names() {
		for _, ov := range functions.Overloads(name) {
			if ov.Volatility == functions.Volatile {
				continue // sleeps, locks and sequences only slow fuzzing down
			}
			g.scalars = append(g.scalars, ov)
		}
	}
	g.aggregates = []string{"count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or",
		"jsonb_agg", "json_agg", "stddev", "variance", "every", "bit_and", "bit_or", "jsonb_object_agg"}
	int4s := types.ArrayOf(types.Int4T, 1)
	texts := types.ArrayOf(types.TextT, 1)
	for _, c := range []struct {
		name string
		t    types.T
	}{{"id", types.Int8T}, {"i", types.Int4T}, {"s", types.Int2T}, {"f", types.Float8T}, {"r", types.Float4T},
		{"n", types.NumericT}, {"txt", types.TextT}, {"vc", types.VarcharT}, {"c", types.CharT}, {"b", types.BoolT},
		{"d", types.DateT}, {"ts", types.TimestampT}, {"tz", types.TimestampTZT}, {"iv", types.IntervalT},
		{"j", types.JSONBT}, {"js", types.JSONT}, {"u", types.UUIDT}, {"by", types.ByteaT}, {"tm", types.TimeT},
		{"emb", types.Float4ArrayT}, {"ia", int4s}, {"ta", texts}} {
		g.columns[typeKey(c.t)] = append(g.columns[typeKey(c.t)], c.name)
		if c.t.Family == types.ArrayFamily {
			g.columns["anyarray"] = append(g.columns["anyarray"], c.name)
		}
	}
	return g
}

// genState is one statement being generated.
type genState struct {
	g     *sqlGen
	data  []byte
	depth int
}

// pick returns a choice in [0, n) read from the input.
func (s *genState) pick(n int) int {
	if n <= 1 {
		return 0
	}
	if len(s.data) == 0 {
		return 0
	}
	b := int(s.data[0])
	s.data = s.data[1:]
	return b % n
}

// literals are sample constants per family, boundary values among them.
var fuzzLiterals = map[types.Family][]string{
	types.Bool:            {"true", "false", "NULL::bool"},
	types.Int2:            {"0::int2", "'-32768'::int2", "32767::int2"},
	types.Int4:            {"0", "-1", "2147483647", "'-2147483648'::int4"},
	types.Int8:            {"0::int8", "'-9223372036854775808'::int8", "9223372036854775807"},
	types.Float4:          {"'NaN'::real", "1.5::real", "'-Infinity'::real"},
	types.Float8:          {"0.0::float8", "'Infinity'::float8", "-1e308", "1e-320"},
	types.Numeric:         {"0.1", "-12345678901234567890.123456789", "'NaN'::numeric", "1e100"},
	types.Text:            {"''", "'abc'", "'héllo 世界'", "'%_\\'", "'a,b,c'", "'[1,2]'", "'{\"k\": [1]}'"},
	types.Varchar:         {"'x'::varchar(3)", "''::varchar"},
	types.Char:            {"'ab'::char(2)"},
	types.Bytea:           {"'\\x00ff'::bytea", "''::bytea"},
	types.UUID:            {"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid"},
	types.JSON:            {"'{\"a\": 1}'::json", "'[1, [2]]'::json", "'null'::json"},
	types.JSONB:           {"'{\"a\": {\"b\": 2}}'::jsonb", "'[]'::jsonb", "'\"s\"'::jsonb", "'1.5'::jsonb"},
	types.DateFamily:      {"'2024-02-29'::date", "'infinity'::date", "'4713-01-01 BC'::date"},
	types.Time:            {"'00:00'::time", "'24:00:00'::time"},
	types.TimestampFamily: {"'2024-01-01 00:00'::timestamp", "'-infinity'::timestamp"},
	types.TimestampTZ:     {"'2024-03-10 02:30+01'::timestamptz", "now()"},
	types.Interval:        {"'1 day'::interval", "'-178000000 years'::interval", "'1 mon -1 sec'::interval"},
	types.ArrayFamily:     {"'{0.5,1,2}'::float4[]", "ARRAY[1,2,NULL]", "'{}'::text[]", "'{{1,2},{3,4}}'::int[]", "ARRAY['a','b']"},
}

// fuzzArrayLiterals are sample arrays by typeKey.
var fuzzArrayLiterals = map[string][]string{
	"real[]":    {"'{0.5,1,2}'::float4[]", "'{}'::float4[]", "'{NaN,0,-1}'::float4[]", "ARRAY[0.1,0.2,0.3]::real[]"},
	"integer[]": {"ARRAY[1,2,NULL]", "'{{1,2},{3,4}}'::int[]", "'[0:1]={5,6}'::int[]"},
	"text[]":    {"'{}'::text[]", "ARRAY['a','b']", "'{\"x,y\",NULL}'::text[]"},
}

// expr generates an expression of type want (any type when want is
// Unknown).
func (s *genState) expr(want types.T) string {
	s.depth++
	defer func() { s.depth-- }()
	choice := s.pick(12)
	if s.depth > 6 {
		choice %= 3 // column, literal or NULL: stop growing
	}
	fam := want.Family
	if fam == types.Unknown {
		fams := []types.Family{types.Int4, types.Int8, types.Float8, types.Numeric, types.Text, types.Bool, types.JSONB,
			types.TimestampTZ, types.DateFamily, types.Interval, types.ArrayFamily, types.Bytea, types.UUID}
		fam = fams[s.pick(len(fams))]
	}
	key := typeKey(want)
	if want.Family == types.Unknown {
		key = typeKey(types.T{Family: fam, Mod: -1})
	}
	switch choice {
	case 0:
		if cols := s.g.columns[key]; len(cols) > 0 {
			return cols[s.pick(len(cols))]
		}
		fallthrough
	case 1:
		lits := fuzzArrayLiterals[key]
		if fam != types.ArrayFamily || key == "anyarray" || len(lits) == 0 {
			lits = fuzzLiterals[fam]
		}
		if len(lits) == 0 {
			return "NULL"
		}
		return lits[s.pick(len(lits))]
	case 2:
		if want.Family == types.Unknown || key == "anyarray" {
			return "NULL"
		}
		return "NULL::" + want.String()
	case 3, 4, 5, 6:
		return s.call(want)
	case 7:
		if key == "anyarray" {
			want = types.UnknownT // a polymorphic array: cast to any type
		}
		return "(" + s.expr(want) + ")::" + s.castTarget(want)
	case 8:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", s.expr(types.BoolT), s.expr(want), s.expr(want))
	case 9:
		return fmt.Sprintf("(SELECT %s FROM t AS t%d ORDER BY 1 LIMIT 1)", s.expr(want), s.depth)
	case 10:
		return fmt.Sprintf("COALESCE(%s, %s)", s.expr(want), s.expr(want))
	default:
		if want.Family == types.Bool || want.Family == types.Unknown {
			ops := []string{"%s = %s", "%s < %s", "%s IS DISTINCT FROM %s", "%s IN (%s)", "(%s) AND (%s)", "NOT (%s) OR (%s)"}
			op := ops[s.pick(len(ops))]
			t := s.anyType()
			return fmt.Sprintf(op, s.expr(t), s.expr(t))
		}
		return s.call(want)
	}
}

// anyType picks a type for a sub-expression.
func (s *genState) anyType() types.T {
	ts := []types.T{types.Int4T, types.Int8T, types.Float8T, types.NumericT, types.TextT, types.BoolT, types.JSONBT,
		types.TimestampTZT, types.DateT, types.IntervalT, types.UnknownT}
	return ts[s.pick(len(ts))]
}

// castTarget is a type to cast to: want's own, or another when any will do.
func (s *genState) castTarget(want types.T) string {
	if want.Family != types.Unknown {
		return want.String()
	}
	names := []string{"text", "int4", "int8", "float4", "numeric(5,2)", "varchar(2)", "jsonb", "json", "bool", "date",
		"timestamptz", "interval", "float4[]", "text[]", "bytea", "uuid", "regclass", "oid", "char(1)", "time"}
	return names[s.pick(len(names))]
}

// call generates a call of a registered function or operator whose result
// family is want's (any when want is Unknown).
func (s *genState) call(want types.T) string {
	start := s.pick(256) * len(s.g.scalars) / 256
	start += s.pick(256)
	for k := range s.g.scalars {
		ov := s.g.scalars[(start+k)%len(s.g.scalars)]
		if want.Family != types.Unknown && ov.ResultFn == nil && ov.Result.Family != want.Family {
			continue
		}
		args := make([]string, len(ov.Args))
		for i, at := range ov.Args {
			if at.Family == types.ArrayFamily && typeKey(at) == "anyarray" {
				at = types.T{Family: types.ArrayFamily, Mod: -1} // any array
			}
			args[i] = s.expr(at)
		}
		if ov.Variadic && len(ov.Args) > 0 && s.pick(2) == 1 {
			args = append(args, s.expr(ov.Args[len(ov.Args)-1]))
		}
		name := ov.Name
		if !isIdentifier(name) {
			switch len(args) {
			case 1:
				return "(" + name + " " + args[0] + ")"
			case 2:
				return "(" + args[0] + " " + name + " " + args[1] + ")"
			}
		}
		return name + "(" + strings.Join(args, ", ") + ")"
	}
	return "NULL"
}

// isIdentifier reports whether name is a function name rather than an
// operator.
func isIdentifier(name string) bool {
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}

// statement generates one statement from data.
func (g *sqlGen) statement(data []byte) string {
	s := &genState{g: g, data: data}
	var b strings.Builder
	switch s.pick(8) {
	case 0: // aggregate over groups
		fmt.Fprintf(&b, "SELECT %s, %s(%s) FROM t GROUP BY 1 HAVING bool_or(%s) ORDER BY 1 LIMIT 5",
			s.expr(s.anyType()), g.aggregates[s.pick(len(g.aggregates))], s.expr(types.UnknownT), s.expr(types.BoolT))
	case 1: // window
		fmt.Fprintf(&b, "SELECT id, %s OVER (PARTITION BY %s ORDER BY %s ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
			[]string{"row_number()", "rank()", "sum(id)", "lag(txt)", "first_value(j)", "count(*)"}[s.pick(6)],
			s.expr(types.UnknownT), s.expr(types.UnknownT))
	case 2: // join with itself (the other side's names do not clash)
		fmt.Fprintf(&b, "SELECT a.id, %s FROM t a LEFT JOIN (SELECT id AS id2, txt AS txt2 FROM t) b2 ON %s ORDER BY 1", s.expr(types.UnknownT), s.expr(types.BoolT))
	case 3: // DML rolled back with the transaction
		fmt.Fprintf(&b, "UPDATE t SET txt = (%s)::text WHERE %s RETURNING id, txt", s.expr(types.UnknownT), s.expr(types.BoolT))
	case 4: // search
		fmt.Fprintf(&b, "SELECT id, embedding <#> %s AS score FROM m WHERE %s ORDER BY score DESC LIMIT 2",
			s.expr(types.T{Family: types.ArrayFamily, Elem: &types.Float4T, Dims: 1, Mod: -1}), s.expr(types.BoolT))
	case 5: // a set-returning FROM
		fmt.Fprintf(&b, "SELECT %s FROM generate_series(1, 3) AS g(x), t WHERE %s", s.expr(types.UnknownT), s.expr(types.BoolT))
	default: // projection and filter
		fmt.Fprintf(&b, "SELECT %s, %s FROM t WHERE %s ORDER BY 1 NULLS FIRST", s.expr(types.UnknownT), s.expr(types.UnknownT), s.expr(types.BoolT))
	}
	return b.String()
}
