package functions

// pg_advisory_unlock_all(): releases the session's advisory locks, which
// asyncpg's pool runs whenever it takes a connection back. cairn has no
// advisory locks, so there is nothing to release. PostgreSQL's result is
// void, whose text output is empty; cairn has no void type, so it returns
// an empty text.

func init() {
	Register(&Overload{Name: "pg_advisory_unlock_all", Result: tText, Volatile: true,
		Eval: func(*Context, []any) (any, error) { return "", nil }})
}
