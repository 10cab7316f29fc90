package exec

import (
	"strings"

	"github.com/cairn-db/cairn/sql"
)

// SetSetting implements functions.SettingWriter: set_config runs as the
// SET (or RESET) statement would, and returns the new value.
func (s *Session) SetSetting(name, value string, reset, local bool) (string, error) {
	name = strings.ToLower(name)
	if err := s.runSet(&sql.Set{Name: name, Value: value, Local: local, Reset: reset}); err != nil {
		return "", err
	}
	v, _ := s.Setting(name)
	return v, nil
}
