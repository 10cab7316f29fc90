package session

import (
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/tsearch"
)

// ServerVersion is the PostgreSQL version cairn reports: clients choose
// their SQL dialect from it.
const ServerVersion = "15.6"

// setting describes one run-time parameter.
type setting struct {
	def string
	// report: sent to the client as ParameterStatus when it changes.
	report bool
	// readOnly settings can be shown but not set.
	readOnly bool
	// postmaster marks a read-only setting that PostgreSQL sets at server
	// start, for which its error says a restart is needed.
	postmaster bool
	// check validates and normalises a new value.
	check func(string) (string, error)
	// update is check for a setting whose new value depends on its
	// current one (DateStyle 'SQL' keeps the current field order).
	update func(v, cur string) (string, error)
	// show formats the stored value for SHOW and current_setting (nil:
	// as stored; pg_settings shows it as stored).
	show func(string) string
	// name marks a setting whose value PostgreSQL truncates as an
	// identifier (GUC_IS_NAME) before it checks it: to 63 bytes, with a
	// NOTICE that applySet gives.
	name bool
}

// validate checks and normalises v, a new value for the setting whose
// value is now cur.
func (st setting) validate(v, cur string) (string, error) {
	if st.name {
		v = truncateName(v)
	}
	switch {
	case st.update != nil:
		return st.update(v, cur)
	case st.check != nil:
		return st.check(v)
	}
	return v, nil
}

