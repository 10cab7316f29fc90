// pgjdbc (Debian's libpostgresql-jdbc-java) against cairn: statements,
// prepared statements with arrays and JSON, transactions, and the
// DatabaseMetaData and ResultSetMetaData calls DBeaver, Metabase and other
// JDBC tools make. Prints one line per check; the Go test TestJDBC
// compares them. Usage: java -cp postgresql.jar:. JdbcCheck JDBC_URL
import java.sql.*;
import java.util.*;

public class JdbcCheck {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "cairn", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE authors (id serial PRIMARY KEY, name varchar(100) NOT NULL UNIQUE)");
                s.execute("CREATE TABLE memories (id bigserial PRIMARY KEY, author_id int REFERENCES authors(id), task text NOT NULL, metadata jsonb, embedding real[])");
                s.execute("CREATE INDEX memories_task ON memories (task)");
                s.execute("CREATE INDEX memories_author_task ON memories (author_id DESC, task)");
                s.execute("INSERT INTO authors (name) VALUES ('ann')");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO memories (author_id, task, metadata, embedding) VALUES (?, ?, ?::jsonb, ?)")) {
                ps.setInt(1, 1);
                ps.setString(2, "fix oom");
                ps.setString(3, "{\"repo\": \"x\"}");
                ps.setArray(4, c.createArrayOf("float4", new Float[] {0.5f, 0.25f}));
                System.out.println("insert " + ps.executeUpdate());
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO authors (name) VALUES ('bob')");
            }
            c.rollback();
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("SELECT m.id, a.name, m.task, m.metadata->>'repo' AS repo, m.embedding FROM memories m JOIN authors a ON a.id = m.author_id WHERE m.task LIKE ?")) {
                ps.setString(1, "fix%");
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData md = rs.getMetaData();
                    StringBuilder cols = new StringBuilder();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        cols.append(md.getColumnName(i)).append(':').append(md.getColumnTypeName(i)).append(':').append(md.isNullable(i)).append(' ');
                    }
                    System.out.println("rsmeta " + cols.toString().trim());
                    while (rs.next()) {
                        Float[] emb = (Float[]) rs.getArray("embedding").getArray();
                        System.out.println("row " + rs.getLong("id") + " " + rs.getString("name") + " " + rs.getString("task") + " " + rs.getString("repo") + " " + Arrays.toString(emb));
                    }
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM authors")) {
                rs.next();
                System.out.println("authors " + rs.getInt(1));
            }
            DatabaseMetaData md = c.getMetaData();
            System.out.println("product " + md.getDatabaseProductName() + " " + md.getDatabaseMajorVersion());
            System.out.println("tables " + names(md.getTables(null, "public", "%", new String[] {"TABLE"}), "TABLE_NAME"));
            System.out.println("schemas " + names(md.getSchemas(), "TABLE_SCHEM"));
            System.out.println("catalogs " + names(md.getCatalogs(), "TABLE_CAT"));
            StringBuilder cols = new StringBuilder();
            try (ResultSet rs = md.getColumns(null, "public", "memories", "%")) {
                while (rs.next()) {
                    cols.append(rs.getString("COLUMN_NAME")).append(':').append(rs.getString("TYPE_NAME")).append(':').append(rs.getInt("NULLABLE")).append(' ');
                }
            }
            System.out.println("columns " + cols.toString().trim());
            System.out.println("pk " + names(md.getPrimaryKeys(null, "public", "memories"), "COLUMN_NAME"));
            System.out.println("fk " + names(md.getImportedKeys(null, "public", "memories"), "PKTABLE_NAME"));
            System.out.println("indexes " + names(md.getIndexInfo(null, "public", "memories", false, false), "INDEX_NAME"));
            // Each key column with its order: ASC_OR_DESC comes from
            // pg_index.indoption, an int2vector pgjdbc subscripts from 0.
            List<String> keys = new ArrayList<>();
            try (ResultSet rs = md.getIndexInfo(null, "public", "memories", false, false)) {
                while (rs.next()) {
                    keys.add(rs.getString("INDEX_NAME") + "." + rs.getShort("ORDINAL_POSITION") + ":" + rs.getString("COLUMN_NAME") + ":" + rs.getString("ASC_OR_DESC"));
                }
            }
            Collections.sort(keys);
            System.out.println("index keys " + keys);
            // An enum: setObject with Types.OTHER sends the label untyped,
            // getString reads it, and the metadata names the type.
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
                s.execute("CREATE TABLE moods (id int, m mood)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO moods VALUES (?, ?)")) {
                for (Object[] r : new Object[][] {{1, "happy"}, {2, "sad"}, {3, "ok"}}) {
                    ps.setInt(1, (Integer) r[0]);
                    ps.setObject(2, r[1], Types.OTHER);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id, m FROM moods WHERE m >= ?::mood ORDER BY m")) {
                ps.setString(1, "ok");
                try (ResultSet rs = ps.executeQuery()) {
                    List<String> got = new ArrayList<>();
                    while (rs.next()) {
                        got.add(rs.getInt(1) + ":" + rs.getString(2));
                    }
                    System.out.println("enum " + got + " " + rs.getMetaData().getColumnTypeName(2));
                }
            }
        }
    }

    static List<String> names(ResultSet rs, String col) throws SQLException {
        List<String> out = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                out.add(rs.getString(col));
            }
        }
        Collections.sort(out);
        return out;
    }
}
