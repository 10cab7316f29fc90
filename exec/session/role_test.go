package session

import "testing"

// Passwords in role statements are masked wherever statement text is
// shown or logged; other text is left alone.
func TestRedactPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE ROLE a LOGIN PASSWORD 'se''cret' VALID UNTIL 'x'": "CREATE ROLE a LOGIN PASSWORD '********' VALID UNTIL 'x'",
		"alter user a with password E'p\\\\w'":                    "alter user a with PASSWORD '********'",
		"ALTER ROLE a PASSWORD $q$dollar'd$q$ LOGIN":              "ALTER ROLE a PASSWORD '********' LOGIN",
		"ALTER ROLE a PASSWORD NULL":                              "ALTER ROLE a PASSWORD NULL",
		"SELECT 'password'":                                       "SELECT 'password'",
		`ALTER ROLE a PASSWORD E'it\'s' LOGIN`:                    "ALTER ROLE a PASSWORD '********' LOGIN",
		"SELECT 1":                                                "SELECT 1",
	} {
		if got := redactPasswords(in); got != want {
			t.Errorf("redactPasswords(%q) = %q, want %q", in, got, want)
		}
	}
}
