package functions

// pg_is_in_recovery(): whether the server is a standby replaying WAL,
// which tools check before writing. A cairn server never is.

func init() {
	Register(allVolatile(fn("pg_is_in_recovery", nil, tBool, func(*Context, []any) (any, error) { return false, nil }))...)
}
