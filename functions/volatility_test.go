package functions

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// sqlValueVolatility is the volatility of the functions PostgreSQL's
// grammar spells without a pg_proc entry of the same name (SQL value
// functions and keywords) and of cairn's own (pgvector's, pg_deeplake's).
var sqlValueVolatility = map[string]Volatility{
	"current_date": Stable, "current_time": Stable, "current_timestamp": Stable,
	"localtime": Stable, "localtimestamp": Stable,
	"current_catalog": Stable, "current_role": Stable, "user": Stable,
	"uuid_generate_v4": Volatile, // uuid-ossp's
}

// extensionVolatility is the volatility of overloads that extensions add
// to names PostgreSQL has (pg_trgm's operators on text), by signature, as
// the extension's install script declares them, and of those cairn marks
// otherwise than pg_proc on purpose.
var extensionVolatility = map[string]Volatility{
	"%(text,text)": Stable, // similarity_op reads pg_trgm.similarity_threshold
	// Not an extension's: PostgreSQL's timestamptz_age is marked
	// immutable but breaks its arguments into fields in the session's
	// TimeZone (TestImmutableIgnoresSession).
	"age(timestamp with time zone,timestamp with time zone)": Stable,
}

// TestVolatilityMatchesPostgreSQL checks every registered overload's
// Volatility against PostgreSQL's pg_proc.provolatile
// (testdata/provolatile.tsv): the overload with the same argument types,
// or, where cairn's signature is its own (polymorphic), all of
// PostgreSQL's overloads of the name when they agree. A stable function
// marked immutable would let the expression cache hand one session's
// TimeZone-dependent result to another; a volatile one marked stable
// would be evaluated once or in parallel partitions.
func TestVolatilityMatchesPostgreSQL(t *testing.T) {
	f, err := os.Open("testdata/provolatile.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// pg[kind][name][args] is the provolatile letter.
	pg := map[string]map[string]map[string]string{"f": {}, "o": {}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 4 {
			t.Fatalf("bad line %q", line)
		}
		if pg[p[0]][p[1]] == nil {
			pg[p[0]][p[1]] = map[string]string{}
		}
		pg[p[0]][p[1]][p[2]] = p[3]
	}
	checked := 0
	for _, name := range Names() {
		for _, ov := range Overloads(name) {
			args := make([]string, len(ov.Args))
			for i, a := range ov.Args {
				args[i] = a.String()
			}
			sig := name + "(" + strings.Join(args, ",") + ")"
			got := ov.Volatility.String()
			v, ok := sqlValueVolatility[name]
			if ev, isExt := extensionVolatility[sig]; isExt {
				v, ok = ev, true
			}
			if ok {
				if got != v.String() {
					t.Errorf("%s is %s, want %s", sig, got, v)
				}
				checked++
				continue
			}
			kind := "f"
			if c := name[0]; !(c >= 'a' && c <= 'z' || c == '_') {
				kind = "o"
			}
			byArgs := pg[kind][name]
			if byArgs == nil {
				continue // cairn's own: pgvector, pg_deeplake, similarity functions
			}
			want, ok := byArgs[strings.Join(args, ",")]
			if !ok {
				letters := map[string]bool{}
				for _, v := range byArgs {
					letters[v] = true
				}
				if len(letters) != 1 {
					continue // a polymorphic signature of cairn's own over overloads that differ
				}
				for v := range letters {
					want = v
				}
			}
			if got != want {
				t.Errorf("%s is %s, PostgreSQL's provolatile is %s", sig, got, want)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("checked only %d overloads", checked)
	}
}
