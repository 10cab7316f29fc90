// Reads cairn's Parquet files the way an Iceberg reader does: the data
// files minus the rows the position-delete files list (by file path and
// row position). Prints one line per row, "id|n|txt|v", ordered by id.
// Usage: node check.js SPEC, SPEC being JSON:
//   {"data": [{"file": LOCAL_FILE, "path": PATH_IN_ICEBERG}, ...], "deletes": [LOCAL_FILE, ...]}
// (a file fetched from an object store is read from a local copy, and
// the delete files name it by its s3:// path).
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const spec = JSON.parse(process.argv[2]);
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
  const files = spec.data.map((f) => `(${lit(f.file)}, ${lit(f.path)})`).join(', ');
  const deleted = spec.deletes.length === 0 ? '' : `
    ANTI JOIN read_parquet([${spec.deletes.map(lit).join(', ')}]) x ON x.file_path = f.path AND x.pos = d.file_row_number`;
  const data = `read_parquet([${spec.data.map((f) => lit(f.file)).join(', ')}], filename = true, file_row_number = true, union_by_name = true)`;
  // A renamed column keeps its old name in older files: body, then txt
  // (once compactions rewrote every older file, none has body).
  const names = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${data}`)).getRowObjectsJson().map((r) => r.column_name);
  const txt = names.includes('body') ? 'coalesce(d.txt, d.body)' : 'd.txt';
  const reader = await conn.runAndReadAll(`
    WITH f(file, path) AS (VALUES ${files})
    SELECT d.id, d.n, ${txt} AS txt, d.v
    FROM ${data} d
    JOIN f ON f.file = d.filename${deleted}
    ORDER BY d.id`);
  for (const r of reader.getRowObjectsJson()) {
    console.log(`${r.id}|${JSON.stringify(r.n)}|${JSON.stringify(r.txt)}|${JSON.stringify(r.v)}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
