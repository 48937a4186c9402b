import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';

/** The PostgreSQL server the bench creates its database on. */
export interface BenchServer {
  /** A URL with rights to create and drop databases. */
  adminUrl: string;
  /** 'embedded' or where the URL came from. */
  origin: string;
  stop(): Promise<void>;
}

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * TEST_DATABASE_URL, else DATABASE_URL (the bench only creates and drops a database
 * of its own there), else an embedded PostgreSQL in a temporary directory that is
 * removed on stop, as the test run does.
 */
export async function startServer(log: (line: string) => void): Promise<BenchServer> {
  const configured = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (configured) {
    const origin = process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : 'DATABASE_URL';
    log(`using the PostgreSQL server of ${origin}`);
    return { adminUrl: configured, origin, stop: async () => undefined };
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'briefing-bench-pg-'));
  // Run as root, the package starts PostgreSQL as the `postgres` user, which must reach the cluster.
  await fs.chmod(dir, 0o755);
  try {
    const started = performance.now();
    const server = await startEmbeddedPostgres({
      clusterDir: path.join(dir, 'cluster'),
      databaseName: 'postgres',
      persistent: false,
      log,
    });
    log(`embedded PostgreSQL started in ${Math.round(performance.now() - started)} ms (${dir})`);
    return {
      adminUrl: server.adminUrl,
      origin: 'embedded',
      stop: async () => {
        try {
          await server.stop();
        } finally {
          await fs.rm(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server; the application's start-up migrates it. */
export async function createDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `briefing_bench_${randomBytes(5).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
