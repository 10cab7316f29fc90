package syscat

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// Setting is one of the session's run-time parameters as pg_settings
// shows it: its current value and the value it has unless set (at server
// start and after RESET).
type Setting struct {
	Name    string // lower case, as SET and SHOW accept it
	Value   string
	Default string
}

// settingInfo is what pg_settings says about a parameter besides its
// values: PostgreSQL 15's descriptions (pgvector's for its parameters).
type settingInfo struct {
	name                 string // as PostgreSQL spells it (DateStyle)
	unit                 string // of setting, min_val and max_val: "", "kB", "ms"
	category             string
	shortDesc, extraDesc string
	context, vartype     string
	minVal, maxVal       string
	enumVals             []string
}

// settingInfos describe the parameters cairn has. Those it does not list
// (is_superuser, session_authorization, role) PostgreSQL leaves out of
// pg_settings too. The minimum and maximum of an internal (read-only)
// integer are its value, so they are left out here.
var settingInfos = []settingInfo{
	{"application_name", "", "Reporting and Logging / What to Log", "Sets the application name to be reported in statistics and logs.", "", "user", "string", "", "", nil},
	{"block_size", "", "Preset Options", "Shows the size of a disk block.", "", "internal", "integer", "", "", nil},
	{"bytea_output", "", "Client Connection Defaults / Statement Behavior", "Sets the output format for bytea.", "", "user", "enum", "", "", []string{"escape", "hex"}},
	{"check_function_bodies", "", "Client Connection Defaults / Statement Behavior", "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.", "", "user", "bool", "", "", nil},
	{"client_encoding", "", "Client Connection Defaults / Locale and Formatting", "Sets the client's character set encoding.", "", "user", "string", "", "", nil},
	{"client_min_messages", "", "Client Connection Defaults / Statement Behavior", "Sets the message levels that are sent to the client.", "Each level includes all the levels that follow it. The later the level, the fewer messages are sent.", "user", "enum", "", "", []string{"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"}},
	{"DateStyle", "", "Client Connection Defaults / Locale and Formatting", "Sets the display format for date and time values.", "Also controls interpretation of ambiguous date inputs.", "user", "string", "", "", nil},
	{"default_table_access_method", "", "Client Connection Defaults / Statement Behavior", "Sets the default table access method for new tables.", "", "user", "string", "", "", nil},
	{"default_tablespace", "", "Client Connection Defaults / Statement Behavior", "Sets the default tablespace to create tables and indexes in.", "An empty string selects the database's default tablespace.", "user", "string", "", "", nil},
	{"default_text_search_config", "", "Client Connection Defaults / Locale and Formatting", "Sets default text search configuration.", "", "user", "string", "", "", nil},
	{"default_transaction_isolation", "", "Client Connection Defaults / Statement Behavior", "Sets the transaction isolation level of each new transaction.", "", "user", "enum", "", "", []string{"serializable", "repeatable read", "read committed", "read uncommitted"}},
	{"default_transaction_read_only", "", "Client Connection Defaults / Statement Behavior", "Sets the default read-only status of new transactions.", "", "user", "bool", "", "", nil},
	{"enable_bitmapscan", "", "Query Tuning / Planner Method Configuration", "Enables the planner's use of bitmap-scan plans.", "", "user", "bool", "", "", nil},
	{"enable_indexscan", "", "Query Tuning / Planner Method Configuration", "Enables the planner's use of index-scan plans.", "", "user", "bool", "", "", nil},
	{"enable_seqscan", "", "Query Tuning / Planner Method Configuration", "Enables the planner's use of sequential-scan plans.", "", "user", "bool", "", "", nil},
	{"extra_float_digits", "", "Client Connection Defaults / Locale and Formatting", "Sets the number of digits displayed for floating-point values.", "This affects real, double precision, and geometric data types. A zero or negative parameter value is added to the standard number of digits (FLT_DIG or DBL_DIG as appropriate). Any value greater than zero selects precise output mode.", "user", "integer", "-15", "3", nil},
	{"hnsw.ef_search", "", "Customized Options", "Sets the size of the dynamic candidate list for search", "Valid range is 1..1000.", "user", "integer", "1", "1000", nil},
	{"hnsw.iterative_scan", "", "Customized Options", "Sets the mode for iterative scans", "", "user", "enum", "", "", []string{"off", "relaxed_order", "strict_order"}},
	{"hnsw.max_scan_tuples", "", "Customized Options", "Sets the max number of tuples to visit for iterative scans", "", "user", "integer", "1", "2147483647", nil},
	{"hnsw.scan_mem_multiplier", "", "Customized Options", "Sets the multiple of work_mem to use for iterative scans", "", "user", "real", "1", "1000", nil},
	{"idle_in_transaction_session_timeout", "ms", "Client Connection Defaults / Statement Behavior", "Sets the maximum allowed idle time between queries, when in a transaction.", "A value of 0 turns off the timeout.", "user", "integer", "0", "2147483647", nil},
	{"idle_session_timeout", "ms", "Client Connection Defaults / Statement Behavior", "Sets the maximum allowed idle time between queries, when not in a transaction.", "A value of 0 turns off the timeout.", "user", "integer", "0", "2147483647", nil},
	{"in_hot_standby", "", "Preset Options", "Shows whether hot standby is currently active.", "", "internal", "bool", "", "", nil},
	{"integer_datetimes", "", "Preset Options", "Shows whether datetimes are integer based.", "", "internal", "bool", "", "", nil},
	{"IntervalStyle", "", "Client Connection Defaults / Locale and Formatting", "Sets the display format for interval values.", "", "user", "enum", "", "", []string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"}},
	{"ivfflat.iterative_scan", "", "Customized Options", "Sets the mode for iterative scans", "", "user", "enum", "", "", []string{"off", "relaxed_order"}},
	{"ivfflat.max_probes", "", "Customized Options", "Sets the max number of probes for iterative scans", "", "user", "integer", "1", "32768", nil},
	{"ivfflat.probes", "", "Customized Options", "Sets the number of probes", "Valid range is 1..lists.", "user", "integer", "1", "32768", nil},
	{"jit", "", "Query Tuning / Other Planner Options", "Allow JIT compilation.", "", "user", "bool", "", "", nil},
	{"lc_collate", "", "Preset Options", "Shows the collation order locale.", "", "internal", "string", "", "", nil},
	{"lc_ctype", "", "Preset Options", "Shows the character classification and case conversion locale.", "", "internal", "string", "", "", nil},
	{"lc_messages", "", "Client Connection Defaults / Locale and Formatting", "Sets the language in which messages are displayed.", "", "superuser", "string", "", "", nil},
	{"lc_monetary", "", "Client Connection Defaults / Locale and Formatting", "Sets the locale for formatting monetary amounts.", "", "user", "string", "", "", nil},
	{"lc_numeric", "", "Client Connection Defaults / Locale and Formatting", "Sets the locale for formatting numbers.", "", "user", "string", "", "", nil},
	{"lc_time", "", "Client Connection Defaults / Locale and Formatting", "Sets the locale for formatting date and time values.", "", "user", "string", "", "", nil},
	{"lock_timeout", "ms", "Client Connection Defaults / Statement Behavior", "Sets the maximum allowed duration of any wait for a lock.", "A value of 0 turns off the timeout.", "user", "integer", "0", "2147483647", nil},
	{"log_min_duration_statement", "ms", "Reporting and Logging / When to Log", "Sets the minimum execution time above which all statements will be logged.", "Zero prints all queries. -1 turns this feature off.", "superuser", "integer", "-1", "2147483647", nil},
	{"maintenance_work_mem", "kB", "Resource Usage / Memory", "Sets the maximum memory to be used for maintenance operations.", "This includes operations such as VACUUM and CREATE INDEX.", "user", "integer", "1024", "2147483647", nil},
	{"max_connections", "", "Connections and Authentication / Connection Settings", "Sets the maximum number of concurrent connections.", "", "postmaster", "integer", "1", "262143", nil},
	{"max_identifier_length", "", "Preset Options", "Shows the maximum identifier length.", "", "internal", "integer", "", "", nil},
	{"max_index_keys", "", "Preset Options", "Shows the maximum number of index keys.", "", "internal", "integer", "", "", nil},
	{"max_prepared_transactions", "", "Resource Usage / Memory", "Sets the maximum number of simultaneously prepared transactions.", "", "postmaster", "integer", "0", "262143", nil},
	{"password_encryption", "", "Connections and Authentication / Authentication", "Chooses the algorithm for encrypting passwords.", "", "user", "enum", "", "", []string{"md5", "scram-sha-256"}},
	{"row_security", "", "Client Connection Defaults / Statement Behavior", "Enable row security.", "When enabled, row security will be applied to all users.", "user", "bool", "", "", nil},
	{"search_path", "", "Client Connection Defaults / Statement Behavior", "Sets the schema search order for names that are not schema-qualified.", "", "user", "string", "", "", nil},
	{"server_encoding", "", "Preset Options", "Shows the server (database) character set encoding.", "", "internal", "string", "", "", nil},
	{"server_version", "", "Preset Options", "Shows the server version.", "", "internal", "string", "", "", nil},
	{"server_version_num", "", "Preset Options", "Shows the server version as an integer.", "", "internal", "integer", "", "", nil},
	{"standard_conforming_strings", "", "Version and Platform Compatibility / Previous PostgreSQL Versions", "Causes '...' strings to treat backslashes literally.", "", "user", "bool", "", "", nil},
	{"statement_mem", "kB", "Resource Usage / Memory", "Sets the most memory one statement's sorts, hash tables and buffered rows may hold.", "cairn does not spill to disk: a statement past it fails with out of memory (53200). 0 turns off the limit.", "user", "integer", "0", "2147483647", nil},
	{"statement_timeout", "ms", "Client Connection Defaults / Statement Behavior", "Sets the maximum allowed duration of any statement.", "A value of 0 turns off the timeout.", "user", "integer", "0", "2147483647", nil},
	{"superuser_reserved_connections", "", "Connections and Authentication / Connection Settings", "Sets the number of connection slots reserved for superusers.", "", "postmaster", "integer", "0", "262143", nil},
	{"synchronize_seqscans", "", "Version and Platform Compatibility / Previous PostgreSQL Versions", "Enable synchronized sequential scans.", "", "user", "bool", "", "", nil},
	{"synchronous_commit", "", "Write-Ahead Log / Settings", "Sets the current transaction's synchronization level.", "", "user", "enum", "", "", []string{"local", "remote_write", "remote_apply", "on", "off"}},
	{"TimeZone", "", "Client Connection Defaults / Locale and Formatting", "Sets the time zone for displaying and interpreting time stamps.", "", "user", "string", "", "", nil},
	{"transaction_isolation", "", "Client Connection Defaults / Statement Behavior", "Sets the current transaction's isolation level.", "", "user", "enum", "", "", []string{"serializable", "repeatable read", "read committed", "read uncommitted"}},
	{"transaction_read_only", "", "Client Connection Defaults / Statement Behavior", "Sets the current transaction's read-only status.", "", "user", "bool", "", "", nil},
	{"work_mem", "kB", "Resource Usage / Memory", "Sets the maximum memory to be used for query workspaces.", "This much memory can be used by each internal sort operation and hash table before switching to temporary disk files.", "user", "integer", "64", "2147483647", nil},
	{"xmloption", "", "Client Connection Defaults / Statement Behavior", "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments.", "", "user", "enum", "", "", []string{"content", "document"}},
}

func init() {
	infos := map[string]*settingInfo{}
	for i := range settingInfos {
		infos[strings.ToLower(settingInfos[i].name)] = &settingInfos[i]
	}
	register("pg_catalog", "pg_settings", 0, "name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline int4, pending_restart bool", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.Settings {
			info, ok := infos[s.Name]
			if !ok {
				continue
			}
			value, def := inUnit(s.Value, info.unit), inUnit(s.Default, info.unit)
			minVal, maxVal := nullIfEmpty(info.minVal), nullIfEmpty(info.maxVal)
			if info.context == "internal" && info.vartype == "integer" {
				minVal, maxVal = value, value
			}
			var enumVals any
			if info.enumVals != nil {
				elems := make([]any, len(info.enumVals))
				for i, e := range info.enumVals {
					elems[i] = e
				}
				enumVals = types.NewArray(types.TextT, elems...)
			}
			source := "default"
			if s.Value != s.Default {
				source = "session"
			}
			rows = append(rows, []any{info.name, value, nullIfEmpty(info.unit), info.category, info.shortDesc, nullIfEmpty(info.extraDesc),
				info.context, info.vartype, source, minVal, maxVal, enumVals, def, def, nil, nil, false})
		}
		sort.Slice(rows, func(i, j int) bool {
			return strings.ToLower(rows[i][0].(string)) < strings.ToLower(rows[j][0].(string))
		})
		return rows
	})
}

// nullIfEmpty is s, or NULL for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// inUnit is a parameter's value as a number of its unit, as pg_settings
// shows it: SHOW's work_mem of 4MB is 4096 (kB). Values that are not a
// size in kB are shown as they are.
func inUnit(value, unit string) string {
	if unit != "kB" {
		return value
	}
	for i, suffix := range []string{"kB", "MB", "GB", "TB"} {
		n, ok := strings.CutSuffix(value, suffix)
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if err != nil {
			return value
		}
		return strconv.FormatInt(kb<<(10*i), 10)
	}
	return value
}
