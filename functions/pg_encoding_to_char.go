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
