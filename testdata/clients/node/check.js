// node-postgres (pg) against cairn: parameters of JS values (objects as
// JSONB, arrays as real[]), a vector search, result type parsing, an error
// with its SQLSTATE, a rolled-back transaction, array row mode and an
// enum column. Prints
// one line per check; the Go test TestNodePostgres compares them.
// Usage: node check.js postgres://USER@HOST:PORT/DB
const { Client } = require('pg');
(async () => {
  const c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  await c.query("CREATE TABLE mem (id bigserial PRIMARY KEY, task text NOT NULL, metadata jsonb, embedding real[], created timestamptz DEFAULT now())");
  const ins = await c.query("INSERT INTO mem (task, metadata, embedding) VALUES ($1, $2, $3) RETURNING id", ['fix oom', { repo: 'x' }, [0.5, 0.25]]);
  console.log('insert', ins.rowCount, typeof ins.rows[0].id);
  const r = await c.query("SELECT id, task, metadata, embedding, embedding <#> $1::float4[] AS score FROM mem WHERE metadata->>'repo' = $2 ORDER BY score DESC LIMIT 3", [[0.5, 0.25], 'x']);
  console.log('row', JSON.stringify(r.rows.map(x => [x.task, x.metadata, x.embedding, x.score])));
  const t = await c.query("SELECT now() AS n, 1.5::numeric AS d, true AS b, NULL AS z");
  console.log('types', t.rows[0].n instanceof Date, t.rows[0].d, t.rows[0].b, t.rows[0].z);
  try { await c.query("SELECT nope FROM mem"); } catch (e) { console.log('error', e.code, e.message); }
  await c.query("BEGIN"); await c.query("INSERT INTO mem (task) VALUES ('t2')"); await c.query("ROLLBACK");
  const n = await c.query({ text: "SELECT count(*) FROM mem", rowMode: 'array' });
  console.log('count', n.rows[0][0]);
  await c.query("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
  await c.query("CREATE TABLE moods (id int, m mood, ms mood[])");
  await c.query("INSERT INTO moods VALUES ($1, $2, $3), ($4, $5, NULL)", [1, 'happy', ['ok', 'sad'], 2, 'sad']);
  const e = await c.query("SELECT id, m, ms FROM moods WHERE m >= $1 ORDER BY m DESC", ['sad']);
  console.log('enum', JSON.stringify(e.rows.map(x => [x.id, x.m, x.ms])));
  await c.end();
})().catch(e => { console.error('FAIL', e); process.exit(1); });
