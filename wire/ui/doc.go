// Package ui is the memory explorer served on the HTTP port at /ui:
// server-rendered pages (html/template, embedded CSS and JS, no build
// step) over the workspaces and tables, a hybrid recall over a table,
// rows, an agent's traces and the running queries. Its SQL runs through
// the same engine sessions as the HTTP API's (an mcp.DB).
package ui
