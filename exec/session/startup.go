package session

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// applyStartup applies a client's startup parameters (the startup
// packet's, less user, database and replication) as PostgreSQL's
// process_startup_options does: the switches of "options" first, in
// order, then each other parameter as a setting, which thus overrides
// what options set. The first failure is the connection's FATAL error:
// an unknown name (42704), an invalid value (22023), a setting that
// cannot be changed (55P02), a malformed options string (42601).
func (s *Session) applyStartup(params map[string]string) error {
	if opts, ok := params["options"]; ok {
		if err := processSwitches(splitOptions(opts), s.setAtStartup); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(params))
	for name := range params {
		if name != "options" {
			names = append(names, name)
		}
	}
	slices.Sort(names) // a map has no packet order: report the same error each time
	for _, name := range names {
		if err := s.setAtStartup(name, params[name]); err != nil {
			return err
		}
	}
	// The client learns every reported setting from the ParameterStatus
	// messages that follow authentication, not as changes.
	clear(s.changed)
	return nil
}

// setAtStartup sets one setting for a connecting client as SET would,
// save for the two that only a transaction has: PostgreSQL refuses
// transaction_isolation at connection (25001) and lets
// transaction_read_only end with the connection's own start-up
// transaction, so that it has no effect.
func (s *Session) setAtStartup(name, value string) error {
	lower := strings.ToLower(name)
	switch lower {
	case "transaction_isolation":
		// Any valid level, SERIALIZABLE too, comes too late.
		if _, err := isolationLevel(value); err != nil && pgerr.From(err).Code == pgerrcode.InvalidParameterValue {
			return err
		}
		return pgerr.New(pgerrcode.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	case "transaction_read_only":
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "on", "off", "true", "false", "yes", "no", "1", "0":
			return nil
		}
		return pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", lower)
	}
	if _, ok := lookupSetting(lower); !ok {
		return unknownSetting(name) // named as the client wrote it, as PostgreSQL does
	}
	// A startup packet's strings were not checked as a query's text is.
	// application_name's own check makes any bytes printable ASCII.
	if lower != "application_name" {
		if err := types.CheckText([]byte(value)); err != nil {
			return err
		}
	}
	return s.runSet(&sql.Set{Name: lower, Value: value})
}

