// Command cairn is the cairn server: a PostgreSQL-compatible SQL server
// over one data directory, speaking the PostgreSQL protocol and an HTTP
// API. Run it with --help for its flags.
package main
