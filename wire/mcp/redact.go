package mcp

import (
	"regexp"
	"slices"
	"strings"
)

// A secretPattern is one well-known kind of secret. When keep is set, the
// first submatch (a "password=" key) stays and only the rest is replaced.
type secretPattern struct {
	kind string
	re   *regexp.Regexp
	keep bool
}

// secretPatterns are the secrets redacted before a memory or trace is
// stored: the formats of the common cloud and forge tokens, PEM private
// keys, credentials in URLs and key=value assignments of passwords and
// API keys. Private keys come first, so their base64 body is not matched
// piecemeal.
var secretPatterns = []secretPattern{
	{"private-key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), false},
	{"aws-access-key-id", regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`), false},
	{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`), false},
	{"api-key", regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`), false},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), false},
	{"bearer-token", regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/-]{16,}=*`), true},
	{"url-password", regexp.MustCompile(`(://[^/\s:@]+:)[^/\s@]+@`), true},
	{"password", regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|secret[_-]?key|aws_secret_access_key|token|auth[_-]?token)\s*[:=]\s*)(?:"[^"\n]*"|'[^'\n]*'|[^\s"',;]+)`), true},
}

// Redaction says what redact replaced: the kinds of secret found and how
// many of each.
type Redaction struct {
	Kind  string `json:"kind" jsonschema:"the kind of secret, e.g. aws-access-key-id, github-token, private-key, password"`
	Count int    `json:"count" jsonschema:"how many were replaced"`
}

// redact replaces the secrets in s with [REDACTED:<kind>] and reports
// them; found accumulates over several calls (the fields of one trace).
func redact(s string, found []Redaction) (string, []Redaction) {
	for _, p := range secretPatterns {
		n := 0
		s = p.re.ReplaceAllStringFunc(s, func(m string) string {
			mark := "[REDACTED:" + p.kind + "]"
			if !p.keep {
				n++
				return mark
			}
			key := p.re.FindStringSubmatch(m)[1]
			if strings.HasPrefix(m[len(key):], "[REDACTED:") {
				return m // an earlier pattern's mark: "token=[REDACTED:github-token]"
			}
			n++
			if p.kind == "url-password" {
				return key + mark + "@"
			}
			return key + mark
		})
		if n == 0 {
			continue
		}
		if i := slices.IndexFunc(found, func(r Redaction) bool { return r.Kind == p.kind }); i >= 0 {
			found[i].Count += n
		} else {
			found = append(found, Redaction{Kind: p.kind, Count: n})
		}
	}
	return s, found
}
