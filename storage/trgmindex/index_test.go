package trgmindex

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// likeRegexp translates a LIKE pattern (backslash escapes) to a regular
// expression over the whole text: the oracle of the tests.
func likeRegexp(pat string, fold bool) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("(?s)^")
	if fold {
		pat = strings.ToLower(pat)
	}
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			i++
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteString(".")
		default:
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	sb.WriteString("$")
	return regexp.MustCompile(sb.String())
}

func TestLikeKeys(t *testing.T) {
	for _, tc := range []struct {
		pat  string
		fold bool
		want []string // trigrams in key order, Boundary shown as a space
		ok   bool
	}{
		{"%ab%", true, nil, true},
		{"%abc%", true, []string{"abc"}, true},
		{"%ABC%", true, []string{"abc"}, true},
		{"%ABC%", false, []string{"abc"}, true},
		{"abc%", false, []string{"abc", " ab"}, true},
		{"%bc", false, []string{"bc "}, true},
		{"ab", false, []string{"ab ", " ab"}, true},
		{"a", false, []string{" a "}, true},
		{"", false, nil, true},
		{"%", false, nil, true},
		{"a_c%", false, nil, true},
		{"%a\\%b%", false, []string{"a%b"}, true},
		{"%abc\\", false, nil, false},
		{"%ÄÖÜ%", true, []string{"äöü"}, true},
		{"%x\xffy%", false, nil, false},
	} {
		keys, ok := LikeKeys(tc.pat, tc.fold)
		var got []string
		for _, k := range keys {
			got = append(got, k.String())
		}
		if ok != tc.ok || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("LikeKeys(%q, %v) = %q, %v; want %q, %v", tc.pat, tc.fold, got, ok, tc.want, tc.ok)
		}
	}
}

// randomText draws short strings from a small alphabet with upper case,
// non-ASCII letters, spaces and LIKE's special characters, so that
// patterns drawn the same way match often.
func randomText(r *rand.Rand, n int) string {
	alphabet := []rune("abcABCäÄßσΣ %_\\ ")
	var sb strings.Builder
	for i := r.Intn(n + 1); i > 0; i-- {
		sb.WriteRune(alphabet[r.Intn(len(alphabet))])
	}
	return sb.String()
}

func randomPattern(r *rand.Rand) string {
	parts := []string{"%", "_", "\\%", "\\_", "\\\\"}
	var sb strings.Builder
	for i := r.Intn(5); i >= 0; i-- {
		if r.Intn(3) == 0 {
			sb.WriteString(parts[r.Intn(len(parts))])
		} else {
			s := randomText(r, 4)
			s = strings.NewReplacer("%", "", "_", "", "\\", "").Replace(s)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

// TestCandidatesSuperset checks, against a regular-expression LIKE, that
// the index never loses a matching row, that its candidates are exactly
// the rows Holds accepts, and that an encoded index reads back the same.
func TestCandidatesSuperset(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var texts []string
	null := map[int]bool{}
	b := NewBuilder()
	for i := 0; i < 3000; i++ {
		if r.Intn(20) == 0 {
			null[i] = true
			texts = append(texts, "")
			b.AddNull()
			continue
		}
		s := randomText(r, 12)
		texts = append(texts, s)
		b.Add(s)
	}
	ix := b.Build()
	enc, err := ix.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(enc)
	if err != nil {
		t.Fatal(err)
	}
	if back.Rows() != ix.Rows() || back.Trigrams() != ix.Trigrams() {
		t.Fatalf("read back %d rows, %d trigrams; want %d, %d", back.Rows(), back.Trigrams(), ix.Rows(), ix.Trigrams())
	}
	used := 0
	for q := 0; q < 400; q++ {
		pat := randomPattern(r)
		fold := r.Intn(2) == 0
		keys, ok := LikeKeys(pat, fold)
		if !ok || len(keys) == 0 {
			continue
		}
		used++
		re := likeRegexp(pat, fold)
		cand := ix.Candidates(keys)
		if !cand.Equals(back.Candidates(keys)) {
			t.Fatalf("%q: the index read back finds other rows", pat)
		}
		for i, s := range texts {
			if null[i] {
				if cand.Contains(uint32(i)) {
					t.Fatalf("%q: NULL row %d is a candidate", pat, i)
				}
				continue
			}
			subject := s
			if fold {
				subject = strings.ToLower(s)
			}
			if re.MatchString(subject) && !cand.Contains(uint32(i)) {
				t.Fatalf("pattern %q (fold %v) matches %q but row %d is no candidate", pat, fold, s, i)
			}
			if Holds(s, keys) != cand.Contains(uint32(i)) {
				t.Fatalf("pattern %q: Holds(%q) disagrees with the index", pat, s)
			}
		}
	}
	if used < 100 {
		t.Fatalf("only %d patterns had trigrams", used)
	}
}

func TestReadRejectsCorrupt(t *testing.T) {
	b := NewBuilder()
	for _, s := range []string{"hello world", "Hallo Welt", "ciao mondo"} {
		b.Add(s)
	}
	enc, err := b.Build().Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, enc[:len(enc)-1], append(append([]byte(nil), enc...), 0), {1, 0xff, 0xff, 0xff, 0xff, 0x0f}} {
		if _, err := Read(bad); err == nil {
			t.Errorf("Read(%x) succeeded", bad)
		}
	}
	// A posting beyond the rows: the same index claiming fewer rows.
	short := append([]byte{1}, enc[1:]...)
	if _, err := Read(short); err == nil {
		t.Error("Read of an index with postings beyond its rows succeeded")
	}
}

func BenchmarkBuild(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("the quick brown fox jumps over lazy dog memory agent trace tool output summary session error retry")
	texts := make([]string, 10000)
	for i := range texts {
		var sb strings.Builder
		for j := 0; j < 12; j++ {
			sb.WriteString(words[r.Intn(len(words))])
			sb.WriteByte(' ')
		}
		texts[i] = sb.String()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl := NewBuilder()
		for _, s := range texts {
			bl.Add(s)
		}
		bl.Build()
	}
}
