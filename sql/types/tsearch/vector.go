package tsearch

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// PostgreSQL's limits on tsvector and tsquery (ts_type.h).
const (
	// MaxWordLen is the longest lexeme, in bytes.
	MaxWordLen = 1<<11 - 1
	// MaxStrPos is the most bytes of lexemes in a tsvector.
	MaxStrPos = 1<<20 - 1
	// MaxPos is the largest position; larger ones are clamped to it.
	MaxPos = 1<<14 - 1
	// MaxNumPos is one more than the most positions one lexeme keeps.
	MaxNumPos = 256
)

// Pos is a lexeme's position and weight packed as PostgreSQL's
// WordEntryPos: the weight (3 = A ... 0 = D) in the top two bits, the
// position (1 to MaxPos) in the low fourteen.
type Pos uint16

// MakePos packs a position (clamped to MaxPos) and a weight.
func MakePos(pos int, weight uint8) Pos {
	if pos > MaxPos {
		pos = MaxPos
	}
	return Pos(uint16(weight)<<14 | uint16(pos))
}

// Pos is the position.
func (p Pos) Pos() int { return int(p & MaxPos) }

// Weight is the weight, 3 (A) to 0 (D).
func (p Pos) Weight() uint8 { return uint8(p >> 14) }

// Lexeme is one entry of a tsvector: the word and its positions, sorted
// by position and unique (empty for a lexeme without positions).
type Lexeme struct {
	Word string
	Pos  []Pos
}

// Vector is a tsvector: lexemes sorted by their bytes, each once.
type Vector []Lexeme

// weightLetters are the weight letters, indexed by weight (0 = D).
const weightLetters = "DCBA"

// Normalize returns the canonical text of the tsvector written s.
func NormalizeVector(s string) (string, error) {
	v, err := ParseVector(s)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// ParseVector reads tsvector text as tsvectorin does: lexemes separated
// by white space, each bare (backslash escapes a character) or quoted
// with ' (” and backslash escape), optionally followed by :positions
// with weights ("'cat':1A,3").
func ParseVector(s string) (Vector, error) {
	p := valueParser{s: s}
	var out Vector
	total := 0
	for {
		word, pos, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if err := checkWord(word); err != nil {
			return nil, err
		}
		total += len(word)
		if total > MaxStrPos {
			return nil, errTooLong(total)
		}
		out = append(out, Lexeme{Word: word, Pos: pos})
	}
	return normalizeLexemes(out), nil
}

// checkWord refuses a lexeme longer than MaxWordLen.
func checkWord(w string) error {
	if len(w) > MaxWordLen {
		return pgerr.New(pgerrcode.ProgramLimitExceeded, "word is too long (%d bytes, max %d bytes)", len(w), MaxWordLen)
	}
	return nil
}

// errTooLong is the error for a tsvector of more than MaxStrPos bytes of
// lexemes.
func errTooLong(n int) error {
	return pgerr.New(pgerrcode.ProgramLimitExceeded, "string is too long for tsvector (%d bytes, max %d bytes)", n, MaxStrPos)
}

// normalizeLexemes sorts lexemes, merges equal ones and makes each one's
// positions unique (a repeated position keeps its greatest weight) and
// fewer than MaxNumPos long.
func normalizeLexemes(v Vector) Vector {
	if len(v) == 0 {
		return Vector{}
	}
	slices.SortStableFunc(v, func(a, b Lexeme) int { return strings.Compare(a.Word, b.Word) })
	out := v[:1]
	for _, l := range v[1:] {
		last := &out[len(out)-1]
		if l.Word == last.Word {
			last.Pos = append(last.Pos, l.Pos...)
			continue
		}
		out = append(out, l)
	}
	for i := range out {
		out[i].Pos = uniquePos(out[i].Pos)
	}
	return out
}

// uniquePos sorts positions and keeps each once, with the greatest
// weight given to it, and fewer than MaxNumPos of them.
func uniquePos(ps []Pos) []Pos {
	if len(ps) <= 1 {
		return ps
	}
	slices.SortStableFunc(ps, func(a, b Pos) int { return a.Pos() - b.Pos() })
	out := ps[:1]
	for _, p := range ps[1:] {
		last := &out[len(out)-1]
		if p.Pos() == last.Pos() {
			if p.Weight() > last.Weight() {
				*last = p
			}
			continue
		}
		if len(out) >= MaxNumPos-1 {
			break
		}
		out = append(out, p)
	}
	return out
}

// String is the tsvector's text as tsvectorout prints it.
func (v Vector) String() string {
	var b strings.Builder
	for i, l := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeQuoted(&b, l.Word)
		for j, p := range l.Pos {
			if j == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p.Pos()))
			if w := p.Weight(); w != 0 {
				b.WriteByte(weightLetters[w])
			}
		}
	}
	return b.String()
}

