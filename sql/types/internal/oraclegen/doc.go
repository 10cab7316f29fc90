// Command oraclegen regenerates sql/types/oracle_cases_test.go: it runs
// every case of cases.go through a real PostgreSQL 15 (a throwaway
// server, e.g. from pg-oracle) and records the text output, the
// binary output and the error each input gives there.
//
//	go run ./sql/types/internal/oraclegen -port $ORACLE_PORT > sql/types/oracle_cases_test.go
package main
