// TypeORM's synchronize and Sequelize's sync({alter: true}) against cairn,
// each run twice over the same models, as an application does at every
// start: the second TypeORM run must find nothing to change (it dropped
// primary keys whose names it did not find), and Sequelize's must apply
// (its ALTER COLUMN ... TYPE of unchanged types and ADD UNIQUE of keys it
// has). Prints one line per check; the Go test TestORMSchemaSync compares.
// Usage: node check.js HOST PORT USER DB
require('reflect-metadata');
const { DataSource, EntitySchema } = require('typeorm');
const { Sequelize, DataTypes } = require('sequelize');
const [host, port, user, database] = process.argv.slice(2);

async function typeorm() {
  const Memory = new EntitySchema({ name: 'Memory', tableName: 'torm_memory', columns: {
    id: { type: 'int', primary: true, generated: true },
    task: { type: 'text' }, meta: { type: 'jsonb', nullable: true }, emb: { type: 'real', array: true, nullable: true },
    kind: { type: 'varchar', length: 20, default: 'episodic' }, createdAt: { type: 'timestamptz', createDate: true },
    score: { type: 'numeric', precision: 10, scale: 2, default: 0 } },
    indices: [{ name: 'IDX_torm_task', columns: ['task'], unique: true }, { columns: ['kind', 'createdAt'] }],
    relations: { notes: { type: 'one-to-many', target: 'Note', inverseSide: 'memory' } } });
  const Note = new EntitySchema({ name: 'Note', tableName: 'torm_note', columns: { id: { type: 'int', primary: true, generated: 'increment' }, body: { type: 'text' } },
    relations: { memory: { type: 'many-to-one', target: 'Memory', joinColumn: true, onDelete: 'CASCADE' } } });
  for (let run = 1; run <= 2; run++) {
    const ddl = [];
    const logger = { logQuery: (q) => { if (!/^(SELECT|START TRANSACTION|COMMIT)/.test(q)) ddl.push(q) }, logQueryError() {}, logQuerySlow() {}, logSchemaBuild() {}, logMigration() {}, log() {} };
    const ds = new DataSource({ type: 'postgres', host, port: +port, username: user, database, entities: [Memory, Note], synchronize: true, logging: true, logger });
    await ds.initialize();
    if (run === 1) {
      const m = await ds.getRepository('Memory').save({ task: 'fix oom', meta: { repo: 'x' }, emb: [0.5, 0.25] });
      await ds.getRepository('Note').save({ body: 'n', memory: m });
    } else {
      const found = await ds.getRepository('Memory').find({ relations: { notes: true } });
      console.log('typeorm rows', found.length, found[0].notes.length, JSON.stringify(found[0].meta), found[0].score);
    }
    console.log('typeorm run', run, 'ddl', ddl.filter((q) => !/^CREATE EXTENSION/.test(q)).length > 0 ? (run === 1 ? 'created' : ddl.join('; ')) : 'none');
    await ds.destroy();
  }
}

async function sequelize() {
  for (let run = 1; run <= 2; run++) {
    const sq = new Sequelize({ dialect: 'postgres', host, port: +port, username: user, database, logging: false });
    const Memory = sq.define('Memory', { task: { type: DataTypes.TEXT, allowNull: false, unique: true }, meta: DataTypes.JSONB, emb: DataTypes.ARRAY(DataTypes.REAL),
      kind: { type: DataTypes.STRING(20), defaultValue: 'episodic' }, score: DataTypes.DECIMAL(10, 2) }, { indexes: [{ fields: ['kind'] }] });
    const Note = sq.define('Note', { body: DataTypes.TEXT });
    Memory.hasMany(Note, { onDelete: 'CASCADE' });
    Note.belongsTo(Memory);
    await sq.sync({ alter: true });
    if (run === 1) {
      const m = await Memory.create({ task: 'fix oom', meta: { repo: 'x' }, emb: [0.5, 0.25], score: 1.5 });
      await Note.create({ body: 'n', MemoryId: m.id });
    }
    const rows = await Memory.findAll({ where: { meta: { repo: 'x' } }, include: Note });
    console.log('sequelize run', run, rows.length, rows[0].Notes.length, JSON.stringify(rows[0].emb), rows[0].score);
    try { await Memory.create({ task: 'fix oom' }); } catch (e) { if (run === 2) console.log('sequelize duplicate', e.name, e.parent.code); }
    await sq.close();
  }
}

(async () => { await typeorm(); await sequelize(); })().catch((e) => { console.error('FAIL', e); process.exit(1); });