// writeQuoted writes a lexeme quoted, with ' and backslash doubled.
func writeQuoted(b *strings.Builder, w string) {
	b.WriteByte('\'')
	for i := 0; i < len(w); i++ {
		if w[i] == '\'' || w[i] == '\\' {
			b.WriteByte(w[i])
		}
		b.WriteByte(w[i])
	}
	b.WriteByte('\'')
}

// Find is the index of word in v, or -1.
func (v Vector) Find(word string) int {
	i, ok := slices.BinarySearchFunc(v, word, func(l Lexeme, w string) int { return strings.Compare(l.Word, w) })
	if !ok {
		return -1
	}
	return i
}

// AppendBinary appends tsvectorsend's form: the lexeme count (int4), then
// each lexeme NUL-terminated, its position count (int2) and positions.
func (v Vector) AppendBinary(buf []byte) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
	for _, l := range v {
		buf = append(buf, l.Word...)
		buf = append(buf, 0)
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(l.Pos)))
		for _, p := range l.Pos {
			buf = binary.BigEndian.AppendUint16(buf, uint16(p))
		}
	}
	return buf
}

// DecodeVector reads tsvectorrecv's form, checked as PostgreSQL checks it
// (its checks are internal errors, XX000); lexemes out of order are
// sorted, as PostgreSQL sorts them.
func DecodeVector(src []byte) (Vector, error) {
	r := reader{b: src}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	if n > MaxStrPos/2 {
		return nil, pgerr.New(pgerrcode.InternalError, "invalid size of tsvector")
	}
	v := make(Vector, 0, n)
	for range n {
		w, err := r.cstring()
		if err != nil {
			return nil, err
		}
		if len(w) > MaxWordLen {
			return nil, pgerr.New(pgerrcode.InternalError, "invalid tsvector: lexeme too long")
		}
		np, err := r.u16()
		if err != nil {
			return nil, err
		}
		if np > MaxNumPos {
			return nil, pgerr.New(pgerrcode.InternalError, "unexpected number of tsvector positions")
		}
		var ps []Pos
		for range np {
			p, err := r.u16()
			if err != nil {
				return nil, err
			}
			if len(ps) > 0 && Pos(p).Pos() <= ps[len(ps)-1].Pos() {
				return nil, pgerr.New(pgerrcode.InternalError, "position information is misordered")
			}
			ps = append(ps, Pos(p))
		}
		v = append(v, Lexeme{Word: w, Pos: ps})
	}
	if len(r.b) != 0 {
		return nil, pgerr.New(pgerrcode.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return normalizeLexemes(v), nil
}

// reader consumes a binary value.
type reader struct{ b []byte }

func errInsufficient() error {
	return pgerr.New(pgerrcode.InvalidBinaryRepresentation, "insufficient data left in message")
}

func (r *reader) u8() (uint8, error) {
	if len(r.b) < 1 {
		return 0, errInsufficient()
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x, nil
}

func (r *reader) u16() (uint16, error) {
	if len(r.b) < 2 {
		return 0, errInsufficient()
	}
	x := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return x, nil
}

func (r *reader) u32() (uint32, error) {
	if len(r.b) < 4 {
		return 0, errInsufficient()
	}
	x := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return x, nil
}

func (r *reader) cstring() (string, error) {
	i := slices.Index(r.b, 0)
	if i < 0 {
		return "", pgerr.New(pgerrcode.InvalidBinaryRepresentation, "invalid string in message")
	}
	s := string(r.b[:i])
	r.b = r.b[i+1:]
	return s, nil
}
