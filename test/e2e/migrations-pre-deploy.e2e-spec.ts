import { Client } from 'pg';
import request from 'supertest';
import { MIGRATIONS } from '../../migrations';
import { ConfigError } from '../../src/config/env-reader';
import { ADVISORY_LOCKS } from '../../src/database/advisory-locks';
import { PendingMigrationsError } from '../../src/database/migrate';
import { applyMigrations, readMigrationConfig } from '../../src/migrate-main';
import { untilLockWaiters } from '../support/lock-waits';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** The switch of a deployment whose migrations run as a pre-deploy step (deploy/kubernetes/deployment.yaml). */
const PRE_DEPLOY = { MIGRATIONS_AT_START: 'false' };
const ALL_MIGRATIONS = MIGRATIONS.map((migration) => migration.name);

describe('migrations as a pre-deploy step (MIGRATIONS_AT_START=false, node dist/src/migrate-main.js)', () => {
  let database: TestDatabase;
  let admin: Client;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await admin?.end();
    await database?.drop();
  });

  const tables = async () =>
    (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0].n;
  const log = () => {
    const lines: string[] = [];
    return { lines, info: (line: string) => void lines.push(line) };
  };

  it('refuses to start on a database without this version’s migrations, naming them and the command, and writes nothing', async () => {
    const start = startTestApp({ database, env: PRE_DEPLOY });
    await expect(start).rejects.toThrow(PendingMigrationsError);
    await expect(start).rejects.toThrow(
      new RegExp(
        `lacks ${MIGRATIONS.length} migration\\(s\\) of this version \\(${ALL_MIGRATIONS[0]}, .*\\) and MIGRATIONS_AT_START=false: ` +
          'apply them first with `node dist/src/migrate-main.js`',
      ),
    );
    // Not even the migrations table: the check only reads.
    expect(await tables()).toBe(0);
  });

  it('the migrate command applies them; the instance then starts, ready, and the command finds nothing more', async () => {
    const first = log();
    expect(await applyMigrations(database.url, first)).toEqual(ALL_MIGRATIONS);
    expect(first.lines).toEqual([`applied migrations: ${ALL_MIGRATIONS.join(', ')}`]);

    const t = await startTestApp({ database, env: PRE_DEPLOY });
    apps.push(t);
    expect(t.config.migrationsAtStart).toBe(false);
    await request(t.http).get('/health/ready').expect(200);

    const again = log();
    expect(await applyMigrations(database.url, again)).toEqual([]);
    expect(again.lines).toEqual([`no migration to apply: the database has all ${MIGRATIONS.length} migrations of this version`]);
  });

  it('a start waits for a migration in progress (the lock the command holds), then checks', async () => {
    // The command's session, mid-migration: it holds the migration lock.
    await admin.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.MIGRATION]);
    let settled = false;
    const start = startTestApp({ database, env: PRE_DEPLOY }).finally(() => (settled = true));
    let waitedForTheLock: boolean | unknown;
    try {
      await untilLockWaiters({ query: async <T>(text: string) => (await admin.query(text)).rows as T });
      waitedForTheLock = !settled;
    } catch (error) {
      waitedForTheLock = error;
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.MIGRATION]);
    }
    const t = await start;
    apps.push(t);
    expect(waitedForTheLock).toBe(true);
    await request(t.http).get('/health/ready').expect(200);
  });

  it('the command needs DATABASE_URL, and validates what it reads like the server', () => {
    expect(readMigrationConfig({ DATABASE_URL: database.url, APP_ENV: 'production', LOG_LEVEL: 'warn' })).toMatchObject({
      appEnv: 'production',
      logLevel: 'warn',
      databaseUrl: database.url,
    });
    for (const env of [{}, { APP_ENV: 'production' }]) {
      expect(() => readMigrationConfig(env)).toThrow(ConfigError);
      expect(() => readMigrationConfig(env)).toThrow(/DATABASE_URL must be set/);
    }
    expect(() => readMigrationConfig({ DATABASE_URL: 'not a url', LOG_LEVEL: 'loud' })).toThrow(
      /DATABASE_URL must be an absolute http\(s\) or postgres URL[\s\S]*LOG_LEVEL must be one of/,
    );
  });
});