var settings = map[string]setting{
	"server_version":                      {def: ServerVersion, report: true, readOnly: true},
	"server_version_num":                  {def: "150006", readOnly: true},
	"server_encoding":                     {def: "UTF8", report: true, readOnly: true},
	"client_encoding":                     {def: "UTF8", report: true, check: checkEncoding},
	"datestyle":                           {def: "ISO, MDY", report: true, update: updateDateStyle},
	"intervalstyle":                       {def: "postgres", report: true, check: checkEnum("intervalstyle", "postgres", "postgres_verbose", "sql_standard", "iso_8601")},
	"timezone":                            {def: "UTC", report: true, check: checkTimeZone},
	"integer_datetimes":                   {def: "on", report: true, readOnly: true},
	"standard_conforming_strings":         {def: "on", report: true, check: checkOneOf("on")},
	"application_name":                    {def: "", report: true, check: cleanASCII, name: true},
	"is_superuser":                        {def: "on", report: true, readOnly: true},
	"session_authorization":               {def: "", report: true, readOnly: true},
	"role":                                {def: "none", readOnly: true},
	"password_encryption":                 {def: "scram-sha-256", check: checkPasswordEncryption},
	"superuser_reserved_connections":      {def: "3", readOnly: true, postmaster: true},
	"default_transaction_read_only":       {def: "off", report: true, check: checkBool("default_transaction_read_only")},
	"in_hot_standby":                      {def: "off", report: true, readOnly: true},
	"search_path":                         {def: `"$user", public`},
	"extra_float_digits":                  {def: "1", check: checkIntRange("extra_float_digits", -15, 3)},
	"statement_timeout":                   {def: "0", check: checkMillis("statement_timeout", 0), show: showMillis},
	"lock_timeout":                        {def: "0", check: checkMillis("lock_timeout", 0), show: showMillis},
	"log_min_duration_statement":          {def: "-1", check: checkMillis("log_min_duration_statement", -1), show: showMillis},
	"idle_in_transaction_session_timeout": {def: "0", check: checkMillis("idle_in_transaction_session_timeout", 0), show: showMillis},
	"idle_session_timeout":                {def: "0", check: checkMillis("idle_session_timeout", 0), show: showMillis},
	"transaction_isolation":               {def: exec.ReadCommitted},
	"default_transaction_isolation":       {def: exec.ReadCommitted, check: checkIsolation},
	"transaction_read_only":               {def: "off"},
	"max_identifier_length":               {def: "63", readOnly: true},
	"max_index_keys":                      {def: "32", readOnly: true},
	"max_connections":                     {def: "100", readOnly: true, postmaster: true},
	"max_prepared_transactions":           {def: "0", readOnly: true, postmaster: true},
	"block_size":                          {def: "8192", readOnly: true},
	"lc_collate":                          {def: "C", readOnly: true},
	"lc_ctype":                            {def: "C", readOnly: true},
	"lc_messages":                         {def: "C"},
	"lc_monetary":                         {def: "C"},
	"lc_numeric":                          {def: "C"},
	"lc_time":                             {def: "C"},
	"bytea_output":                        {def: "hex", check: checkEnum("bytea_output", "escape", "hex")},
	"client_min_messages":                 {def: "notice"},
	"row_security":                        {def: "on", check: checkBool("row_security")},
	"synchronous_commit":                  {def: "on"},
	"work_mem":                            {def: "4MB", check: checkMemory("work_mem", 64)},
	"statement_mem":                       {def: DefaultStatementMem, check: checkMemory("statement_mem", 0)},
	"maintenance_work_mem":                {def: "64MB", check: checkMemory("maintenance_work_mem", 1024)},
	"jit":                                 {def: "off", check: checkBool("jit")},
	// The planner's method switches. enable_indexscan off plans vector
	// searches without their indexes (exact, as pgvector's users ask for
	// it), enable_bitmapscan off LIKE without trigram indexes; cairn has
	// no plan the others could turn off.
	"enable_seqscan":    {def: "on", check: checkBool("enable_seqscan")},
	"enable_indexscan":  {def: "on", check: checkBool("enable_indexscan")},
	"enable_bitmapscan": {def: "on", check: checkBool("enable_bitmapscan")},
	// The configuration of to_tsvector and the other text search
	// functions called without one.
	"default_text_search_config": {def: "pg_catalog.english", check: checkTextSearchConfig},
	// pg_dump turns it off; cairn's scans never synchronise, so either
	// value holds.
	"synchronize_seqscans": {def: "on", check: checkBool("synchronize_seqscans")},
	// What a pg_dump script sets before its statements. cairn has no
	// function bodies to check and no xml type, so any value of those
	// two holds; its one table access method is heap (what pg_dump
	// names for every table) and its one tablespace the default.
	"check_function_bodies":       {def: "on", check: checkBool("check_function_bodies")},
	"xmloption":                   {def: "content", check: checkEnum("xmloption", "content", "document")},
	"default_table_access_method": {def: "heap", check: checkOneOf("heap")},
	"default_tablespace":          {def: "", check: checkOneOf("", "pg_default")},
	// pgvector 0.8.6's settings, with its defaults and ranges (hnsw.c,
	// ivfflat.c).
	"hnsw.ef_search":           {def: "40", check: checkIntRange("hnsw.ef_search", 1, 1000)},
	"hnsw.iterative_scan":      {def: "off", check: checkEnum("hnsw.iterative_scan", "off", "relaxed_order", "strict_order")},
	"hnsw.max_scan_tuples":     {def: "20000", check: checkIntRange("hnsw.max_scan_tuples", 1, math.MaxInt32)},
	"hnsw.scan_mem_multiplier": {def: "1", check: checkRealRange("hnsw.scan_mem_multiplier", 1, 1000)},
	"ivfflat.probes":           {def: "1", check: checkIntRange("ivfflat.probes", 1, 32768)},
	"ivfflat.iterative_scan":   {def: "off", check: checkEnum("ivfflat.iterative_scan", "off", "relaxed_order")},
	"ivfflat.max_probes":       {def: "32768", check: checkIntRange("ivfflat.max_probes", 1, 32768)},
}

// reservedPrefixes are the setting prefixes pgvector reserves
// (MarkGUCPrefixReserved): a name under them must be one of its settings.
var reservedPrefixes = []string{"hnsw", "ivfflat"}

