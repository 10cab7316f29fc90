package exec

import (
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
)

// defaultSession is a session whose settings all have their defaults.
type defaultSession struct{}

func (defaultSession) User() string          { return "cairn" }
func (defaultSession) Database() string      { return "cairn" }
func (defaultSession) CurrentSchema() string { return "public" }
func (defaultSession) SearchPath() []string  { return []string{"public"} }
func (defaultSession) Setting(name string) (string, bool) {
	st, ok := settings[name]
	return st.def, ok
}

// pg_settings describes every setting cairn has, except the two that
// PostgreSQL leaves out of it too.
func TestPgSettingsListsEverySetting(t *testing.T) {
	v := syscat.NewView(&catalog.Catalog{}, "cairn", "cairn", []string{"public"})
	v.Settings = sessionSettings(defaultSession{})
	listed := map[string]bool{}
	for _, row := range syscat.Lookup("pg_catalog", "pg_settings").Rows(v) {
		listed[strings.ToLower(row[0].(string))] = true
	}
	for name := range settings {
		hidden := name == "is_superuser" || name == "session_authorization"
		if listed[name] == hidden {
			t.Errorf("setting %s: listed in pg_settings %v", name, listed[name])
		}
	}
}
