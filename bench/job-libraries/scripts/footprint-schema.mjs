// Experiment 4 (schema part): installs each library's schema in an empty database and counts
// what it creates, by kind, from the catalogs. Prints JSON; writes results/exp4-schema.json.
import { writeFileSync } from 'node:fs';
import { PgBoss } from 'pg-boss';
import { Logger, runMigrations } from 'graphile-worker';
import { dbUrl, sql } from './common.mjs';

const count = async (db, schema) => {
  const rows = await sql(
    `SELECT kind, count(*)::int AS n, string_agg(name, ', ' ORDER BY name) AS names FROM (
       SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'i' THEN 'index' WHEN 'I' THEN 'partitioned index'
              WHEN 'S' THEN 'sequence' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' ELSE c.relkind::text END AS kind, c.relname AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
       UNION ALL SELECT CASE p.prokind WHEN 'f' THEN 'function' WHEN 'p' THEN 'procedure' ELSE 'routine' END, p.proname
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
       UNION ALL SELECT 'type (enum/composite/domain)', t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
         WHERE n.nspname = $1 AND t.typtype IN ('e','c','d') AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.reltype = t.oid)
       UNION ALL SELECT 'trigger', tg.tgname FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND NOT tg.tgisinternal
     ) x GROUP BY kind ORDER BY kind`,
    [schema],
    db,
  );
  return rows;
};

const out = {};
for (const [db, lib] of [['joblibs_fp_boss', 'pg-boss'], ['joblibs_fp_gw', 'graphile-worker']]) {
  await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await sql(`CREATE DATABASE ${db}`);
  if (lib === 'pg-boss') {
    const boss = new PgBoss({ connectionString: dbUrl(db), supervise: false, schedule: false });
    await boss.start();
    await boss.stop({ graceful: false });
    out[lib] = { empty: await count(db, 'pgboss') };
    // Each queue adds objects (pg-boss partitions its job table by queue when asked).
    const b2 = new PgBoss({ connectionString: dbUrl(db), supervise: false, schedule: false });
    await b2.start();
    for (const q of ['analysis', 'push', 'tick', 'monitor']) await b2.createQueue(q);
    await b2.createQueue('big', { partition: true });
    await b2.stop({ graceful: false });
    out[lib].afterFiveQueuesOnePartitioned = await count(db, 'pgboss');
    out[lib].versionTable = await sql('SELECT * FROM pgboss.version', [], db);
  } else {
    await runMigrations({ connectionString: dbUrl(db), logger: new Logger(() => () => {}) });
    out[lib] = { empty: await count(db, 'graphile_worker') };
    out[lib].migrationsTable = await sql('SELECT count(*)::int AS migrations, max(id) AS latest FROM graphile_worker.migrations', [], db);
  }
  await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
}
writeFileSync(new URL('../results/exp4-schema.json', import.meta.url).pathname, JSON.stringify(out, null, 2));
console.log(JSON.stringify(out, null, 2));
process.exit(0);