// splitOptions splits the options startup parameter into arguments as
// PostgreSQL's pg_split_opts does: at runs of white space, where a
// backslash takes the character after it literally (so "\ " is a space
// within an argument and "\\" a backslash).
func splitOptions(opts string) []string {
	var args []string
	var arg strings.Builder
	in, escaped := false, false
	for i := 0; i < len(opts); i++ {
		c := opts[i]
		switch {
		case escaped:
			arg.WriteByte(c)
			escaped = false
		case isSpace(c):
			if in {
				args = append(args, arg.String())
				arg.Reset()
				in = false
			}
			continue
		case c == '\\':
			escaped = true
		default:
			arg.WriteByte(c)
		}
		in = true
	}
	if in {
		args = append(args, arg.String())
	}
	return args
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// switchTakesArg lists the switches of the postgres command line that
// PostgreSQL's process_postgres_switches accepts, each with whether it
// takes an argument (its getopt string
// "B:bc:C:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:").
var switchTakesArg = map[byte]bool{
	'B': true, 'b': false, 'c': true, 'C': true, 'D': true, 'd': true, 'E': false, 'e': false,
	'F': false, 'f': true, 'h': true, 'i': false, 'j': false, 'k': true, 'l': false, 'N': true,
	'n': false, 'O': false, 'P': false, 'p': true, 'r': true, 'S': true, 's': false, 'T': false,
	't': true, 'v': true, 'W': true, '-': true,
}

// serverSwitches are the switches that set a server-wide setting,
// which a connection cannot change: PostgreSQL's 55P02 for each.
var serverSwitches = map[byte]struct{ name, why string }{
	'B': {"shared_buffers", "without restarting the server"},
	'h': {"listen_addresses", "without restarting the server"},
	'i': {"listen_addresses", "without restarting the server"},
	'k': {"unix_socket_directories", "without restarting the server"},
	'p': {"port", "without restarting the server"},
	'F': {"fsync", "now"},
	'l': {"ssl", "now"},
}

// planSwitches are the letters of -f, each the enable_ setting it turns
// off (PostgreSQL's set_plan_disabling_options).
var planSwitches = map[byte]string{
	's': "enable_seqscan", 'i': "enable_indexscan", 'o': "enable_indexonlyscan", 'b': "enable_bitmapscan",
	't': "enable_tidscan", 'n': "enable_nestloop", 'm': "enable_mergejoin", 'h': "enable_hashjoin",
}

// processSwitches reads args, the options startup parameter split, as
// PostgreSQL's process_postgres_switches reads them for a client (with
// glibc's getopt), calling set for each setting a switch makes, in
// order: -c name=value and --name=value (a '-' in the name is '_'), -e
// (DateStyle euro), -S (work_mem), -N (max_connections) and -f (an
// enable_ setting off). The switches that set server-wide settings fail
// with PostgreSQL's 55P02; the rest of the debugging switches, which
// mean nothing to cairn (PostgreSQL ignores several of them from a
// client), fail with 0A000 rather than being ignored. An unknown switch,
// a missing argument or an argument that is no switch fails with
// PostgreSQL's 42601, naming the argument PostgreSQL names.
func processSwitches(args []string, set func(name, value string) error) error {
	argv := append([]string{"postgres"}, args...)
	var nonSwitches []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			nonSwitches = append(nonSwitches, argv[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			nonSwitches = append(nonSwitches, a) // getopt moves these to the end
			continue
		}
		for j := 1; j < len(a); j++ {
			flag := a[j]
			takesArg, ok := switchTakesArg[flag]
			if !ok {
				// getopt has moved on to the next argument only when the
				// unknown letter ended this one; PostgreSQL names the
				// argument before getopt's position.
				if j == len(a)-1 {
					return invalidArgument(a)
				}
				return invalidArgument(argv[i-1])
			}
			if !takesArg {
				if err := applySwitch(flag, "", set); err != nil {
					return err
				}
				continue
			}
			arg := a[j+1:]
			if arg == "" {
				if i+1 == len(argv) {
					return invalidArgument(a)
				}
				i++
				arg = argv[i]
			}
			if flag == 'f' && planSwitches[arg[0]] == "" {
				return invalidArgument(argv[i])
			}
			if err := applySwitch(flag, arg, set); err != nil {
				return err
			}
			break
		}
	}
	if len(nonSwitches) > 0 {
		return invalidArgument(nonSwitches[0])
	}
	return nil
}

// applySwitch carries out one switch of processSwitches with its
// argument arg.
func applySwitch(flag byte, arg string, set func(name, value string) error) error {
	switch flag {
	case 'c', '-':
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			if flag == '-' {
				return pgerr.New(pgerrcode.SyntaxError, "--%s requires a value", arg)
			}
			return pgerr.New(pgerrcode.SyntaxError, "-c %s requires a value", arg)
		}
		return set(strings.ReplaceAll(name, "-", "_"), value)
	case 'e':
		return set("datestyle", "euro")
	case 'S':
		return set("work_mem", arg)
	case 'N':
		return set("max_connections", arg)
	case 'f':
		return set(planSwitches[arg[0]], "off")
	}
	if sw, ok := serverSwitches[flag]; ok {
		return pgerr.New(pgerrcode.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed %s", sw.name, sw.why)
	}
	return pgerr.NotSupported("the -%c switch in the options startup parameter", flag)
}

// invalidArgument is PostgreSQL's error for an options argument its
// getopt loop could not take.
func invalidArgument(arg string) error {
	return pgerr.New(pgerrcode.SyntaxError, "invalid command-line argument for server process: %s", arg).
		WithHint("Try \"postgres --help\" for more information.")
}
