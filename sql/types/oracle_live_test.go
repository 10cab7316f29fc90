package types

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestLiveOracle compares random values with a running PostgreSQL 15: our
// binary encoding sent as a parameter must come back as our text, and our
// text sent as a parameter must come back as our binary encoding. It runs
// only when ORACLE_PORT names a server started with
// a throwaway PostgreSQL 15 server (e.g. from pg-oracle); the hard-coded cases of
// oracle_cases_test.go cover the same ground without one.
func TestLiveOracle(t *testing.T) {
	port := os.Getenv("ORACLE_PORT")
	if port == "" {
		t.Skip("ORACLE_PORT not set")
	}
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A fixed seed by default; ORACLE_SEED=random (or a number) explores.
	seed := int64(1)
	if s := os.Getenv("ORACLE_SEED"); s == "random" {
		seed = time.Now().UnixNano()
	} else if s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("ORACLE_SEED=%d", seed)
	rng := rand.New(rand.NewSource(seed))
	zones := []string{"UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Moscow", "America/St_Johns"}
	for _, zone := range zones {
		if _, err := conn.Exec(ctx, "SET TimeZone = '"+zone+"'").ReadAll(); err != nil {
			t.Fatal(err)
		}
		loc := LoadZone(zone)
		opts := &TextOptions{Location: loc}
		gens := map[string]func() any{
			"float8":      func() any { return randFloat(rng) },
			"float4":      func() any { return float64(float32(randFloat(rng))) },
			"numeric":     func() any { return NewNumeric(randNumeric(rng)) },
			"interval":    func() any { return randInterval(rng) },
			"timestamp":   func() any { return randTimestamp(rng) },
			"timestamptz": func() any { return randTimestamp(rng) },
			"date":        func() any { return Date(rng.Int63n(int64(endDate-minDate)) + int64(minDate)) },
			"time":        func() any { return TimeOfDay(rng.Int63n(MicrosPerDay + 1)) },
			"text[]":      func() any { return randTextArray(rng) },
			"float8[]":    func() any { return NewArray(Float8T, randFloat(rng), nil, randFloat(rng)) },
			"jsonb":       func() any { s, _ := NormalizeJSONB(randJSON(rng, 0)); return s },
			"bytea":       func() any { b := make([]byte, rng.Intn(5)); rng.Read(b); return b },
		}
		for name, gen := range gens {
			if zone != "UTC" && name != "timestamptz" {
				continue
			}
			typ := oracleType(t, name)
			for i := 0; i < 300; i++ {
				v := gen()
				bin, err := EncodeBinary([]byte{}, v, typ) // not nil: nil is NULL
				if err != nil {
					t.Fatalf("%s %v: %v", name, v, err)
				}
				text := string(AppendText(nil, v, typ, opts))
				r := conn.ExecParams(ctx, "SELECT $1::"+name, [][]byte{bin}, []uint32{typ.OID()}, []int16{1}, []int16{0}).Read()
				if r.Err != nil {
					t.Errorf("%s %s: PostgreSQL rejects our binary %x: %v", name, text, bin, r.Err)
					continue
				}
				if got := string(r.Rows[0][0]); got != text {
					t.Errorf("%s @%s: PostgreSQL prints %q, we %q", name, zone, got, text)
				}
				r = conn.ExecParams(ctx, "SELECT $1::"+name, [][]byte{[]byte(text)}, nil, []int16{0}, []int16{1}).Read()
				if r.Err != nil {
					t.Errorf("%s: PostgreSQL rejects our text %q: %v", name, text, r.Err)
					continue
				}
				if got := r.Rows[0][0]; !bytes.Equal(got, bin) {
					t.Errorf("%s %q: PostgreSQL encodes %x, we %x", name, text, got, bin)
				}
			}
		}
	}
}

func randFloat(rng *rand.Rand) float64 {
	switch rng.Intn(4) {
	case 0:
		for {
			f := math.Float64frombits(rng.Uint64())
			if !math.IsNaN(f) {
				return f
			}
		}
	case 1:
		return rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20))
	case 2:
		return float64(rng.Intn(2000000)-1000000) / math.Pow(10, float64(rng.Intn(8)))
	}
	return []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e15, 1e-5, 1e6}[rng.Intn(8)]
}

func randNumeric(rng *rand.Rand) string {
	if rng.Intn(20) == 0 {
		return []string{"NaN", "Infinity", "-Infinity", "0", "0.0000"}[rng.Intn(5)]
	}
	var b strings.Builder
	if rng.Intn(2) == 0 {
		b.WriteByte('-')
	}
	for i := rng.Intn(30); i >= 0; i-- {
		b.WriteByte(byte('0' + rng.Intn(10)))
	}
	if rng.Intn(2) == 0 {
		b.WriteByte('.')
		for i := rng.Intn(30); i >= 0; i-- {
			b.WriteByte(byte('0' + rng.Intn(10)))
		}
	}
	if rng.Intn(4) == 0 {
		fmt.Fprintf(&b, "e%d", rng.Intn(60)-30)
	}
	return b.String()
}

func randInterval(rng *rand.Rand) IntervalValue {
	pick := func(max int64) int64 {
		switch rng.Intn(3) {
		case 0:
			return 0
		case 1:
			return rng.Int63n(2*max+1) - max
		}
		return rng.Int63n(201) - 100
	}
	return IntervalValue{Months: int32(pick(math.MaxInt32)), Days: int32(pick(math.MaxInt32)), Micros: pick(math.MaxInt64 / 2)}
}

func randTimestamp(rng *rand.Rand) Timestamp {
	switch rng.Intn(3) {
	case 0:
		return Timestamp(rng.Int63n(int64(2e17)) - int64(1e17))
	case 1:
		return Timestamp(rng.Int63n(int64(4e15)) - int64(2e15)) // around 1907..2033
	}
	return Timestamp(rng.Int63n(int64(endTimestamp)/2)) + minTimestamp/2
}

func randTextArray(rng *rand.Rand) *Array {
	alphabet := []string{"a", " ", "\"", "\\", "{", "}", ",", "NULL", "null", "é", "\t", "x", "'", "(", ""}
	n := rng.Intn(4)
	a := &Array{Elem: TextT}
	for i := 0; i < n; i++ {
		if rng.Intn(6) == 0 {
			a.Elems = append(a.Elems, nil)
			continue
		}
		var b strings.Builder
		for j := rng.Intn(4); j > 0; j-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		a.Elems = append(a.Elems, b.String())
	}
	if n > 0 {
		a.Dims = []int{n}
	}
	return a
}

func randJSON(rng *rand.Rand, depth int) string {
	k := rng.Intn(7)
	if depth > 3 {
		k = rng.Intn(4)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[rng.Intn(2)]
	case 2:
		return randNumeric(rng)[:0] + []string{"1", "-0", "1.50", "1e3", "0.001", "-12.5e-2"}[rng.Intn(6)]
	case 3:
		return []string{`"a"`, `""`, `"\u00e9\n"`, `"ab"`, `"\"x\""`}[rng.Intn(5)]
	case 4:
		var parts []string
		for i := rng.Intn(4); i > 0; i-- {
			parts = append(parts, randJSON(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	var parts []string
	for i := rng.Intn(5); i > 0; i-- {
		key := []string{"a", "b", "aa", "", "ab", "ba", "é"}[rng.Intn(7)]
		parts = append(parts, fmt.Sprintf("%q:%s", key, randJSON(rng, depth+1)))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
