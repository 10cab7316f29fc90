package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pgjdbcJar is Debian's libpostgresql-jdbc-java.
const pgjdbcJar = "/usr/share/java/postgresql.jar"

// TestJDBC runs pgjdbc (the driver of DBeaver, Metabase and most JVM
// tools) against a server: plain and prepared statements with float4[]
// and JSONB, a rolled-back transaction, ResultSetMetaData, and the
// DatabaseMetaData calls (tables, schemas, catalogs, columns, primary,
// foreign keys, indexes and their key order), each of which is catalog SQL of pgjdbc's own,
// and an enum column (setObject with Types.OTHER, getString).
// .ci/run installs a JDK and libpostgresql-jdbc-java when missing.
func TestJDBC(t *testing.T) {
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatal("javac is not installed (.ci/run installs default-jdk-headless)")
	}
	if err := exec.Command("test", "-f", pgjdbcJar).Run(); err != nil {
		t.Fatalf("%s is missing (.ci/run installs libpostgresql-jdbc-java)", pgjdbcJar)
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", "JdbcCheck.java"))
	if err != nil {
		t.Fatal(err)
	}
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-cp", pgjdbcJar, "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	ts := startServer(t, "")
	out, err := exec.Command("java", "-cp", pgjdbcJar+":"+classes, "JdbcCheck", "jdbc:postgresql://"+ts.Addr+"/cairn").CombinedOutput()
	if err != nil {
		t.Fatalf("JdbcCheck failed: %v\n%s", err, out)
	}
	want := `insert 1
rsmeta id:bigserial:0 name:varchar:0 task:text:0 repo:text:2 embedding:_float4:1
row 1 ann fix oom x [0.5, 0.25]
authors 1
product PostgreSQL 15
tables [authors, memories]
schemas [information_schema, pg_catalog, public]
catalogs [cairn]
columns id:bigserial:0 author_id:int4:1 task:text:0 metadata:jsonb:1 embedding:_float4:1
pk [id]
fk [authors]
indexes [memories_author_task, memories_author_task, memories_pkey, memories_task]
index keys [memories_author_task.1:author_id:D, memories_author_task.2:task:A, memories_pkey.1:id:A, memories_task.1:task:A]
enum [3:ok, 1:happy] mood`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("JdbcCheck printed:\n%s\nwant:\n%s", got, want)
	}
}
