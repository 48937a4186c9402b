import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../local/embedded-postgres';
import { createDatabase } from '../../test/support/test-database';

/**
 * The soak's PostgreSQL and how it is taken away for a while:
 *   - embedded (neither TEST_DATABASE_URL nor DATABASE_URL set): a cluster of its own, stopped
 *     with `pg_ctl stop -m fast` (every session is terminated, 57P01, as in a real restart) and
 *     started again on the same port;
 *   - a configured server, which the soak must not stop: its own database is closed to new
 *     connections (`ALLOW_CONNECTIONS false`) and every session on it terminated, until reopened.
 */
export interface SoakPostgres {
  /** The soak's own database. */
  url: string;
  databaseName: string;
  /** 'embedded' or the variable the server came from. */
  origin: string;
  /** How `outage` takes the database away, for the report. */
  outageMethod: string;
  /** Takes the database away for `ms`, resolving when it is back; answers the window [start, end]. */
  outage(ms: number): Promise<{ start: number; end: number }>;
  /** Drops the soak's database (a configured server) or stops and removes the cluster (embedded). */
  close(): Promise<void>;
}

export async function startSoakPostgres(log: (line: string) => void): Promise<SoakPostgres> {
  const configured = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (configured) return configuredServer(configured, process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : 'DATABASE_URL', log);
  return embeddedServer(log);
}

async function embeddedServer(log: (line: string) => void): Promise<SoakPostgres> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'briefing-soak-pg-'));
  // Run as root, the package starts PostgreSQL as the `postgres` user, which must reach the cluster.
  await fs.chmod(dir, 0o755);
  const options = {
    clusterDir: path.join(dir, 'cluster'),
    databaseName: 'postgres',
    persistent: true,
    log,
    // Three instances' pools, their leadership sessions, the soak's own connections.
    settings: { max_connections: '200' },
  };
  let server: EmbeddedDatabase = await startEmbeddedPostgres(options);
  const port = server.port;
  const database = await createDatabase(server.adminUrl, 'briefing_soak');
  let running = true;
  return {
    url: database.url,
    databaseName: database.name,
    origin: 'embedded',
    outageMethod: '`pg_ctl stop -m fast` of the embedded cluster (every session terminated), then started again on the same port',
    async outage(ms) {
      const start = Date.now();
      await server.stop();
      running = false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + ms - Date.now())));
      server = await startEmbeddedPostgres({ ...options, port });
      running = true;
      return { start, end: Date.now() };
    },
    async close() {
      try {
        if (running) await server.stop();
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
  };
}

async function configuredServer(adminUrl: string, origin: string, log: (line: string) => void): Promise<SoakPostgres> {
  log(`using the PostgreSQL server of ${origin}`);
  const database = await createDatabase(adminUrl, 'briefing_soak');
  const admin = async (sql: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  const terminate = () =>
    admin('SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.name]);
  return {
    url: database.url,
    databaseName: database.name,
    origin,
    outageMethod: `\`ALTER DATABASE … ALLOW_CONNECTIONS false\` on the soak's own database and \`pg_terminate_backend\` of its sessions (every second), then connections allowed again (the server of ${origin} is shared, so it is not stopped)`,
    async outage(ms) {
      const start = Date.now();
      await admin(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS false`);
      while (Date.now() < start + ms) {
        await terminate();
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, start + ms - Date.now()))));
      }
      await admin(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS true`);
      return { start, end: Date.now() };
    },
    async close() {
      await admin(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS true`).catch(() => undefined);
      await database.drop();
    },
  };
}
