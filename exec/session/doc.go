// Package session is the floor between the wire protocols and the
// operators: a Session is one client's state (settings, the open
// transaction, prepared statements, portals and cursors, advisory locks)
// and runs its statements - parsing and binding them with package sql,
// DDL and transaction control itself, queries and DML through package
// exec. wire (the PostgreSQL protocol and the HTTP API) talks only to it.
package session
