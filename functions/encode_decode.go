package functions

// encode(bytea, format) -> text and decode(text, format) -> bytea for the
// formats hex, base64 and escape (names case-insensitive), as PostgreSQL's
// encode.c writes and reads them: base64 lines wrap after 76 characters,
// decoding skips white space, and escape is bytea's escape output.

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(
		fn("encode", targs(types.ByteaT, tText), tText, func(_ *Context, a []any) (any, error) {
			b := a[0].([]byte)
			if n, ok := encodedLen(b, a[1].(string)); ok && n > int64(maxAlloc) {
				return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "result of encoding conversion is too large")
			}
			switch strings.ToLower(a[1].(string)) {
			case "hex":
				return hex.EncodeToString(b), nil
			case "base64":
				return encodeBase64(b), nil
			case "escape":
				return encodeEscape(b), nil
			}
			return nil, errEncoding(a[1].(string))
		}),
		fn("decode", targs(tText, tText), types.ByteaT, func(_ *Context, a []any) (any, error) {
			s := a[0].(string)
			switch strings.ToLower(a[1].(string)) {
			case "hex":
				// bytea's hex input is this very format after \x.
				return types.ParseText(`\x`+s, types.ByteaT)
			case "base64":
				return decodeBase64(s)
			case "escape":
				if strings.HasPrefix(s, `\x`) {
					// Not an escape sequence; bytea input would read hex.
					return nil, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type bytea")
				}
				return types.ParseText(s, types.ByteaT)
			}
			return nil, errEncoding(a[1].(string))
		}),
	)
}

// encodedLen is the length of encode(b, format), as PostgreSQL's
// encode_len functions count it before encoding (over 1GB is 54000); ok
// is false for an unknown format.
func encodedLen(b []byte, format string) (n int64, ok bool) {
	switch strings.ToLower(format) {
	case "hex":
		return 2 * int64(len(b)), true
	case "base64":
		l := int64(len(b))
		return (l+2)/3*4 + l/(base64LineLen/4*3), true
	case "escape":
		for _, c := range b {
			switch {
			case c == 0 || c >= 0x80:
				n += 4
			case c == '\\':
				n += 2
			default:
				n++
			}
		}
		return n, true
	}
	return 0, false
}

func errEncoding(name string) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized encoding: \"%s\"", name)
}

// base64LineLen is the length of PostgreSQL's base64 output lines.
const base64LineLen = 76

// encodeBase64 is standard base64 with a newline after every 76
// characters, including after the last line when it is full (input a
// multiple of 57 bytes), as pg_base64_encode writes it.
func encodeBase64(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.Grow(len(enc) + len(enc)/base64LineLen)
	for len(enc) > base64LineLen {
		sb.WriteString(enc[:base64LineLen])
		sb.WriteByte('\n')
		enc = enc[base64LineLen:]
	}
	sb.WriteString(enc)
	if len(b) > 0 && len(b)%(base64LineLen/4*3) == 0 {
		sb.WriteByte('\n')
	}
	return sb.String()
}

// decodeBase64 is pg_base64_decode: white space is skipped, '=' may only
// stand for the third or fourth symbol of a group and marks the end, and
// the input must end on a whole group. (encoding/base64 reports neither
// the same errors nor skips spaces.)
func decodeBase64(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)*3/4)
	var buf uint32
	pos, end := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v uint32
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '=':
			if end == 0 {
				switch pos {
				case 2:
					end = 1
				case 3:
					end = 2
				default:
					return nil, pgerr.New(pgerrcode.InvalidParameterValue, "unexpected \"=\" while decoding base64 sequence")
				}
			}
		default:
			d := strings.IndexByte(base64Alphabet, c)
			if d < 0 {
				_, n := utf8.DecodeRuneInString(s[i:])
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid symbol \"%s\" found while decoding base64 sequence", s[i:i+n])
			}
			v = uint32(d)
		}
		buf = buf<<6 | v
		pos++
		if pos == 4 {
			out = append(out, byte(buf>>16))
			if end == 0 || end > 1 {
				out = append(out, byte(buf>>8))
			}
			if end == 0 || end > 2 {
				out = append(out, byte(buf))
			}
			buf, pos = 0, 0
		}
	}
	if pos != 0 {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid base64 end sequence").
			WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
	}
	return out, nil
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// encodeEscape is bytea's escape output: NUL and bytes with the high bit
// set as \ooo, a backslash doubled.
func encodeEscape(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for _, c := range b {
		switch {
		case c == 0 || c >= 0x80:
			sb.WriteByte('\\')
			sb.WriteByte('0' + c>>6)
			sb.WriteByte('0' + c>>3&7)
			sb.WriteByte('0' + c&7)
		case c == '\\':
			sb.WriteString(`\\`)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
