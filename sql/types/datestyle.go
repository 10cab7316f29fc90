package types

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// DateOutput is the output half of the DateStyle setting: how date,
// timestamp and timestamptz values are printed.
type DateOutput uint8

// The DateStyle output styles (PostgreSQL's USE_*_DATES).
const (
	DateOutputISO      DateOutput = iota // 2024-01-02 03:04:05+09
	DateOutputSQL                        // 01/02/2024 03:04:05 JST
	DateOutputPostgres                   // Tue Jan 02 03:04:05 2024 JST
	DateOutputGerman                     // 02.01.2024 03:04:05 JST
)

// DateOrder is the field order half of the DateStyle setting: the order
// in which ambiguous date input ('01/02/2024') is read, and in the SQL and
// Postgres output styles whether the day or the month comes first.
type DateOrder uint8

// The DateStyle field orders (PostgreSQL's DATEORDER_*).
const (
	DateOrderMDY DateOrder = iota
	DateOrderDMY
	DateOrderYMD
)

// DateStyle is the DateStyle setting. The zero value is PostgreSQL's
// default, ISO, MDY.
type DateStyle struct {
	Output DateOutput
	Order  DateOrder
}

// String is the setting's canonical form, as SHOW DateStyle prints it.
func (d DateStyle) String() string {
	var out string
	switch d.Output {
	case DateOutputSQL:
		out = "SQL"
	case DateOutputPostgres:
		out = "Postgres"
	case DateOutputGerman:
		out = "German"
	default:
		out = "ISO"
	}
	switch d.Order {
	case DateOrderDMY:
		return out + ", DMY"
	case DateOrderYMD:
		return out + ", YMD"
	}
	return out + ", MDY"
}

// ParseDateStyle reads a value given to the DateStyle setting as
// PostgreSQL's check_datestyle does: a comma-separated list of an output
// style (ISO, SQL, Postgres, German) and a field order (DMY or
// Euro[pean], MDY or US or NonEuro[pean], YMD), either of which may be
// left out to keep cur's, or DEFAULT (ISO, MDY) for whichever the rest of
// the list does not give. German without an order also sets DMY. The
// error is PostgreSQL's 22023 with its detail.
func ParseDateStyle(v string, cur DateStyle) (DateStyle, error) {
	bad := func(detail string, args ...any) error {
		return pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v).
			WithDetail(detail, args...)
	}
	words, ok := SplitIdentifierList(v)
	if !ok {
		return cur, bad("List syntax is invalid.")
	}
	out := cur
	haveOutput, haveOrder, conflict := false, false, false
	setOutput := func(o DateOutput) {
		if haveOutput && out.Output != o {
			conflict = true
		}
		out.Output = o
		haveOutput = true
	}
	setOrder := func(o DateOrder) {
		if haveOrder && out.Order != o {
			conflict = true
		}
		out.Order = o
		haveOrder = true
	}
	for _, word := range words {
		// A quoted word keeps its case, but the key words match in any.
		w := strings.ToLower(word)
		switch {
		case w == "iso":
			setOutput(DateOutputISO)
		case w == "sql":
			setOutput(DateOutputSQL)
		case strings.HasPrefix(w, "postgres"):
			setOutput(DateOutputPostgres)
		case w == "german":
			setOutput(DateOutputGerman)
			if !haveOrder {
				out.Order = DateOrderDMY
			}
		case w == "ymd":
			setOrder(DateOrderYMD)
		case w == "dmy" || strings.HasPrefix(w, "euro"):
			setOrder(DateOrderDMY)
		case w == "mdy" || w == "us" || strings.HasPrefix(w, "noneuro"):
			setOrder(DateOrderMDY)
		case w == "default":
			if !haveOutput {
				out.Output = DateOutputISO
			}
			if !haveOrder {
				out.Order = DateOrderMDY
			}
		default:
			return cur, bad("Unrecognized key word: \"%s\".", word)
		}
	}
	if conflict {
		return cur, bad("Conflicting \"datestyle\" specifications.")
	}
	return out, nil
}

// SplitIdentifierList is PostgreSQL's SplitIdentifierString with a comma
// separator, which reads DateStyle and search_path: identifiers,
// double-quoted or folded to lower case, separated by commas and
// optional whitespace; an empty string is an empty list. ok is false for
// an empty element, an unterminated quote or two words without a comma
// between them.
func SplitIdentifierList(s string) (words []string, ok bool) {
	i := 0
	skipSpace := func() {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	skipSpace()
	if i == len(s) {
		return nil, true
	}
	for {
		var w string
		if s[i] == '"' {
			var b strings.Builder
			i++
			for {
				end := strings.IndexByte(s[i:], '"')
				if end < 0 {
					return nil, false
				}
				b.WriteString(s[i : i+end])
				i += end + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			w = b.String()
		} else {
			start := i
			for i < len(s) && s[i] != ',' && !isSpace(s[i]) {
				i++
			}
			w = strings.ToLower(s[start:i])
		}
		if w == "" {
			return nil, false
		}
		words = append(words, ClipName(w))
		skipSpace()
		if i == len(s) {
			return words, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
		skipSpace()
		if i == len(s) {
			return nil, false
		}
	}
}
