// Package mcp is cairn's memory for coding agents: the memories and
// traces tables, what remember, recall, forget and trace do to them, and
// the MCP server (github.com/modelcontextprotocol/go-sdk) whose tools
// expose them. The same Store serves `cairn mcp` over stdio and the
// commands of the cairn binary (SQL over pgx, PgxDB) and the server's
// /mcp endpoint (SQL through a session, in package wire).
package mcp
