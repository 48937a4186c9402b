import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '../../local/embedded-postgres';

/** The PostgreSQL server a test run or a benchmark creates its databases on. */
export interface PostgresServer {
  /** A URL with rights to create and drop databases. */
  adminUrl: string;
  /** 'embedded', or the variable the URL came from. */
  origin: string;
  stop(): Promise<void>;
}

/**
 * TEST_DATABASE_URL, else DATABASE_URL (only databases of our own are created and
 * dropped there), else an embedded PostgreSQL in a temporary directory that is
 * removed on stop. Shared by the test run (global-setup.ts) and bench/.
 */
export async function startPostgresServer(
  purpose: string,
  log: (line: string) => void,
  /** Settings of an embedded server (a configured one is used as it is). */
  settings?: Record<string, string>,
): Promise<PostgresServer> {
  const origin = process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded';
  const configured = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (configured) {
    log(`using the PostgreSQL server of ${origin}`);
    return { adminUrl: configured, origin, stop: async () => undefined };
  }

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `briefing-${purpose}-pg-`));
  // Run as root, the package starts PostgreSQL as the `postgres` user, which must reach the cluster.
  await fs.chmod(dir, 0o755);
  try {
    const started = performance.now();
    const server = await startEmbeddedPostgres({
      clusterDir: path.join(dir, 'cluster'),
      databaseName: 'postgres',
      persistent: false,
      log,
      settings,
    });
    log(`embedded PostgreSQL started in ${Math.round(performance.now() - started)} ms (${dir})`);
    return {
      adminUrl: server.adminUrl,
      origin,
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
