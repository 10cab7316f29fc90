// Reads cairn's segment files the way an Iceberg reader does: the data
// files minus the rows the position-delete file lists (by file path and
// row position). Prints one line per row, "id|n|txt|v", ordered by id.
// Usage: node check.js DELETE_FILE DATA_FILE...
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [delFile, ...dataFiles] = process.argv.slice(2);
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
  // A renamed column keeps its old name in older files: body, then txt.
  const reader = await conn.runAndReadAll(`
    SELECT d.id, d.n, coalesce(d.txt, d.body) AS txt, d.v
    FROM read_parquet([${dataFiles.map(lit).join(', ')}], filename = true, file_row_number = true, union_by_name = true) d
    ANTI JOIN read_parquet(${lit(delFile)}) x ON x.file_path = d.filename AND x.pos = d.file_row_number
    ORDER BY d.id`);
  for (const r of reader.getRowObjectsJson()) {
    console.log(`${r.id}|${JSON.stringify(r.n)}|${JSON.stringify(r.txt)}|${JSON.stringify(r.v)}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
