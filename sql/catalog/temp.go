package catalog

import (
	"strconv"
	"strings"
)

// Temporary relations live in a schema of their session, pg_temp_<pid> as
// in PostgreSQL, which the session creates with its first temporary
// relation and drops when it ends (and the server drops at start-up what
// sessions of an earlier run left). The schema is an ordinary one of the
// catalog; what makes it private is that only its session's binder
// resolves names in it.

// tempSchemaPrefix starts the name of every session's temporary schema.
const tempSchemaPrefix = "pg_temp_"

// TempSchema is the temporary schema of the session with backend pid pid.
func TempSchema(pid int32) string { return tempSchemaPrefix + strconv.Itoa(int(pid)) }

// IsTempSchema reports whether schema is some session's temporary schema.
func IsTempSchema(schema string) bool { return strings.HasPrefix(schema, tempSchemaPrefix) }

// TempSchemaACL is the ACL of a temporary schema owned by owner: its
// session may use and create in it whatever role it runs as (SET ROLE
// included); other sessions never reach it, since their binders refuse
// its name.
func TempSchemaACL(owner uint32) []ACLItem {
	return []ACLItem{{Grantee: PublicOID, Grantor: owner, Privs: SchemaPrivs}}
}