// reservedPrefix is the reserved prefix of a custom setting's name, or "".
func reservedPrefix(name string) string {
	prefix, _, _ := strings.Cut(strings.ToLower(name), ".")
	if slices.Contains(reservedPrefixes, prefix) {
		return prefix
	}
	return ""
}

// lookupSetting finds a setting by its case-insensitive name. Names of
// two or more identifiers joined by dots are custom (extension)
// settings: any is accepted, like PostgreSQL's placeholder variables,
// except under a reserved prefix.
func lookupSetting(name string) (setting, bool) {
	s, ok := settings[strings.ToLower(name)]
	if !ok && validCustomName(name) && reservedPrefix(name) == "" {
		return setting{}, true
	}
	return s, ok
}

// validCustomName is PostgreSQL's valid_custom_variable_name: simple
// identifiers (letters, '_' and non-ASCII bytes, then digits and '$'
// too) joined by dots, at least two.
func validCustomName(name string) bool {
	dot, start := false, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if start {
				return false
			}
			dot, start = true, true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
			start = false
		case !start && (c >= '0' && c <= '9' || c == '$'):
		default:
			return false
		}
	}
	return dot && !start
}

// unknownSetting is PostgreSQL's error for setting name, which
// lookupSetting does not know: a name under a reserved prefix or a
// malformed custom name is invalid (42602), any other unrecognized
// (42704).
func unknownSetting(name string) error {
	if prefix := reservedPrefix(name); prefix != "" {
		return pgerr.New(pgerrcode.InvalidName, "invalid configuration parameter name \"%s\"", name).
			WithDetail("\"%s\" is a reserved prefix.", prefix)
	}
	if strings.Contains(name, ".") {
		return pgerr.New(pgerrcode.InvalidName, "invalid configuration parameter name \"%s\"", name).
			WithDetail("Custom parameter names must be two or more simple identifiers separated by dots.")
	}
	return unrecognized(name)
}

