// Package jsonstr writes JSON string literals as PostgreSQL's escape_json
// does: the one quoting that json and jsonb output, the JSON functions and
// jsonpath's canonical text share. It is a leaf.
package jsonstr

// Append appends s to dst as a JSON string literal: quotes, backslashes
// and \b \f \n \r \t escaped by name, other control characters as \u00XX,
// everything else (UTF-8 included) as it is.
func Append(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		default:
			if c < ' ' {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}
