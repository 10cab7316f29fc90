package functions

// convert_to(text, encoding) -> bytea, convert_from(bytea, encoding) ->
// text and convert(bytea, from, to) -> bytea: text to and from the bytes
// of an encoding. cairn's text is UTF-8 (the server encoding), so UTF8
// and SQL_ASCII keep the bytes (checked to be UTF-8 where they become
// text) and LATIN1 maps each byte to the code point of its value; other
// PostgreSQL encodings are 0A000, names of none 22023.
// convert_from(decode(b64, 'base64'), 'UTF8') is the common use.

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// encodingName is the canonical name of a PostgreSQL encoding as a
// conversion function's argument names it ("utf-8", "Latin1"), and
// whether cairn converts it.
func encodingName(name, role string) (string, error) {
	key := strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(name))
	switch key {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	case "SQLASCII":
		return "SQL_ASCII", nil
	case "LATIN1", "ISO88591":
		return "LATIN1", nil
	case "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10",
		"WIN1250", "WIN1251", "WIN1252", "WIN1253", "WIN1254", "WIN1255", "WIN1256", "WIN1257", "WIN1258",
		"WIN866", "WIN874", "KOI8R", "KOI8U", "EUCJP", "EUCCN", "EUCKR", "EUCTW", "EUCJIS2004", "SJIS",
		"SHIFTJIS2004", "BIG5", "GBK", "GB18030", "UHC", "JOHAB", "MULEINTERNAL", "ISO88595", "ISO88596",
		"ISO88597", "ISO88598":
		return "", pgerr.NotSupported("conversion to or from encoding %s (cairn converts UTF8, SQL_ASCII and LATIN1)", strings.ToUpper(name))
	}
	return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid %s encoding name \"%s\"", role, name)
}

// decodeBytes is the text the bytes b of encoding enc stand for. A zero
// byte is no character in any of them (text cannot hold one), 22021 as in
// PostgreSQL.
func decodeBytes(b []byte, enc string) (string, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return "", pgerr.New(pgerrcode.CharacterNotInRepertoire, "invalid byte sequence for encoding \"%s\": 0x00", enc)
	}
	if enc == "LATIN1" {
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			_, n := utf8.DecodeRune(b[i:])
			if n == 1 && b[i] >= utf8.RuneSelf {
				break
			}
			i += n
		}
		return "", pgerr.New(pgerrcode.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", b[i])
	}
	return string(b), nil
}

// encodeText is the bytes of text s in encoding enc.
func encodeText(s, enc string) ([]byte, error) {
	if enc != "LATIN1" {
		return []byte(s), nil
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, pgerr.New(pgerrcode.UntranslatableCharacter, "character with byte sequence %s in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\"", utf8Bytes(r))
		}
		out = append(out, byte(r))
	}
	return out, nil
}

// utf8Bytes writes a rune's UTF-8 bytes as PostgreSQL's messages do:
// 0xe2 0x82 0xac.
func utf8Bytes(r rune) string {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("0x%02x", buf[i])
	}
	return strings.Join(parts, " ")
}

func init() {
	Register(
		fn("convert_to", targs(tText, tText), types.ByteaT, func(_ *Context, a []any) (any, error) {
			enc, err := encodingName(a[1].(string), "destination")
			if err != nil {
				return nil, err
			}
			return encodeText(a[0].(string), enc)
		}),
		fn("convert_from", targs(types.ByteaT, tText), tText, func(_ *Context, a []any) (any, error) {
			enc, err := encodingName(a[1].(string), "source")
			if err != nil {
				return nil, err
			}
			return decodeBytes(a[0].([]byte), enc)
		}),
		fn("convert", targs(types.ByteaT, tText, tText), types.ByteaT, func(_ *Context, a []any) (any, error) {
			from, err := encodingName(a[1].(string), "source")
			if err != nil {
				return nil, err
			}
			to, err := encodingName(a[2].(string), "destination")
			if err != nil {
				return nil, err
			}
			s, err := decodeBytes(a[0].([]byte), from)
			if err != nil {
				return nil, err
			}
			return encodeText(s, to)
		}),
	)
}