// cannotChange is PostgreSQL's error for setting name, which is read
// only (st.readOnly).
func cannotChange(name string, st setting) error {
	if st.postmaster {
		return pgerr.New(pgerrcode.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed without restarting the server", name)
	}
	return pgerr.New(pgerrcode.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", name)
}

// setValue sets a setting of the session. The values map is copied, not
// changed in place: the running statements' environments share the map
// they were given (see statementEnv).
func (s *Session) setValue(name, v string) {
	values := maps.Clone(s.values)
	values[name] = v
	s.values = values
	s.parsed = nil
}

// unsetValue returns a setting to its default, copying the map as
// setValue does.
func (s *Session) unsetValue(name string) {
	if _, ok := s.values[name]; ok {
		values := maps.Clone(s.values)
		delete(values, name)
		s.values = values
		s.parsed = nil
	}
}

// parsedSettings are the settings every statement reads, parsed from the
// session's values once after each change rather than per statement: a
// named TimeZone would otherwise be loaded from the time zone database
// each time.
type parsedSettings struct {
	loc       *time.Location
	dateStyle types.DateStyle
	floats    types.FloatStyle
	// byteaEscape is bytea_output = escape.
	byteaEscape bool
	// intervalStyle is IntervalStyle.
	intervalStyle types.IntervalStyle
	searchPath    []string
	// bind are the settings a statement's binding depends on (bindKey).
	bind bindSettings
	// The timeouts (0: none) and statement_mem in bytes (0: no limit).
	statementTimeout, idleSessionTimeout, idleInTxTimeout time.Duration
	statementMem                                          int64
	// logMinDuration is log_min_duration_statement in milliseconds (-1:
	// off).
	logMinDuration int64
	// defaultIsolation and defaultReadOnly are the modes a transaction
	// begins with.
	defaultIsolation string
	defaultReadOnly  bool
	// output are the options of text output (OutputOptions), made when
	// first asked for.
	output *types.TextOptions
	// currentSchema is current_schema() in the catalog currentSchemaOf
	// (CurrentSchema): the first schema of the search path it has.
	currentSchema   string
	currentSchemaOf *catalog.Catalog
}

// bindSettings are the settings the binder reads: search_path and the
// user its $user names, the TimeZone, DateStyle and extra_float_digits
// that constant casts follow, row_security (the user and it decide
// which row-level security policies filter a plan), and
// enable_indexscan and enable_bitmapscan (which indexes a plan may
// search).
type bindSettings struct {
	user, searchPath, tz, dates, floatDig, rowSecurity string
	indexScan, bitmapScan                              string
	byteaOutput, intervalStyle                         string
}

// parsedSettings returns the session's parsed settings (setValue and
// unsetValue drop them).
func (s *Session) parsedSettings() *parsedSettings {
	if s.parsed != nil {
		return s.parsed
	}
	p := &parsedSettings{loc: time.UTC, bind: bindSettings{user: s.currentUser(), searchPath: s.get("search_path"), tz: s.get("timezone"),
		dates: s.get("datestyle"), floatDig: s.get("extra_float_digits"), rowSecurity: s.get("row_security"),
		indexScan: s.get("enable_indexscan"), bitmapScan: s.get("enable_bitmapscan"),
		byteaOutput: s.get("bytea_output"), intervalStyle: s.get("intervalstyle")}}
	p.statementTimeout, _ = parseDuration(s.get("statement_timeout"))
	p.idleSessionTimeout, _ = parseDuration(s.get("idle_session_timeout"))
	p.idleInTxTimeout, _ = parseDuration(s.get("idle_in_transaction_session_timeout"))
	kb, _, _ := parseMemory(s.get("statement_mem"))
	p.statementMem = kb << 10
	p.logMinDuration, _ = strconv.ParseInt(s.get("log_min_duration_statement"), 10, 64)
	p.defaultIsolation = s.get("default_transaction_isolation")
	p.defaultReadOnly = isOn(s.get("default_transaction_read_only"))
	if loc, err := loadLocation(s.get("timezone")); err == nil {
		p.loc = loc
	}
	p.dateStyle, _ = types.ParseDateStyle(s.get("datestyle"), types.DateStyle{})
	n, _ := strconv.Atoi(s.get("extra_float_digits"))
	p.floats = types.FloatStyleFor(n)
	p.byteaEscape = s.get("bytea_output") == "escape"
	p.intervalStyle, _ = types.ParseIntervalStyle(s.get("intervalstyle"))
	for _, name := range searchPathNames(s.get("search_path")) {
		if name == "$user" {
			name = s.currentUser()
		}
		if name != "" {
			p.searchPath = append(p.searchPath, name)
		}
	}
	s.parsed = p
	return p
}

// searchPathNames splits a search_path value into its schema names as
// PostgreSQL does (SplitIdentifierString): a quoted name keeps its case
// and may hold commas ("a,b"), an unquoted one is folded to lower case. A
// value that is no such list falls back to its comma-separated parts,
// quotes trimmed.
func searchPathNames(v string) []string {
	if names, ok := types.SplitIdentifierList(v); ok {
		return names
	}
	var names []string
	for _, part := range strings.Split(v, ",") {
		names = append(names, strings.Trim(strings.TrimSpace(part), `"`))
	}
	return names
}

// endTxSettings undoes what the ending transaction did to the settings:
// everything when it rolled back, the SET LOCAL changes when it
// committed, as PostgreSQL does.
func (s *Session) endTxSettings(committed bool) {
	saved, local, kept := s.txValues, s.txLocal, s.txKept
	s.txValues, s.txLocal, s.txKept = nil, nil, nil
	if saved == nil {
		return
	}
	if committed {
		if local != nil { // nil would restore them all
			for name, k := range kept {
				if k.set {
					saved[name] = k.value
				} else {
					delete(saved, name)
				}
			}
			s.restoreSettings(saved, local)
		}
		return
	}
	s.restoreSettings(saved, nil)
}

// settingNames is the names of the settings a transaction's end or a
// savepoint's rollback compares: the server's settings and the custom
// ones (placeholder variables such as app.tenant) in saved or set now.
func (s *Session) settingNames(saved map[string]string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for name := range settings {
			if !yield(name) {
				return
			}
		}
		for name := range saved {
			if _, known := settings[name]; !known && !yield(name) {
				return
			}
		}
		for name := range s.values {
			_, known := settings[name]
			_, inSaved := saved[name]
			if !known && !inSaved && !yield(name) {
				return
			}
		}
	}
}

// keptValue is a setting's value after a plain SET in a transaction
// block: set is false where it went back to its default (RESET).
type keptValue struct {
	value string
	set   bool
}

// restoreSettings puts back the values of saved (a copy of s.values) for
// the settings in only, or for all when only is nil, reporting the
// changes clients track.
func (s *Session) restoreSettings(saved map[string]string, only map[string]bool) {
	for name := range s.settingNames(saved) {
		if only != nil && !only[name] {
			continue
		}
		old, had := saved[name]
		if cur, ok := s.values[name]; ok == had && cur == old {
			continue
		}
		_, known := settings[name]
		switch {
		case had:
			s.setValue(name, old)
		case !known:
			// A custom setting first set since saved stays defined,
			// empty, as PostgreSQL's placeholder variable does.
			s.setValue(name, "")
		default:
			s.unsetValue(name)
		}
		if st := settings[name]; st.report {
			s.changed[showName(name)] = s.get(name)
		}
	}
}

func unrecognized(name string) error {
	return pgerr.New(pgerrcode.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
}

func checkOneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		return "", pgerr.NotSupported("value \"%s\"", v)
	}
}

