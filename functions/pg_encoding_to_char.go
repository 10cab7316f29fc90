package functions

// pg_encoding_to_char(encoding): the name of a character set encoding
// number, as psql's \l prints pg_database.encoding. cairn's databases are
// all UTF8 (6), but clients may ask about any number, so PostgreSQL 15's
// whole table is here; numbers outside it give "".

import "github.com/cairn-db/cairn/sql/types"

// encodingNames is PostgreSQL's pg_enc2name_tbl, indexed by encoding
// number.
var encodingNames = []string{
	"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8", "MULE_INTERNAL",
	"LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10",
	"WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252",
	"ISO_8859_5", "ISO_8859_6", "ISO_8859_7", "ISO_8859_8",
	"WIN1250", "WIN1253", "WIN1254", "WIN1255", "WIN1257", "KOI8U",
	"SJIS", "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004",
}

func init() {
	Register(allStable(fn1("pg_encoding_to_char", tInt4, types.NameT, func(a any) (any, error) {
		if n := a.(int64); n >= 0 && n < int64(len(encodingNames)) {
			return encodingNames[n], nil
		}
		return "", nil
	}))...)
}

// encodingAliases are the other names PostgreSQL's pg_char_to_encoding
// knows (its pg_encname_tbl), cleaned as encodingKey cleans them.
var encodingAliases = map[string]string{
	"abc": "WIN1258", "alt": "WIN866", "iso88591": "LATIN1", "iso88592": "LATIN2", "iso88593": "LATIN3",
	"iso88594": "LATIN4", "iso88599": "LATIN5", "iso885910": "LATIN6", "iso885913": "LATIN7",
	"iso885914": "LATIN8", "iso885915": "LATIN9", "iso885916": "LATIN10", "iso88595": "ISO_8859_5",
	"iso88596": "ISO_8859_6", "iso88597": "ISO_8859_7", "iso88598": "ISO_8859_8", "koi8": "KOI8R",
	"mskanji": "SJIS", "shiftjis": "SJIS", "tcvn": "WIN1258", "tcvn5712": "WIN1258", "unicode": "UTF8",
	"vscii": "WIN1258", "win": "WIN1251", "win932": "SJIS", "win936": "GBK", "win949": "UHC", "win950": "BIG5",
	"windows1250": "WIN1250", "windows1251": "WIN1251", "windows1252": "WIN1252", "windows1253": "WIN1253",
	"windows1254": "WIN1254", "windows1255": "WIN1255", "windows1256": "WIN1256", "windows1257": "WIN1257",
	"windows1258": "WIN1258", "windows866": "WIN866", "windows874": "WIN874", "windows932": "SJIS",
	"windows936": "GBK", "windows949": "UHC", "windows950": "BIG5",
}

// encodingKey cleans an encoding name as PostgreSQL compares them:
// lower case, letters and digits only ("ISO-8859-1" is "iso88591").
func encodingKey(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return string(b)
}

func init() {
	// pg_char_to_encoding(name): the number of an encoding name or
	// alias, -1 for none; getdatabaseencoding(): the database's, UTF8.
	Register(allStable(fn1("pg_char_to_encoding", types.NameT, tInt4, func(a any) (any, error) {
		key := encodingKey(a.(string))
		if alias, ok := encodingAliases[key]; ok {
			key = encodingKey(alias)
		}
		for i, n := range encodingNames {
			if encodingKey(n) == key {
				return int64(i), nil
			}
		}
		return int64(-1), nil
	}))...)
	Register(allStable(fn("getdatabaseencoding", nil, types.NameT, func(*Context, []any) (any, error) {
		return "UTF8", nil
	}))...)
}
