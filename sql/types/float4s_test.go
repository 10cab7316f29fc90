package types

import (
	"encoding/json"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseFloat4 checks the one-pass parser of real[] text (COPY) and
// JSON (HTTP) input, on one-element lists, against strconv (correct
// rounding, the sign of zero): on the shortest texts of random float32s,
// on random digit strings (9 to 17 digits, which round), on halfway
// cases, on zeros, and that what it leaves to the input function (a
// nonzero number that rounds to zero, out of range, not a plain number)
// it does not take.
func TestParseFloat4(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	check := func(s string) {
		t.Helper()
		want, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		got, ok := ParseFloat4s(nil, []byte("{"+s+"}"))
		mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
		underflow := want == 0 && strings.ContainsAny(mantissa, "123456789")
		if err != nil || underflow || math.IsInf(want, 0) || math.IsNaN(want) || strings.ContainsAny(s, "xX") {
			if ok {
				t.Fatalf("%q: took %v, want it left to the input function", s, got)
			}
			return
		}
		if !ok || len(got) != 1 || math.Float32bits(got[0]) != math.Float32bits(float32(want)) {
			t.Fatalf("%q: %v (%v), want %v", s, got, ok, float32(want))
		}
	}
	for range 200000 {
		x := math.Float32frombits(rng.Uint32())
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			continue
		}
		check(strconv.FormatFloat(float64(x), 'g', -1, 32))
		check(strconv.FormatFloat(float64(x), 'e', 12, 32))
		check(strconv.FormatFloat(rng.NormFloat64()*0.05, 'g', -1, 32))
		check(strconv.FormatFloat(rng.NormFloat64()*0.05, 'f', 9+rng.Intn(9), 64))
		// Halfway between two float32s, and one float64 ulp either side.
		mid := (float64(x) + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
		check(strconv.FormatFloat(mid, 'g', -1, 64))
		check(strconv.FormatFloat(math.Nextafter(mid, 0), 'g', -1, 64))
		check(strconv.FormatFloat(math.Nextafter(mid, math.Inf(1)), 'g', -1, 64))
	}
	for _, s := range []string{"0", "-0", "0.000", "-0.0e-99", "0e99999", "000000000000000000000000", "1e-50", "1e39", "3.4028236e38", "1.17549435e-38", "1e-40",
		"+1.5", "-.5", "5.", ".", "-", "1e", "1e+", "1.2.3", "--1", "1e5e5", "0x1p3", "inf", "NaN", " 1", "1 ",
		"123456789012345678901234567890", "0.0000000000000000000000001234", "1e0000000000000000000007",
		// Fractions of eight digits and more, read eight at a time while
		// at most 19 digits are in the mantissa.
		"0.12345678", "-0.02264314", "1.12345678e-3", "12345678901.23456789", "123456789012.12345678",
		"0.123456789012345678", "0.1234567/", "0.12345678:", "0.1234567 8"} {
		check(s)
	}
}

// TestParseFloat4sList checks that the one-pass list parser takes the
// same lists as cutting each element out and parsing it alone would, with
// the same values: white space around elements, elements it leaves to
// parseFloat4 (halfway cases, long digit strings) and ones nothing takes.
func TestParseFloat4sList(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	elems := []string{"1", "-0.5", "3.25e-3", "+7E2", "0.1234567", "123456789012345678", "1.0000000596046448",
		"0", "1e", "x", "", "1 2", "1e5e5", "inf", "-", ".5", "5.", "1e-50", "3.4028236e38"}
	spaces := []string{"", "", "", " ", "\t", "\n ", "\v\f\r"}
	for range 100000 {
		in, want, wantOK := randomFloatList(rng, elems, spaces, '{', '}')
		checkFloatList(t, in, ParseFloat4s, want, wantOK)
	}
}

// TestParseJSONFloat4s checks that the JSON list parser takes exactly
// the arrays encoding/json finds valid whose elements are numbers it
// parses (RFC 8259's grammar and white space, not array input's: no
// '+', leading zero, ".5", "5." or \v), with parseFloat4's values.
func TestParseJSONFloat4s(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	elems := []string{"1", "-0.5", "3.25e-3", "7E+2", "0", "-0", "0.0", "0e5", "123456789012345678",
		"1.0000000596046448", "+1", "01", "-01", "00", ".5", "-.5", "5.", "5.e3", "1e", "1e+", "-", "--1",
		"1e-50", "3.4028236e38", "1 2", "", "null", `"1"`, "[1]", "true", "0x10", "Infinity"}
	spaces := []string{"", "", "", " ", "\t", "\n ", "\r", "\v", "\f"}
	for range 100000 {
		in, want, wantOK := randomFloatList(rng, elems, spaces, '[', ']')
		checkFloatList(t, in, ParseJSONFloat4s, want, wantOK && json.Valid(in))
	}
}

// randomFloatList builds a list of one to four elements between open and
// close, each one of elems or a random float's text with spaces around
// it, and the values parsing each element alone gives (wantOK: every
// element parses).
func randomFloatList(rng *rand.Rand, elems, spaces []string, open, close byte) (in []byte, want []float32, wantOK bool) {
	wantOK = true
	in = append(in, open)
	for k := range 1 + rng.Intn(4) {
		if k > 0 {
			in = append(in, ',')
		}
		e := elems[rng.Intn(len(elems))]
		if rng.Intn(3) == 0 {
			e = strconv.FormatFloat(rng.NormFloat64()*0.05, 'g', -1, 32)
		}
		in = append(in, spaces[rng.Intn(len(spaces))]+e+spaces[rng.Intn(len(spaces))]...)
		x, ok := parseFloat4([]byte(e))
		wantOK = wantOK && ok
		want = append(want, x)
	}
	return append(in, close), want, wantOK
}

// checkFloatList fails t unless parse takes in exactly when wantOK, with
// the values want (bit for bit: the sign of zero counts).
func checkFloatList(t *testing.T, in []byte, parse func([]float32, []byte) ([]float32, bool), want []float32, wantOK bool) {
	t.Helper()
	got, ok := parse(nil, in)
	if ok != wantOK || ok && !slices.EqualFunc(got, want, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
		t.Fatalf("%q: %v %v, want %v %v", in, got, ok, want, wantOK)
	}
}

// TestParseFloat4ArrayLiteral checks that a real[] literal read by the
// one-pass path (an embedding written into a query) is the array the
// general input function gives, and that what the path leaves (NULLs,
// quotes, zeros, more dimensions, bad input) still gets that function's
// answer or error.
func TestParseFloat4ArrayLiteral(t *testing.T) {
	real4 := Float4ArrayT
	rng := rand.New(rand.NewSource(3))
	var inputs []string
	for range 2000 {
		parts := make([]string, 1+rng.Intn(8))
		for i := range parts {
			parts[i] = strconv.FormatFloat(rng.NormFloat64()*0.05, 'g', -1, 32)
		}
		inputs = append(inputs, "{"+strings.Join(parts, ",")+"}", "{ "+strings.Join(parts, " , ")+" }")
	}
	inputs = append(inputs, "{}", "{0,1}", "{1,NULL}", "{\"1.5\",2}", "{{1,2},{3,4}}", "[1:2]={1,2}", "{1e39}",
		"{1,x}", "{1,,2}", "{", "{1", " {1,2}", "{1,2} ", "{-0.5,1e-50}", "{inf,-Infinity,NaN}",
		"{+0.5,-0.25,+1e-3,-7}", "{-,1}", "{+-1}", "{ -0.125 , +2 }")
	for _, in := range inputs {
		got, gotErr := ParseTextOpts(in, real4, nil)
		want, wantErr := parseArray(in, Float4T, optsOrDefault(nil))
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, want %v", in, gotErr, wantErr)
		}
		if gotErr == nil && FormatText(got, real4) != FormatText(want, real4) {
			t.Fatalf("%q: %s, want %s", in, FormatText(got, real4), FormatText(want, real4))
		}
		if a, ok := got.(*Array); ok && gotErr == nil && (!slices.Equal(a.Dims, want.Dims) || !a.Elem.Equal(want.Elem)) {
			t.Fatalf("%q: dims %v elem %v, want %v %v", in, a.Dims, a.Elem, want.Dims, want.Elem)
		}
	}
}

// BenchmarkParseFloat4s times the parse of 384-d embeddings in real[]
// text form, as COPY reads them: 256 different ones in turn, as a load
// has (one line parsed again and again lets the branch predictor learn
// its every digit count, and times the parser half as slow as a load
// finds it).
func BenchmarkParseFloat4s(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	lines := make([][]byte, 256)
	size := 0
	for l := range lines {
		f := []byte{'{'}
		for i := range 384 {
			if i > 0 {
				f = append(f, ',')
			}
			f = strconv.AppendFloat(f, rng.NormFloat64()*0.05, 'g', -1, 32)
		}
		lines[l] = append(f, '}')
		size += len(lines[l])
	}
	var dst []float32
	b.SetBytes(int64(size / len(lines)))
	i := 0
	for b.Loop() {
		var ok bool
		if dst, ok = ParseFloat4s(dst[:0], lines[i%len(lines)]); !ok {
			b.Fatal("not taken")
		}
		i++
	}
}
