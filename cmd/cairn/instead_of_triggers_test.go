package main

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestInsteadOfTriggers: INSERT, UPDATE and DELETE of a view with an
// INSTEAD OF trigger, prepared with parameters as pgx sends them, run the
// trigger for each row (command tags count the rows it did not skip), as
// COPY FROM does, and the trigger survives a restart. The errors of its misuse carry
// PostgreSQL 15's DETAIL.
func TestInsteadOfTriggers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv := startServer(t, dir)
	conn := srv.connect(t)
	mustExec(t, conn, `CREATE TABLE items (id int PRIMARY KEY, name text, qty int)`)
	mustExec(t, conn, `CREATE VIEW stock AS SELECT name, sum(qty) AS total FROM items GROUP BY name`)
	mustExec(t, conn, `CREATE FUNCTION stock_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.total IS NULL THEN
      RETURN NULL;
    END IF;
    INSERT INTO items VALUES ((SELECT coalesce(max(id), 0) + 1 FROM items), NEW.name, NEW.total);
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE items SET name = NEW.name, qty = qty + NEW.total - OLD.total WHERE name = OLD.name;
    RETURN NEW;
  END IF;
  DELETE FROM items WHERE name = OLD.name;
  RETURN OLD;
END $$`)
	mustExec(t, conn, `CREATE TRIGGER stock_iud INSTEAD OF INSERT OR UPDATE OR DELETE ON stock FOR EACH ROW EXECUTE FUNCTION stock_write()`)

	var name string
	var total int
	if err := conn.QueryRow(ctx, `INSERT INTO stock VALUES ($1, $2) RETURNING name, total`, "bolt", 5).Scan(&name, &total); err != nil || name != "bolt" || total != 5 {
		t.Fatalf("insert returning: %q %d %v", name, total, err)
	}
	// RETURNING's columns are the view's, as clients read them.
	var viewOID uint32
	if err := conn.QueryRow(ctx, `SELECT oid FROM pg_class WHERE relname = 'stock'`).Scan(&viewOID); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `INSERT INTO stock VALUES ('rivet', 1) RETURNING total`)
	if err != nil {
		t.Fatal(err)
	}
	if fd := rows.FieldDescriptions(); len(fd) != 1 || fd[0].TableOID != viewOID || fd[0].TableAttributeNumber != 2 {
		t.Errorf("RETURNING column: %+v, want the view's (OID %d) column 2", fd, viewOID)
	}
	rows.Close()
	if _, err := conn.Exec(ctx, `DELETE FROM items WHERE name = 'rivet'`); err != nil {
		t.Fatal(err)
	}
	tag, err := conn.Exec(ctx, `INSERT INTO stock VALUES ($1, $2), ($3, NULL)`, "nut", 7, "skipped")
	if err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("insert with a skipped row: %v %v", tag, err)
	}
	if tag, err = conn.Exec(ctx, `UPDATE stock SET total = total + $1 WHERE name = $2`, 10, "nut"); err != nil || tag.String() != "UPDATE 1" {
		t.Fatalf("update: %v %v", tag, err)
	}
	if err := conn.QueryRow(ctx, `SELECT qty FROM items WHERE name = 'nut'`).Scan(&total); err != nil || total != 17 {
		t.Fatalf("updated row: %d %v", total, err)
	}
	if tag, err = conn.Exec(ctx, `DELETE FROM stock WHERE total < $1`, 10); err != nil || tag.String() != "DELETE 1" {
		t.Fatalf("delete: %v %v", tag, err)
	}
	// COPY FROM runs the INSERT trigger on each row; the one it skips
	// (total NULL) is not counted.
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"stock"}, []string{"name", "total"}, pgx.CopyFromRows([][]any{{"gear", 2}, {"cog", nil}, {"pin", 4}}))
	if err != nil || n != 2 {
		t.Fatalf("copy: %d %v", n, err)
	}
	if err := conn.QueryRow(ctx, `SELECT string_agg(name || qty, ',' ORDER BY id) FROM items`).Scan(&name); err != nil || name != "nut17,gear2,pin4" {
		t.Fatalf("rows after copy: %q %v", name, err)
	}

	for _, c := range []struct{ sql, code, msg, detail string }{
		{`CREATE TRIGGER t INSTEAD OF INSERT ON items FOR EACH ROW EXECUTE FUNCTION stock_write()`, "42809", `"items" is a table`,
			"Tables cannot have INSTEAD OF triggers."},
		{`CREATE TRIGGER t BEFORE INSERT ON stock FOR EACH ROW EXECUTE FUNCTION stock_write()`, "42809", `"stock" is a view`,
			"Views cannot have row-level BEFORE or AFTER triggers."},
		{`CREATE TRIGGER t AFTER TRUNCATE ON stock FOR EACH STATEMENT EXECUTE FUNCTION stock_write()`, "42809", `"stock" is a view`,
			"Views cannot have TRUNCATE triggers."},
		{`CREATE TRIGGER t INSTEAD OF DELETE ON stock FOR EACH STATEMENT EXECUTE FUNCTION stock_write()`, "0A000", "INSTEAD OF triggers must be FOR EACH ROW", ""},
	} {
		_, err := conn.Exec(ctx, c.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if pe.Code != c.code || pe.Message != c.msg || pe.Detail != c.detail {
			t.Errorf("%s:\n got %s %q detail %q\nwant %s %q detail %q", c.sql, pe.Code, pe.Message, pe.Detail, c.code, c.msg, c.detail)
		}
	}

	// After a restart the trigger is still there, and still runs.
	conn.Close(ctx)
	srv.stop()
	srv = startServer(t, dir)
	conn = srv.connect(t)
	var def string
	if err := conn.QueryRow(ctx, `SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'stock'::regclass`).Scan(&def); err != nil ||
		def != "CREATE TRIGGER stock_iud INSTEAD OF INSERT OR DELETE OR UPDATE ON public.stock FOR EACH ROW EXECUTE FUNCTION stock_write()" {
		t.Fatalf("trigger after restart: %q %v", def, err)
	}
	if tag, err = conn.Exec(ctx, `INSERT INTO stock VALUES ('washer', 3)`); err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("insert after restart: %v %v", tag, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM items`).Scan(&total); err != nil || total != 4 {
		t.Fatalf("rows after restart: %d %v", total, err)
	}
}
