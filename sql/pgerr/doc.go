// Package pgerr is the one error type that crosses every stage of cairn: a
// PostgreSQL error with its SQLSTATE, created where the fault is found and
// turned into an ErrorResponse in exactly one place in wire.
package pgerr