// cleanASCII is the check of application_name: PostgreSQL 15's
// pg_clean_ascii, which turns each byte that is not printable ASCII into
// '?'. Other sessions read the name (pg_stat_activity) and clients get it
// in ParameterStatus, so a startup packet's bytes that are not UTF-8 must
// not reach them.
func cleanASCII(v string) (string, error) {
	b := []byte(v)
	for i, c := range b {
		if c < 32 || c > 126 {
			b[i] = '?'
		}
	}
	return string(b), nil
}

// maxNameBytes is NAMEDATALEN - 1, the longest identifier PostgreSQL keeps.
const maxNameBytes = 63

// truncateName is v cut to maxNameBytes at a character's start, as
// PostgreSQL's truncate_identifier cuts it. application_name is one: a
// client reads it back in ParameterStatus, and libpq drops a connection
// whose ParameterStatus is longer than 30,000 bytes ("lost
// synchronization with server").
func truncateName(v string) string {
	if len(v) <= maxNameBytes {
		return v
	}
	n := maxNameBytes
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// checkEnum is PostgreSQL's check of an enum setting (case-insensitive).
func checkEnum(name string, values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, a := range values {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
			WithHint("Available values: %s.", strings.Join(values, ", "))
	}
}

// checkEncoding accepts the client encodings cairn speaks, with
// PostgreSQL's leniency in the name (case, and anything not a letter or
// digit, is ignored: asyncpg sends 'utf-8' quoted). SQL_ASCII is as in
// PostgreSQL over a UTF8 database: the bytes pass unconverted, and are
// checked as UTF8.
func checkEncoding(v string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, v)
	switch clean {
	case "utf8", "unicode":
		return "UTF8", nil
	case "sqlascii":
		return "SQL_ASCII", nil
	}
	return "", pgerr.NotSupported("client_encoding \"%s\" (only UTF8)", v)
}

// updateDateStyle is PostgreSQL's check_datestyle: v may give the output
// style, the field order or both (what it leaves out stays as in cur);
// the result is the canonical "Style, ORDER".
func updateDateStyle(v, cur string) (string, error) {
	now, _ := types.ParseDateStyle(cur, types.DateStyle{})
	ds, err := types.ParseDateStyle(v, now)
	if err != nil {
		return "", err
	}
	return ds.String(), nil
}

