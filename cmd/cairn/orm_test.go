package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestORMSchemaSync runs TypeORM's synchronize and Sequelize's
// sync({alter: true}) twice over the same models against a server
// (testdata/clients/orm/check.js), as applications do at every start. The
// second TypeORM run found primary keys it had named missing and dropped
// them; Sequelize's failed on ALTER COLUMN ... TYPE of unchanged types and
// on adding its unique key again. The answers are PostgreSQL 15's.
func TestORMSchemaSync(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", "orm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typeorm")); err != nil {
		t.Fatalf("TypeORM is not installed: run npm ci --prefix %s (.ci/run does)", dir)
	}
	ts := startServer(t, "")
	host, port, err := net.SplitHostPort(ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "check.js", host, port, "cairn", "cairn")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("check.js failed: %v\n%s", err, out)
	}
	want := `typeorm run 1 ddl created
typeorm rows 1 1 {"repo":"x"} 0.00
typeorm run 2 ddl none
sequelize run 1 1 1 [0.5,0.25] 1.50
sequelize run 2 1 1 [0.5,0.25] 1.50
sequelize duplicate SequelizeUniqueConstraintError 23505`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("check.js printed:\n%s\nwant:\n%s", got, want)
	}
}
