/**
 * What the shared disclosure-system budget adds to one upstream request: the time of
 * one `PostgresDartBudget.take` (one call of dart_budget_take) on the application's
 * pool, sequentially and with 3 concurrent callers (three instances' lines). The
 * window is kept full as in a busy minute: the caller-supplied clock moves 60 s /
 * limit per grant, so every grant prunes one start, counts a full window and records
 * one. Run: `npx tsc -p bench/tsconfig.json && node dist-bench/bench/dart-budget.js`
 * (TEST_DATABASE_URL or DATABASE_URL, else an embedded PostgreSQL).
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, buildMigrationDataSourceOptions } from '../src/database/data-source-options';
import { runMigrationsLocked } from '../src/database/migrate';
import { PostgresDartBudget } from '../src/upstream/dart/postgres-dart-budget';
import { startPostgresServer } from '../test/support/postgres-server';
import { createDatabase } from '../test/support/test-database';

const NOON_KST = new Date('2026-11-20T03:00:00Z');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function measure(dataSource: DataSource, perMinute: number, callers: number, grants: number): Promise<string> {
  await dataSource.query('TRUNCATE dart_request_starts, dart_budget_days');
  let virtualNow = 0;
  const step = 60_000 / perMinute;
  const budget = new PostgresDartBudget(
    dataSource,
    { requestsPerMinute: perMinute, requestsPerDay: 100_000_000 },
    () => NOON_KST,
    undefined,
    () => (virtualNow += step),
  );
  // Fill the window first.
  for (let i = 0; i < perMinute; i++) await budget.take(0);
  const times: number[] = [];
  let refused = 0;
  const worker = async (share: number) => {
    for (let i = 0; i < share; i++) {
      const started = performance.now();
      const answer = await budget.take(0);
      times.push(performance.now() - started);
      if (!answer.granted) refused++;
    }
  };
  await Promise.all(Array.from({ length: callers }, () => worker(Math.floor(grants / callers))));
  times.sort((a, b) => a - b);
  const row = `| ${perMinute} | ${callers} | ${times.length} | ${percentile(times, 0.5).toFixed(3)} | ${percentile(times, 0.99).toFixed(3)} | ${refused} |`;
  process.stdout.write(`${row}\n`);
  return row;
}

async function main(): Promise<void> {
  const server = await startPostgresServer('bench', (line) => process.stderr.write(`${line}\n`));
  const database = await createDatabase(server.adminUrl, 'briefing_bench_dart');
  try {
    const migrator = await new DataSource(buildMigrationDataSourceOptions(database.url)).initialize();
    await runMigrationsLocked(migrator);
    await migrator.destroy();
    const dataSource = await new DataSource(buildDataSourceOptions(database.url)).initialize();
    const version = (await dataSource.query<{ version: string }[]>('SELECT version()'))[0].version.split(' on ')[0];
    process.stdout.write(`${version}; one grant = PostgresDartBudget.take, ms\n`);
    process.stdout.write('| per minute | concurrent callers | grants | p50 | p99 | refused |\n');
    process.stdout.write('|---|---|---|---|---|---|\n');
    for (const perMinute of [600, 10_000]) {
      await measure(dataSource, perMinute, 1, 5_000);
      await measure(dataSource, perMinute, 3, 6_000);
    }
    await dataSource.destroy();
  } finally {
    await database.drop();
    await server.stop();
  }
}

void main();
