package session

import (
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
)

// pg_settings describes every setting cairn has, except the three that
// PostgreSQL leaves out of it too.
func TestPgSettingsListsEverySetting(t *testing.T) {
	v := syscat.NewView(&catalog.Catalog{}, "cairn", "cairn", []string{"public"})
	v.Settings = (&statementEnv{sess: &Session{engine: &Engine{}}, values: map[string]string{}}).SettingRows()
	listed := map[string]bool{}
	for _, row := range syscat.Lookup("pg_catalog", "pg_settings").Rows(v) {
		listed[strings.ToLower(row[0].(string))] = true
	}
	for name := range settings {
		hidden := name == "is_superuser" || name == "session_authorization" || name == "role"
		if listed[name] == hidden {
			t.Errorf("setting %s: listed in pg_settings %v", name, listed[name])
		}
	}
}
