// Package wire is cairn's front door: the PostgreSQL v3 protocol (startup,
// simple and extended query, cancel) over pgproto3, and the HTTP API. It
// moves statements into exec.Session and encodes result rows as text or
// binary with package types; it gives SQL no meaning of its own.
package wire