// DateStyle is the session's DateStyle setting.
func (s *Session) DateStyle() types.DateStyle { return s.parsedSettings().dateStyle }

// floatStyle is how the session prints float4 and float8 values, from
// extra_float_digits.
func (s *Session) floatStyle() types.FloatStyle { return s.parsedSettings().floats }

// TextOptions are the session settings that the text input and output of
// values follow (TimeZone, DateStyle, extra_float_digits), read afresh
// for each statement, with the current time for 'now' and friends. Binary
// input and output follow none of them.
func (s *Session) TextOptions() *types.TextOptions {
	p := s.parsedSettings()
	return &types.TextOptions{Location: s.Location(), Now: s.now(), DateStyle: s.DateStyle(), Floats: s.floatStyle(), ByteaEscape: p.byteaEscape, IntervalStyle: p.intervalStyle}
}

// OutputOptions are TextOptions for text output only, which does not
// read the current time: made once per change of the settings and
// shared, so the caller must not change them.
func (s *Session) OutputOptions() *types.TextOptions {
	p := s.parsedSettings()
	if p.output == nil {
		p.output = &types.TextOptions{Location: p.loc, DateStyle: p.dateStyle, Floats: p.floats, ByteaEscape: p.byteaEscape, IntervalStyle: p.intervalStyle}
	}
	return p.output
}

func checkTimeZone(v string) (string, error) {
	if _, err := loadLocation(v); err != nil {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", v)
	}
	return v, nil
}

// gmt is UTC under the name GMT, which the SQL, Postgres and German
// DateStyles print after a timestamptz as PostgreSQL does.
var gmt = time.FixedZone("GMT", 0)

// fixedZone is the zone of a numeric TimeZone setting, east seconds east
// of UTC, named as PostgreSQL abbreviates it: +05, -03:30.
func fixedZone(east int) *time.Location {
	abs, sign := east, "+"
	if east < 0 {
		abs, sign = -east, "-"
	}
	name := fmt.Sprintf("%s%02d", sign, abs/3600)
	if m := abs / 60 % 60; m != 0 {
		name += fmt.Sprintf(":%02d", m)
	}
	return time.FixedZone(name, east)
}

// loadLocation resolves a TimeZone setting: a zone name, a numeric
// offset in hours ("+2"), or a POSIX zone without daylight saving time
// ("GMT-05:00", what pgjdbc sends for a JVM in GMT+05:00).
func loadLocation(v string) (*time.Location, error) {
	switch strings.ToUpper(v) {
	case "UTC", "Z", "ZULU", "UCT":
		return time.UTC, nil
	case "GMT":
		return gmt, nil
	}
	if h, err := strconv.ParseFloat(v, 64); err == nil {
		return fixedZone(int(h * 3600)), nil
	}
	loc, err := time.LoadLocation(v)
	if err != nil {
		if posix, ok := posixZone(v); ok {
			return posix, nil
		}
	}
	return loc, err
}

// posixZone reads a POSIX TZ string of a standard time alone: a name of
// three or more letters and an offset west of UTC, [+-]hh[:mm[:ss]] with
// hh at most 24 ("EST5", "GMT-05:00" is five hours east).
func posixZone(v string) (*time.Location, bool) {
	i := 0
	for i < len(v) && (v[i] >= 'a' && v[i] <= 'z' || v[i] >= 'A' && v[i] <= 'Z') {
		i++
	}
	name, off := v[:i], v[i:]
	if len(name) < 3 || off == "" {
		return nil, false
	}
	sign := -1 // POSIX offsets count west
	switch off[0] {
	case '-':
		sign, off = 1, off[1:]
	case '+':
		off = off[1:]
	}
	secs, unit := 0, 3600
	for part := range strings.SplitSeq(off, ":") {
		n, err := strconv.Atoi(part)
		if err != nil || unit == 0 || len(part) == 0 || len(part) > 2 || part[0] == '+' || part[0] == '-' {
			return nil, false
		}
		secs += n * unit
		unit /= 60
	}
	if secs > 24*3600 {
		return nil, false
	}
	return time.FixedZone(name, sign*secs), true
}

