package session

import (
	"strconv"
	"testing"
)

// BenchmarkForeignKeyInsert times single-row INSERTs (autocommit) into a
// table whose foreign key references a 100,000-row table: an agent
// adding one memory row to a session.
func BenchmarkForeignKeyInsert(b *testing.B) {
	s, _ := copySession(b)
	run(b, s, `CREATE TABLE sessions (id bigint PRIMARY KEY, name text)`)
	run(b, s, `INSERT INTO sessions SELECT g, 'session ' || g FROM generate_series(1, 100000) g`)
	run(b, s, `CREATE TABLE memories (id bigint PRIMARY KEY, session_id bigint REFERENCES sessions (id), body text)`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, s, `INSERT INTO memories VALUES (`+strconv.Itoa(i)+`, `+strconv.Itoa(1+i*7919%100000)+`, 'remember this')`)
	}
}