// checkIntRange validates an integer setting as PostgreSQL's parse_int
// does (surrounding spaces allowed, a fraction rounded half to even) and
// its range, with PostgreSQL's errors.
// checkBool is the check of a Boolean setting: PostgreSQL's parse_bool
// (true, false, yes, no, on, off, 1, 0 and their unambiguous prefixes, in
// any case), stored as on or off.
func checkBool(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		t := strings.ToLower(strings.TrimSpace(v))
		switch {
		case t == "":
		case strings.HasPrefix("true", t), strings.HasPrefix("yes", t), t == "1", len(t) >= 2 && t == "on":
			return "on", nil
		case strings.HasPrefix("false", t), strings.HasPrefix("no", t), t == "0", len(t) >= 2 && strings.HasPrefix("off", t):
			return "off", nil
		}
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
	}
}

func checkIntRange(name string, lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		text := strings.TrimSpace(v)
		n, err := strconv.Atoi(text)
		if err != nil {
			f, ferr := strconv.ParseFloat(text, 64)
			if ferr != nil || math.IsNaN(f) || math.Abs(f) > math.MaxInt32 {
				return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
			}
			n = int(math.RoundToEven(f))
		}
		if n < lo || n > hi {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "%d is outside the valid range for parameter \"%s\" (%d .. %d)", n, name, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// checkRealRange checks a floating-point setting against its range.
func checkRealRange(name string, lo, hi float64) func(string) (string, error) {
	return func(v string) (string, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"%s\" requires a numeric value", name)
		}
		if f < lo || f > hi {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "%g is outside the valid range for parameter \"%s\" (%g .. %g)", f, name, lo, hi)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
}

// parseDuration reads a time setting: a bare number is milliseconds.
func parseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(ms) * time.Millisecond, nil
	}
	units := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	for suffix, unit := range units {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil {
				return time.Duration(f * float64(unit)), nil
			}
		}
	}
	return 0, pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter: \"%s\"", v)
}

// millisUnits are the units of a setting in milliseconds, in
// milliseconds, in the order PostgreSQL's hint lists them.
var millisUnits = []millisUnit{{"us", 0.001}, {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000}}

type millisUnit struct {
	name string
	ms   float64
}

// checkMillis validates a time setting, name, kept in milliseconds
// between lo and the int range, as PostgreSQL's parse_int reads one: a
// number (a fraction is rounded to the nearest millisecond), then
// optionally one of millisUnits (none is milliseconds).
func checkMillis(name string, lo int64) func(string) (string, error) {
	return func(v string) (string, error) {
		invalid := func(hint string) error {
			err := pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
			if hint != "" {
				err = err.WithHint("%s", hint)
			}
			return err
		}
		text := strings.TrimLeft(v, " \t\n\v\f\r")
		end := 0
		for end < len(text) && strings.IndexByte("+-0123456789.eE", text[end]) >= 0 {
			end++
		}
		var f float64
		for ; end > 0; end-- { // the longest prefix that is a number, as strtod reads
			var err error
			if f, err = strconv.ParseFloat(text[:end], 64); err == nil {
				break
			}
		}
		if end == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", invalid("")
		}
		if unit := strings.Trim(text[end:], " \t\n\v\f\r"); unit != "" {
			i := slices.IndexFunc(millisUnits, func(u millisUnit) bool { return u.name == unit })
			if i < 0 {
				return "", invalid(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
			}
			f *= millisUnits[i].ms
		}
		f = math.RoundToEven(f)
		if f > math.MaxInt32 || f < math.MinInt32 {
			return "", invalid("Value exceeds integer range.")
		}
		if ms := int64(f); ms < lo {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "%d ms is outside the valid range for parameter \"%s\" (%d .. %d)", ms, name, lo, math.MaxInt32)
		}
		return strconv.FormatInt(int64(f), 10), nil
	}
}

// DefaultStatementMem is statement_mem's default: generous, since cairn's
// sorts and hash tables do not spill to disk, yet below the server's
// default --memory-limit, so one runaway statement fails with 53200
// instead of taking the process down.
const DefaultStatementMem = "1GB"

// memoryUnits are PostgreSQL's memory units, each 1024 times the last.
var memoryUnits = []string{"kB", "MB", "GB", "TB"}

// parseMemory reads a memory setting as PostgreSQL's parse_int reads
// one in kB: an integer, then optionally a unit of memoryUnits (none is
// kB), within the int range in kB. It returns kB, or false and the hint
// PostgreSQL gives for the value ("" where it gives none).
func parseMemory(v string) (int64, string, bool) {
	v = strings.TrimSpace(v)
	end := 0
	if end < len(v) && (v[end] == '-' || v[end] == '+') {
		end++
	}
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(v[:end], 10, 64)
	if err != nil {
		return 0, "", false
	}
	shift := 0
	if unit := strings.TrimSpace(v[end:]); unit != "" {
		i := slices.Index(memoryUnits, unit)
		if i < 0 {
			return 0, "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".", false
		}
		shift = 10 * i
	}
	if n > math.MaxInt32>>shift || n < math.MinInt32>>shift {
		return 0, "Value exceeds integer range.", false
	}
	return n << shift, "", true
}

// checkMemory validates a memory setting, name, of at least minKB kB as
// PostgreSQL does, with its errors, and normalises it to the largest
// unit that holds it whole, as SHOW prints PostgreSQL's (1048576kB is
// 1GB); 0 stays 0.
func checkMemory(name string, minKB int64) func(string) (string, error) {
	return func(v string) (string, error) {
		kb, hint, ok := parseMemory(v)
		if !ok {
			err := pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
			if hint != "" {
				err = err.WithHint("%s", hint)
			}
			return "", err
		}
		if kb < minKB {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "%d kB is outside the valid range for parameter \"%s\" (%d .. %d)", kb, name, minKB, math.MaxInt32)
		}
		if kb == 0 {
			return "0", nil
		}
		unit := 0
		for unit < len(memoryUnits)-1 && kb%1024 == 0 {
			kb /= 1024
			unit++
		}
		return strconv.FormatInt(kb, 10) + memoryUnits[unit], nil
	}
}

// showMillis shows a time setting stored in milliseconds as PostgreSQL
// does: in the largest unit that holds it whole (7000 is 7s, 60000 1min,
// 1500 1500ms); 0 and -1 as they are.
func showMillis(v string) string {
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return v
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.name
		}
	}
	return v + "ms"
}

// CheckSetting validates value for the setting name as SET would, and
// returns it normalised: the server checks its configured defaults
// (Options.Settings) with it before it starts.
func CheckSetting(name, value string) (string, error) {
	st, ok := lookupSetting(name)
	if !ok {
		return "", unknownSetting(name)
	}
	if st.readOnly {
		return "", cannotChange(name, st)
	}
	return st.validate(value, st.def)
}

// showName is the display form of a setting name in SHOW's column
// header (PostgreSQL keeps the canonical mixed case for a few).
func showName(name string) string {
	switch name {
	case "datestyle":
		return "DateStyle"
	case "timezone":
		return "TimeZone"
	case "intervalstyle":
		return "IntervalStyle"
	}
	return name
}

// checkTextSearchConfig accepts the name of a text search configuration
// and spells it as PostgreSQL shows it, qualified.
func checkTextSearchConfig(v string) (string, error) {
	c, ok := tsearch.ConfigByName(v)
	if !ok {
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", "default_text_search_config", v)
	}
	return "pg_catalog." + c.Name, nil
}
